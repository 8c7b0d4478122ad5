import { Result, Schema } from "effect"
import { AssetConfig } from "../booking/asset-config.ts"
import { customHeaderViolations } from "../events/delivery-headers.ts"
import { EventType } from "../events/envelope.ts"
import { normalizePhone } from "../member/phone.ts"
import { addressKey } from "../member/unit-binding.ts"
import { Characters } from "../shared/characters.ts"
import { isValidTimeZone } from "../shared/local-time.ts"

/**
 * The operator manifest (operator contract, section 3): a declarative description of
 * tenants, applied idempotently. Cross-references between keys are checked by
 * `manifestReferenceErrors`, so one request reports every broken reference at once.
 */
const Key = Schema.String.check(
  // The `u` flag lets the OpenAPI document carry the pattern (Effect leaves others out).
  Schema.isPattern(/^[a-z0-9_-]{1,64}$/u, { message: "must be 1-64 characters of a-z0-9-_" }),
)
const Text = Schema.String.check(Schema.isMinLength(1))
/** Counts and positions are stored as 32-bit integers. */
const NonNegInt = Schema.Number.check(Schema.isInt(), Schema.isGreaterThanOrEqualTo(0), Schema.isLessThanOrEqualTo(2_147_483_647))
/** An amount of THB a payment can carry: whole satang (at most 2 decimals), as pricing.ts assumes. */
const wholeSatang = Schema.makeFilter((thb: number) =>
  Math.abs(thb * 100 - Math.round(thb * 100)) < 1e-6 ? undefined : "must be in whole satang (at most 2 decimals)",
)
/** THB a room or desk charges per hour or per day: up to ten million, so every price stays a number. */
const Rate = Schema.Finite.check(Schema.isGreaterThanOrEqualTo(0), Schema.isLessThanOrEqualTo(10_000_000), wholeSatang)

const TimeZone = Schema.String.check(
  Schema.makeFilter((tz: string) => isValidTimeZone(tz) || "must be an IANA time zone name, e.g. Asia/Bangkok"),
)

const ChargeRate = Schema.Struct({ perHour: Rate, perDay: Rate })
const Equipments = Schema.Struct({
  camera: Schema.Boolean,
  display: Schema.Boolean,
  mic: Schema.Boolean,
  projector: Schema.Boolean,
  speaker: Schema.Boolean,
})
/**
 * An asset config the operator may provision: the engine's schema, and a check-in window that
 * is not empty. Check-in opens preStartMinutes before the start (15 when -1 or absent) and the
 * no-show cancel comes postStartExpireMinutes after it: both 0 would cancel every booking at its
 * start, before anyone could check in.
 */
const ProvisionedAssetConfig = AssetConfig.check(
  Schema.makeFilter((config) => {
    const m = config.meetingConfig
    return m?.preStartMinutes === 0 && m.postStartExpireMinutes === 0
      ? {
          path: ["meetingConfig", "postStartExpireMinutes"],
          issue: "must be above 0 when check-in opens at the start (preStartMinutes 0): every booking would be cancelled as a no-show before anyone could check in",
        }
      : undefined
  }),
)

/**
 * A discount code: one kind of value, a code as clients type it (codes are matched trimmed and in
 * any case, so a stored code with surrounding spaces could never be used), and an amount in whole
 * satang (what a payment carries).
 */
const ManifestDiscount = Schema.Struct({
  key: Key,
  code: Text.check(
    Schema.makeFilter((code: string) => (code.trim() === code ? undefined : "must not begin or end with spaces: codes are matched trimmed")),
  ),
  name: Text,
  percentOff: Schema.optionalKey(Schema.Finite.check(Schema.isGreaterThan(0), Schema.isLessThanOrEqualTo(100))),
  amountOff: Schema.optionalKey(Schema.Finite.check(Schema.isGreaterThan(0), wholeSatang)),
}).check(
  Schema.makeFilter((d) =>
    (d.percentOff === undefined) === (d.amountOff === undefined)
      ? { path: ["percentOff"], issue: "give exactly one of percentOff and amountOff" }
      : undefined,
  ),
)

const assetFields = {
  key: Key,
  name: Text,
  zone: Key,
  floor: Key,
  capacity: Schema.optionalKey(NonNegInt),
  status: Schema.optionalKey(Schema.Literals(["active", "inactive", "in-used", "reserved", "suspended"])),
  isPublic: Schema.optionalKey(Schema.Boolean),
  email: Schema.optionalKey(Schema.String),
  facilities: Schema.optionalKey(Schema.Array(Schema.String)),
  pictureUrls: Schema.optionalKey(Schema.Array(Schema.String)),
  chargeRate: Schema.optionalKey(ChargeRate),
  // The engine's own schema: a config the manifest accepts is one the booking rules read.
  config: Schema.optionalKey(ProvisionedAssetConfig),
}

