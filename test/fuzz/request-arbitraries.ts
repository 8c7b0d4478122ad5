import { Result, Schema } from "effect"
import fc from "fast-check"
import { textViolations } from "../../adapters/http/validation.ts"

/**
 * fast-check arbitraries for the valid inputs of every request schema, plus the mutations
 * that turn them hostile. Effect 4.1's own `Arbitrary.schema` is a separate engine (not
 * fast-check) and cannot invert `makeFilter` refinements such as the offset date-time or the
 * ObjectId pattern, so the valid generators are written here and *checked against the Effect
 * Schemas*: `decodes(schema, value)` decides what counts as valid, never the generator.
 */

/** What the server decodes: the decode-time text rules (NUL, lone surrogates) and the request schema. */
export const decodes = (schema: Schema.Top, value: unknown): boolean =>
  textViolations(value).length === 0 &&
  Result.isSuccess(Schema.decodeUnknownResult(schema as never)(value) as Result.Result<unknown, unknown>)

const HEX = "0123456789abcdef"
export const objectId = fc.string({ unit: fc.constantFrom(...HEX), minLength: 24, maxLength: 24 })

const OFFSETS = [0, 420, -300, 330, 840, -720] as const
const pad = (n: number, w = 2) => String(Math.abs(n)).padStart(w, "0")

/** An ISO 8601 date-time of `ms` written in the given UTC offset (minutes). */
export const formatAt = (ms: number, offsetMinutes: number, seconds = true): string => {
  const d = new Date(ms + offsetMinutes * 60_000)
  const date = d.toISOString().slice(0, 16) + (seconds ? `:${pad(d.getUTCSeconds())}` : "")
  if (offsetMinutes === 0) return `${date}Z`
  const sign = offsetMinutes < 0 ? "-" : "+"
  return `${date}${sign}${pad(Math.floor(Math.abs(offsetMinutes) / 60))}:${pad(Math.abs(offsetMinutes) % 60)}`
}

/** Minute-aligned instants from `base` up to `days` ahead. */
export const instantAfter = (base: number, days: number) =>
  fc.integer({ min: 0, max: days * 24 * 60 }).map((m) => base + m * 60_000)

export const dateTimeAt = (ms: fc.Arbitrary<number>) =>
  fc.tuple(ms, fc.constantFrom(...OFFSETS), fc.boolean()).map(([t, o, s]) => formatAt(t, o, s))

const printable = (min: number, max: number) =>
  fc.string({ unit: "grapheme", minLength: min, maxLength: max }).filter((s) => !s.includes("\u0000"))

const email = fc
  .tuple(fc.stringMatching(/^[a-z0-9._-]{1,12}$/), fc.constantFrom("hq.example", "x.example", "exämple.com"))
  .map(([a, d]) => `${a}@${d}`)

const attendee = fc.record(
  { email, id: objectId, type: fc.constantFrom("required", "optional") },
  { requiredKeys: ["email"] },
)

export const PAYMENT_CHANNELS = ["prompt-pay", "credit-card", "alipay", "true-money", "we-chat"] as const

/** CreateMeetingRequest bodies that satisfy the schema and the cross-field rules. */
export const createMeetingBody = (rooms: readonly string[], desks: readonly string[], base: number) =>
  fc
    .record({
      room: fc.boolean(),
      roomId: fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...rooms) }, { weight: 1, arbitrary: objectId }),
      deskId: fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...desks) }, { weight: 1, arbitrary: objectId }),
      start: instantAfter(base - 60 * 60_000, 21),
      minutes: fc.integer({ min: 15, max: 8 * 60 }),
      offset: fc.constantFrom(...OFFSETS),
      title: printable(1, 60),
      period: fc.option(fc.constantFrom("morning", "afternoon", "allDay"), { nil: undefined }),
      extra: fc.record(
        {
          body: printable(0, 200),
          attendees: fc.array(attendee, { maxLength: 4 }),
          estimatedAttendance: fc.integer({ min: 0, max: 1_000_000 }),
          paymentChannel: fc.constantFrom(...PAYMENT_CHANNELS),
          discountCode: fc.constantFrom("WELCOME10", "welcome10", "NOPE"),
          frontendRedirectUrl: fc.constantFrom("https://app.example/done", "http://localhost:5173/x?y=1"),
          draft: fc.boolean(),
        },
        { requiredKeys: [] },
      ),
    })
    .map((r) => {
      const start = formatAt(r.start, r.offset)
      const end = formatAt(r.start + r.minutes * 60_000, r.offset)
      const common = { title: r.title, startDateTime: start, ...r.extra }
      if (r.room) return { meetingRoomId: r.roomId, endDateTime: end, ...common }
      return r.period === undefined
        ? { deskId: r.deskId, endDateTime: end, ...common }
        : { deskId: r.deskId, timePeriod: r.period, ...common }
    })