export const ManifestRoom = Schema.Struct({
  ...assetFields,
  status: Schema.optionalKey(Schema.Literals(["active", "inactive"])),
  type: Schema.optionalKey(Schema.Literals(["normal", "bedroom"])),
  equipmentsAvailability: Schema.optionalKey(Equipments),
})
export const ManifestDesk = Schema.Struct({ ...assetFields, index: Schema.optionalKey(NonNegInt) })

const WebhookAuth = Schema.Union([
  Schema.Struct({ scheme: Schema.Literal("signature-only") }),
  Schema.Struct({ scheme: Schema.Literal("bearer"), token: Text }),
  Schema.Struct({
    scheme: Schema.Literal("custom-header"),
    headers: Schema.Array(
      Schema.Struct({
        name: Schema.String.check(Schema.isPattern(/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/u, { message: "must be an HTTP header name" })),
        // RFC 9110 field-value: visible characters, spaces and tabs; never CR or LF.
        value: Schema.String.check(Schema.isPattern(/^[\t\x20-\x7e\x80-\xff]*$/u, { message: "must be an HTTP header value (no control characters)" })),
      }),
    ).check(
      Schema.isMinLength(1),
      Schema.makeFilter((headers: ReadonlyArray<{ readonly name: string }>) => {
        const messages = customHeaderViolations(headers)
        return messages.length === 0 ? undefined : messages.join("; ")
      }),
    ),
  }),
  Schema.Struct({ scheme: Schema.Literal("jwt") }),
])

export const ManifestWebhook = Schema.Struct({
  key: Key,
  url: Schema.String.check(Schema.isPattern(/^https?:\/\/[^\s/]+/u, { message: "must be an absolute URL" })),
  secret: Characters(32, 256),
  events: Schema.Array(EventType),
  auth: Schema.optionalKey(WebhookAuth),
  /**
   * false disables the registration (no new deliveries, pending ones wait); true enables it and
   * resets its failure counter. Omitted: left as it is (an auto-disabled webhook stays disabled).
   */
  enabled: Schema.optionalKey(Schema.Boolean),
})

export const ManifestProject = Schema.Struct({
  key: Key,
  name: Text,
  timezone: TimeZone,
  zones: Schema.optionalKey(
    Schema.Array(
      Schema.Struct({
        key: Key,
        name: Text,
        floors: Schema.optionalKey(Schema.Array(Schema.Struct({ key: Key, name: Text }))),
      }),
    ),
  ),
  rooms: Schema.optionalKey(Schema.Array(ManifestRoom)),
  desks: Schema.optionalKey(Schema.Array(ManifestDesk)),
  units: Schema.optionalKey(
    Schema.Array(
      Schema.Struct({ key: Key, addressNo: Text, zone: Schema.optionalKey(Key), unitId: Schema.optionalKey(Text) }),
    ),
  ),
  accessGroups: Schema.optionalKey(Schema.Array(Schema.Struct({ key: Key, name: Text }))),
  discounts: Schema.optionalKey(Schema.Array(ManifestDiscount)),
  users: Schema.optionalKey(
    Schema.Array(
      Schema.Struct({
        key: Key,
        firstName: Text,
        lastName: Schema.String,
        email: Schema.optionalKey(Schema.String.check(Schema.isPattern(/^[^@\s]+@[^@\s]+$/u, { message: "must be an email address" }))),
        phone: Schema.optionalKey(Schema.String),
        employeeId: Schema.optionalKey(Characters(1, 64)),
        role: Schema.optionalKey(Schema.Literals(["member", "admin"])),
        links: Schema.optionalKey(
          Schema.Array(Schema.Struct({ app: Key, externalUserId: Characters(1, 128) })),
        ),
      }),
    ),
  ),
  webhooks: Schema.optionalKey(Schema.Array(ManifestWebhook)),
  /** Keys of webhooks to delete, with their delivery log; an unknown key is already gone. */
  removedWebhooks: Schema.optionalKey(Schema.Array(Key)),
})

export const Manifest = Schema.Struct({
  projects: Schema.optionalKey(Schema.Array(ManifestProject)),
  apps: Schema.optionalKey(
    Schema.Array(
      Schema.Struct({
        key: Key,
        appId: Characters(1, 128),
        appSecret: Characters(8, 256),
        projects: Schema.Array(Key),
        partnerAccessGroups: Schema.optionalKey(Schema.Array(Key)),
        canActAs: Schema.optionalKey(Schema.Boolean),
      }),
    ),
  ),
})
export type Manifest = typeof Manifest.Type
export type ManifestProject = typeof ManifestProject.Type

const duplicates = (keys: readonly string[]): string[] =>
  [...new Set(keys.filter((k, i) => keys.indexOf(k) !== i))]

/** Every broken key reference or duplicate key, one message each (empty when consistent). */
export const manifestReferenceErrors = (m: Manifest): string[] => {
  const errors: string[] = []
  const projects = m.projects ?? []
  const apps = m.apps ?? []
  for (const d of duplicates(projects.map((p) => p.key))) errors.push(`projects: duplicate key "${d}"`)
  for (const d of duplicates(apps.map((a) => a.key))) errors.push(`apps: duplicate key "${d}"`)
  for (const d of duplicates(apps.map((a) => a.appId))) errors.push(`apps: duplicate appId "${d}"`)
  const linkOfPerson = new Map<string, { externalUserId: string; at: string }>()
  const personOfLink = new Map<string, { person: string; at: string }>()
  projects.forEach((p, pi) => {
    const at = `projects.${pi}`
    const zones = p.zones ?? []
    const floorZone = new Map(zones.flatMap((z) => (z.floors ?? []).map((f) => [f.key, z.key] as const)))
    const lists: Array<[string, readonly { key: string }[]]> = [
      ["zones", zones],
      ["floors", zones.flatMap((z) => z.floors ?? [])],
      ["rooms", p.rooms ?? []],
      ["desks", p.desks ?? []],
      ["units", p.units ?? []],
      ["accessGroups", p.accessGroups ?? []],
      ["discounts", p.discounts ?? []],
      ["users", p.users ?? []],
      ["webhooks", p.webhooks ?? []],
    ]
    for (const [name, list] of lists)
      for (const d of duplicates(list.map((x) => x.key))) errors.push(`${at}.${name}: duplicate key "${d}"`)
    const kept = new Set((p.webhooks ?? []).map((w) => w.key))
    ;(p.removedWebhooks ?? []).forEach((key, i) => {
      if (kept.has(key)) errors.push(`${at}.removedWebhooks.${i}: "${key}" is also listed in webhooks`)
    })
    for (const d of duplicates((p.discounts ?? []).map((x) => x.code.toUpperCase())))
      errors.push(`${at}.discounts: duplicate code "${d}"`)
    const zoneKeys = new Set(zones.map((z) => z.key))
    ;(["rooms", "desks"] as const).forEach((kind) =>
      (p[kind] ?? []).forEach((a, i) => {
        if (!zoneKeys.has(a.zone)) errors.push(`${at}.${kind}.${i}.zone: unknown zone "${a.zone}"`)
        else if (floorZone.get(a.floor) !== a.zone)
          errors.push(`${at}.${kind}.${i}.floor: "${a.floor}" is not a floor of zone "${a.zone}"`)
      }),
    )
    // A partner binds a member to a unit by unitId, or by addressNo (compared as binding compares
    // it: addressKey) and zoneId when several zones have it: a unit no such request could name
    // alone is refused. A unit without zone or unitId is named by its addressNo alone, so no
    // other unit may share that.
    const units = p.units ?? []
    const unitNames = new Map<string, number>()
    units.forEach((u, i) => {
      if (u.zone !== undefined && !zoneKeys.has(u.zone)) errors.push(`${at}.units.${i}.zone: unknown zone "${u.zone}"`)
      const named = (name: string, what: string) => {
        const first = unitNames.get(name)
        if (first === undefined) unitNames.set(name, i)
        else errors.push(`${at}.units.${i}: ${what} is also that of ${at}.units.${first}`)
      }
      named(`address ${u.zone ?? ""} ${addressKey(u.addressNo)}`, `addressNo "${u.addressNo}"${u.zone === undefined ? " without a zone" : ` in zone "${u.zone}"`}`)
      if (u.unitId !== undefined) named(`unit ${u.unitId}`, `unitId "${u.unitId}"`)
    })
    units.forEach((u, i) => {
      if (u.zone !== undefined || u.unitId !== undefined) return
      const other = units.findIndex((o, j) => j !== i && o.zone !== undefined && addressKey(o.addressNo) === addressKey(u.addressNo))
      if (other >= 0)
        errors.push(`${at}.units.${i}: addressNo "${u.addressNo}" without a zone or unitId is also that of ${at}.units.${other}, so a partner could never name it`)
    })
    ;(p.users ?? []).forEach((u, i) => {
      // One person (one email, any case) has one link per app, and a link names one person.
      const person = u.email !== undefined ? `email ${u.email.toLowerCase()}` : `${at}.users.${i}`
      ;(u.links ?? []).forEach((l, li) => {
        const where = `${at}.users.${i}.links.${li}`
        const app = apps.find((a) => a.key === l.app)
        if (app === undefined) return void errors.push(`${where}.app: unknown app "${l.app}"`)
        if (!app.projects.includes(p.key)) errors.push(`${where}.app: app "${l.app}" does not serve project "${p.key}"`)
        const mine = linkOfPerson.get(`${person} ${l.app}`)
        if (mine === undefined) linkOfPerson.set(`${person} ${l.app}`, { externalUserId: l.externalUserId, at: where })
        else if (mine.externalUserId !== l.externalUserId)
          errors.push(`${where}: a user has one link per app; ${mine.at} already links it to app "${l.app}" as "${mine.externalUserId}"`)
        const holder = personOfLink.get(`${l.app} ${l.externalUserId}`)
        if (holder === undefined) personOfLink.set(`${l.app} ${l.externalUserId}`, { person, at: where })
        else if (holder.person !== person)
          errors.push(`${where}.externalUserId: "${l.externalUserId}" of app "${l.app}" is also the link of ${holder.at}`)
      })
    })
  })
  const projectByKey = new Map(projects.map((p) => [p.key, p]))
  apps.forEach((a, i) => {
    a.projects.forEach((k, pi) => {
      if (!projectByKey.has(k)) errors.push(`apps.${i}.projects.${pi}: unknown project "${k}"`)
    })
    const groups = a.partnerAccessGroups ?? []
    if (groups.length > 0 && a.projects.length !== 1)
      errors.push(`apps.${i}.partnerAccessGroups: only a single-project app can have partner access groups`)
    const project = projectByKey.get(a.projects[0] ?? "")
    const groupKeys = new Set((project?.accessGroups ?? []).map((g) => g.key))
    groups.forEach((g, gi) => {
      if (!groupKeys.has(g)) errors.push(`apps.${i}.partnerAccessGroups.${gi}: unknown access group "${g}"`)
    })
  })
  return errors
}