export const updateMeetingBody = (base: number) =>
  fc
    .record(
      {
        title: printable(1, 60),
        body: printable(0, 100),
        start: instantAfter(base, 14),
        minutes: fc.integer({ min: 15, max: 240 }),
        attendees: fc.array(attendee, { maxLength: 3 }),
        estimatedAttendance: fc.integer({ min: 0, max: 1000 }),
        pinCode: fc.oneof(fc.stringMatching(/^\d{6}$/), printable(0, 10)),
        paymentChannel: fc.constantFrom(...PAYMENT_CHANNELS),
        draft: fc.boolean(),
      },
      { requiredKeys: [] },
    )
    .map(({ start, minutes, ...rest }) => ({
      ...rest,
      ...(start === undefined ? {} : { startDateTime: formatAt(start, 420) }),
      ...(start === undefined || minutes === undefined ? {} : { endDateTime: formatAt(start + minutes * 60_000, 420) }),
    }))

export const meetingActionBody = fc.record(
  { pinCode: fc.oneof(fc.stringMatching(/^\d{6}$/), printable(0, 10)), paymentId: printable(1, 30) },
  { requiredKeys: [] },
)

const windowQuery = (base: number) =>
  fc.tuple(instantAfter(base, 14), fc.integer({ min: 15, max: 600 }), fc.constantFrom(...OFFSETS)).map(([s, m, o]) => ({
    startDateTime: formatAt(s, o),
    endDateTime: formatAt(s + m * 60_000, o),
  }))

export const listRoomsQuery = (projects: readonly string[], base: number) =>
  fc
    .record({
      projectId: fc.oneof(fc.constantFrom(...projects), objectId),
      opt: fc.record(
        {
          name: printable(0, 10),
          status: fc.subarray(["active", "inactive"], { minLength: 1 }),
          type: fc.constantFrom("normal", "bedroom"),
          minCapacity: fc.integer({ min: 1, max: 50 }).map(String),
          ids: fc.array(objectId, { minLength: 1, maxLength: 3 }),
        },
        { requiredKeys: [] },
      ),
      window: fc.option(windowQuery(base), { nil: undefined }),
    })
    .map((r) => ({ projectId: r.projectId, ...r.opt, ...r.window }))

export const listDesksQuery = (projects: readonly string[], base: number) =>
  fc
    .record({
      opt: fc.record(
        {
          projectId: fc.oneof(fc.constantFrom(...projects), objectId),
          name: printable(0, 10),
          statuses: fc.subarray(["active", "inactive", "in-used", "reserved", "suspended"], { minLength: 1 }),
          limit: fc.integer({ min: 0, max: 3000 }).map(String),
          offset: fc.integer({ min: 0, max: 50 }).map(String),
        },
        { requiredKeys: [] },
      ),
      window: fc.option(
        fc.oneof(
          windowQuery(base),
          fc.tuple(instantAfter(base, 14), fc.constantFrom("morning", "afternoon", "allDay")).map(([s, p]) => ({
            startDateTime: formatAt(s, 420),
            timePeriod: p,
          })),
        ),
        { nil: undefined },
      ),
    })
    .map((r) => ({ ...r.opt, ...r.window }))

export const listMeetingsQuery = (projects: readonly string[], base: number) =>
  fc
    .record({
      from: instantAfter(base - 86_400_000, 7),
      days: fc.integer({ min: 0, max: 14 }),
      opt: fc.record(
        {
          projectId: fc.oneof(fc.constantFrom(...projects), objectId),
          statuses: fc.subarray(["unpaid", "active", "checked-in", "done", "cancelled", "rejected"], { minLength: 1 }),
          assetType: fc.constantFrom("room", "desk"),
          organizerEmails: fc.array(email, { minLength: 1, maxLength: 2 }),
          attendeeEmails: fc.array(email, { minLength: 1, maxLength: 2 }),
          limit: fc.integer({ min: 0, max: 3000 }).map(String),
          offset: fc.integer({ min: 0, max: 20 }).map(String),
        },
        { requiredKeys: [] },
      ),
    })
    .map((r) => ({ from: formatAt(r.from, 420), to: formatAt(r.from + r.days * 86_400_000, 0), ...r.opt }))