/** Separators an HR export puts in a phone number. */
const PHONE_SEPARATORS = /[\s\-().]/g

/**
 * A manifest user's phone as it is stored: normalized as the partner surface normalizes it
 * (E.164, +66 for local numbers), so partner resolution by phone finds it and uniqueness holds
 * between the two; a number that does not parse keeps its text without separators (the
 * operator's data, not refused: docs/decisions.md).
 */
export const manifestPhone = (phone: string): string =>
  Result.getOrElse(normalizePhone(phone), () => phone.replace(PHONE_SEPARATORS, ""))

/** The manifest with every user's phone as `manifestPhone` stores it. */
export const withStoredPhones = (m: Manifest): Manifest => ({
  ...m,
  ...(m.projects === undefined
    ? {}
    : {
        projects: m.projects.map((p) =>
          p.users === undefined
            ? p
            : { ...p, users: p.users.map((u) => (u.phone === undefined ? u : { ...u, phone: manifestPhone(u.phone) })) },
        ),
      }),
})

/**
 * Entries that would be two different users holding one phone (unique across all users) or,
 * in one project, one employee id (unique within the project), one message each. Entries with
 * one email (any case) are one person; an entry without email is a person of its own. Phones
 * are compared as stored: pass the manifest through `withStoredPhones` first.
 */
export const manifestIdentityErrors = (m: Manifest): string[] => {
  const errors: string[] = []
  const phones = new Map<string, { person: string; at: string }>()
  ;(m.projects ?? []).forEach((p, pi) => {
    const employeeIds = new Map<string, { person: string; at: string }>()
    ;(p.users ?? []).forEach((u, i) => {
      const at = `projects.${pi}.users.${i}`
      const person = u.email !== undefined ? `email ${u.email.toLowerCase()}` : at
      const held = (seen: Map<string, { person: string; at: string }>, value: string, field: string) => {
        const first = seen.get(value)
        if (first === undefined) seen.set(value, { person, at })
        else if (first.person !== person) errors.push(`${at}.${field}: "${value}" is also the ${field} of ${first.at}`)
      }
      if (u.phone !== undefined) held(phones, u.phone, "phone")
      if (u.employeeId !== undefined) held(employeeIds, u.employeeId, "employeeId")
    })
  })
  return errors
}