export const memberUpsertBody = fc.record(
  {
    firstName: printable(1, 30),
    lastName: printable(0, 30),
    profileName: printable(0, 30),
    email,
    phone: fc.constantFrom("0812345678", "+66 81 234 5678", "+1-202-555-0100", "081-999-0000"),
    employeeId: fc.stringMatching(/^E-[0-9]{1,6}$/),
    unit: fc.option(fc.record({ addressNo: fc.constantFrom("99/1", "1/1"), unitId: fc.constantFrom("U-99-1", "X") }, { requiredKeys: ["addressNo"] }), { nil: null }),
  },
  { requiredKeys: ["firstName", "lastName"] },
)

const PNG_1PX =
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="

export const credentialsBody = fc.oneof(
  fc.record(
    {
      cards: fc.array(
        fc.record(
          {
            cardNo: fc.oneof(fc.stringMatching(/^[0-9]{1,10}$/), fc.stringMatching(/^[0-9A-F]{8}$/)),
            cardCodeFormat: fc.constantFrom("decimal-reversed", "decimal", "hex", "hex-reversed"),
            label: printable(0, 20),
          },
          { requiredKeys: ["cardNo"] },
        ),
        { maxLength: 5 },
      ),
    },
    { requiredKeys: [] },
  ),
  fc.constant({ face: PNG_1PX, faceConsentAt: "2030-01-07T09:00:00+07:00" }),
  fc.constant({ face: null }),
)

export const externalUserId = fc.oneof(
  fc.stringMatching(/^ext-[a-z0-9]{1,10}$/),
  fc.constantFrom("ext-alice", "ext-bob", "ext-eve"),
  printable(1, 20).filter((s) => s.trim() !== "" && !/\p{Cc}/u.test(s)),
)

export const tokenRequestBody = (app: { appId: string; appSecret: string }) =>
  fc.oneof(
    fc.constant({ grant_type: "app_credentials", app_id: app.appId, app_secret: app.appSecret }),
    fc.record({ grant_type: fc.constant("app_credentials"), app_id: printable(1, 20), app_secret: printable(1, 20) }),
    fc.record({ grant_type: fc.constant("refresh_token"), refresh_token: printable(1, 40) }),
    fc.record(
      {
        grant_type: fc.constantFrom("act_as", "urn:ietf:params:oauth:grant-type:token-exchange"),
        app_id: fc.constant(app.appId),
        app_secret: fc.constant(app.appSecret),
        subject: fc.oneof(fc.constantFrom("ext-alice", "ext-bob"), objectId, fc.stringMatching(/^new-[a-z]{1,8}$/)),
        subject_type: fc.constantFrom("external_user_id", "keyspace_member_id"),
      },
      { requiredKeys: ["grant_type", "app_id", "app_secret", "subject"] },
    ),
  )

export const visitorEventBody = fc.record({
  type: fc.constantFrom("VMS_INVITE_SENT", "VMS_VISITOR_CHECKED_IN", "VMS_HOST_CANCELLED", "VMS_HOST_NOTIFICATION", "X"),
  data: fc.dictionary(fc.constantFrom("visitorName", "hostName", "visitDate", "qrCardCode"), printable(0, 20), { maxKeys: 4 }),
})

export const rejectBody = fc.record({ reason: printable(0, 50) }, { requiredKeys: [] })
export const deliveriesQuery = fc.record(
  { limit: fc.integer({ min: 0, max: 3000 }).map(String), offset: fc.integer({ min: 0, max: 100 }).map(String) },
  { requiredKeys: [] },
)

// --- mutations ------------------------------------------------------------------------------

const HUGE = "x".repeat(200_000)
/** Values of the wrong type or hostile content for any field. */
export const hostileValue: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom(
    null, true, 0, -1, 1e308, Number.MAX_SAFE_INTEGER + 2, "", " ", "\u0000", "\ud800", "💥".repeat(50), HUGE,
    "2030-02-30T10:00:00+07:00", "2030-01-08T24:00:00Z", "2030-01-08T10:00:00+99:99", "9999-12-31T23:59:59Z",
    "0000-01-01T00:00:00Z", "2030-01-08", "1", "0123456789abcdef0123456", "0123456789ABCDEF01234567",
    "zzzzzzzzzzzzzzzzzzzzzzzz", "'; drop table bookings; --", { $ne: null }, [], [null], {}, { __proto__: { a: 1 } },
  ),
  fc.string({ unit: "binary", maxLength: 40 }),
  fc.integer(),
  fc.double(),
  fc.array(fc.string(), { maxLength: 3 }),
)

/** Field names a client may try to slip in: mass assignment and prototype keys. */
const EXTRA_KEYS = ["status", "organizer", "price", "projectId", "_id", "id", "pinCode", "createdByAppId", "checkIns", "__proto__", "constructor", "memberId", "source", "x"]

export type Mutation =
  | { kind: "valid" }
  | { kind: "drop"; key: number }
  | { kind: "extra"; key: string; value: unknown }
  | { kind: "replace"; key: number; value: unknown }
  | { kind: "whole"; value: unknown }

export const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  { weight: 4, arbitrary: fc.constant({ kind: "valid" as const }) },
  { weight: 2, arbitrary: fc.nat(20).map((key) => ({ kind: "drop" as const, key })) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant("extra" as const), key: fc.constantFrom(...EXTRA_KEYS), value: hostileValue }) },
  { weight: 4, arbitrary: fc.record({ kind: fc.constant("replace" as const), key: fc.nat(20), value: hostileValue }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("whole" as const), value: hostileValue }) },
)

export const applyMutation = (value: Record<string, unknown>, m: Mutation): unknown => {
  const keys = Object.keys(value)
  switch (m.kind) {
    case "valid":
      return value
    case "drop": {
      if (keys.length === 0) return value
      const { [keys[m.key % keys.length]!]: _, ...rest } = value
      return rest
    }
    case "extra":
      return m.key === "__proto__" ? JSON.parse(`{"__proto__": ${JSON.stringify(m.value) ?? "null"}}`) : { ...value, [m.key]: m.value }
    case "replace":
      return keys.length === 0 ? { x: m.value } : { ...value, [keys[m.key % keys.length]!]: m.value }
    case "whole":
      return m.value
  }
}

/** How the mutated value is put on the wire: JSON, or a broken encoding of it. */
export type Encoding = "json" | "malformed" | "form" | "text" | "no-content-type" | "empty"
export const encoding: fc.Arbitrary<Encoding> = fc.oneof(
  { weight: 12, arbitrary: fc.constant("json" as const) },
  { weight: 1, arbitrary: fc.constantFrom("malformed" as const, "form" as const, "text" as const, "no-content-type" as const, "empty" as const) },
)

export const encode = (value: unknown, enc: Encoding): { body: string | undefined; contentType: string | undefined } => {
  const json = JSON.stringify(value) ?? "null"
  switch (enc) {
    case "json":
      return { body: json, contentType: "application/json" }
    case "malformed":
      return { body: json.slice(0, Math.max(1, Math.floor(json.length / 2))) + "\u0000{", contentType: "application/json" }
    case "form":
      return { body: "title=x&status=active", contentType: "application/x-www-form-urlencoded" }
    case "text":
      return { body: json, contentType: "text/plain" }
    case "no-content-type":
      return { body: json, contentType: undefined }
    case "empty":
      return { body: "", contentType: "application/json" }
  }
}

/** A query object as a query string; arrays become repeated keys, other values String(). */
export const toQuery = (value: unknown): string => {
  // URLSearchParams, not encodeURIComponent: a lone surrogate must reach the server, not throw here.
  if (typeof value !== "object" || value === null) return new URLSearchParams({ q: String(value) }).toString()
  const u = new URLSearchParams()
  for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
    if (Array.isArray(v)) for (const item of v) u.append(k, typeof item === "string" ? item : JSON.stringify(item) ?? "")
    else u.append(k, typeof v === "string" ? v : JSON.stringify(v) ?? "")
  }
  return u.toString()
}
