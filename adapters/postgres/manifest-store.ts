import { and, eq, getTableColumns, inArray, notInArray, or, sql, type SQL } from "drizzle-orm"
import type { PgTable } from "drizzle-orm/pg-core"
import { Effect, Layer, Option } from "effect"
import { Clock } from "../../core/ports/clock.ts"
import { Ids } from "../../core/ports/ids.ts"
import { retimes } from "../../core/booking/asset-config.ts"
import { APP_ID_TAKEN, ManifestStore, type ManifestApplied } from "../../core/ports/manifest-store.ts"
import { Secrets } from "../../core/ports/secrets.ts"
import { StateConflict } from "../../core/shared/errors.ts"
import type { Manifest } from "../../core/tenancy/manifest.ts"
import { emptyManifestIds, emptyProjectIds, keyMap, type ManifestIds, type ProjectIds } from "../../core/tenancy/manifest-ids.ts"
import { execute, PG_UNIQUE_VIOLATION, pgErrorOf, type Queryable, type Tx } from "./database.ts"
import {
  accessGroupsTable,
  appLinksTable,
  appPartnerGroupsTable,
  appProjectsTable,
  appsTable,
  brandsTable,
  desksTable,
  discountsTable,
  floorsTable,
  projectMembershipsTable,
  projectsTable,
  roomsTable,
  unitsTable,
  usersTable,
  webhooksTable,
  zonesTable,
} from "./schema.ts"
import { CONFLICT_KEY_OF_CONSTRAINT } from "./member-races.ts"
import { revokeRefreshTokens } from "./token-store.ts"
import { inTx, read, SqlDatabase, write } from "./unit-of-work.ts"

/** What applying a manifest needs besides the transaction: the clock, ids and secret hashing. */
interface Deps {
  readonly now: () => number
  readonly newId: () => string
  readonly hashSecret: (secret: string) => Promise<string>
  readonly verifySecret: (secret: string, stored: string) => Promise<boolean>
}

/** createdAt and updatedAt of a new row: the service clock, never the database's. */
const stamps = (s: Deps) => {
  const now = new Date(s.now())
  return { createdAt: now, updatedAt: now }
}

/**
 * Whether a stored column holds the manifest's value. Objects compare key by key, not as text:
 * PostgreSQL keeps a jsonb object's keys in its own order (shorter keys first), so
 * `{"perHour":0,"perDay":0}` came back as `{"perDay":0,"perHour":0}` and every re-apply rewrote
 * every room and desk (and moved the cache epoch) for nothing.
 */
const same = (a: unknown, b: unknown): boolean => {
  if (a === b) return true
  if (a instanceof Date || b instanceof Date) return a instanceof Date && b instanceof Date && a.getTime() === b.getTime()
  if (Array.isArray(a) || Array.isArray(b))
    return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((x, i) => same(x, b[i]))
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false
  const entries = (o: object) => Object.entries(o).filter(([, v]) => v !== undefined)
  const [ea, eb] = [entries(a), entries(b)]
  const bm = new Map(eb)
  return ea.length === eb.length && ea.every(([k, v]) => bm.has(k) && same(v, bm.get(k)))
}

/**
 * Finds the row matching `where`; inserts it with a fresh id, or updates the columns that
 * differ. Re-applying an unchanged manifest therefore writes nothing.
 */
const upsert = async <T extends PgTable & { id: unknown }>(
  s: Deps,
  tx: Tx,
  table: T,
  where: SQL | undefined,
  values: Record<string, unknown>,
): Promise<string> => {
  const [existing] = (await tx.select().from(table as PgTable).where(where).limit(1)) as Record<string, unknown>[]
  if (!existing) {
    const id = s.newId()
    const now = new Date(s.now())
    // Tables without these columns ignore them.
    await tx.insert(table).values({ id, createdAt: now, updatedAt: now, ...values } as never)
    return id
  }
  const changed = changedColumns(existing, values)
  if (changed) await updateChanged(s, tx, table, existing.id, changed)
  return existing.id as string
}

/** Sets the changed columns of row `id` of `table`, and its `updatedAt`. */
const updateChanged = (s: Deps, tx: Tx, table: PgTable & { id: unknown }, id: unknown, changed: Record<string, unknown>) =>
  tx
    .update(table)
    .set({ ...changed, updatedAt: new Date(s.now()) } as never)
    .where(eq(table.id as never, id as never))

/** A keyed row of one of a project's kinds (zones, rooms, ...): its key and the columns the manifest sets. */
interface Keyed {
  readonly key: string
  readonly values: Record<string, unknown>
}

/** Keys per lookup and parameters per insert: PostgreSQL takes at most 65,535 parameters a statement. */
const KEYS_PER_LOOKUP = 10_000
const PARAMS_PER_INSERT = 30_000

const chunksOf = <T>(items: readonly T[], size: number): T[][] =>
  Array.from({ length: Math.ceil(items.length / size) }, (_, i) => items.slice(i * size, (i + 1) * size))

/** The columns of `values` that differ from `row` (JSON-equal columns are unchanged). */
const changedColumns = (row: Record<string, unknown>, values: Record<string, unknown>): Record<string, unknown> | undefined => {
  const changed = Object.fromEntries(Object.entries(values).filter(([k, v]) => !same(row[k], v)))
  return Object.keys(changed).length > 0 ? changed : undefined
}

/** `rows` of `table` in parts of as many rows as one insert's parameters allow. */
const insertParts = <R>(table: PgTable, rows: readonly R[]): R[][] =>
  chunksOf(rows, Math.max(1, Math.floor(PARAMS_PER_INSERT / Object.keys(getTableColumns(table)).length)))

/** Inserts `rows` into `table` in as few statements as the parameter limit allows. */
const insertRows = async (tx: Tx, table: PgTable, rows: readonly Record<string, unknown>[]): Promise<void> => {
  for (const part of insertParts(table, rows)) await tx.insert(table).values(part as never)
}

/**
 * What `upsert` does row by row, for all of a project's rows of one kind at once: a row already
 * under its key keeps its id and gets the columns that differ; the others are inserted with
 * fresh ids (given in the manifest's order). One lookup and one insert per kind, however large
 * the building, instead of two round trips per row; `fresh` (the project was just inserted)
 * skips the lookup. The rows' keys are unique within the kind (manifestReferenceErrors).
 */
const upsertKeyed = async <T extends PgTable & { id: unknown; key: unknown; projectId: unknown }>(
  s: Deps,
  tx: Tx,
  table: T,
  projectId: string,
  items: readonly Keyed[],
  fresh: boolean,
  onChange?: (row: Record<string, unknown>, changed: Record<string, unknown>) => void,
): Promise<Record<string, string>> => {
  const ids = keyMap()
  const existing = new Map<string, Record<string, unknown>>()
  if (!fresh)
    for (const keys of chunksOf(items.map((i) => i.key), KEYS_PER_LOOKUP)) {
      const rows = (await tx
        .select()
        .from(table as PgTable)
        .where(and(eq(table.projectId as never, projectId), inArray(table.key as never, keys)))) as Record<string, unknown>[]
      for (const row of rows) existing.set(row.key as string, row)
    }
  const inserts: Record<string, unknown>[] = []
  const updates: Promise<unknown>[] = []
  for (const { key, values } of items) {
    const row = existing.get(key)
    if (row === undefined) {
      const id = s.newId()
      ids[key] = id
      // Tables without these columns ignore them.
      inserts.push({ id, ...stamps(s), ...values })
      continue
    }
    ids[key] = row.id as string
    const changed = changedColumns(row, values)
    // Rows of one kind are independent: their updates go out together (one round trip).
    if (changed) {
      onChange?.(row, changed)
      updates.push(updateChanged(s, tx, table, row.id, changed))
    }
  }
  await Promise.all(updates)
  await insertRows(tx, table, inserts)
  return ids
}

/** A manifest's `enabled`: only an explicit value changes the registration's state. */
const webhookEnabledValues = (enabled: boolean | undefined): Record<string, unknown> =>
  enabled === undefined
    ? {}
    : enabled
      ? { enabled: true, consecutiveFailures: 0, disabledAt: null }
      : { enabled: false }

/**
 * The hash to store for an app's secret (the stored one when the secret is unchanged: an
 * idempotent re-apply), and whether it replaces another secret (a rotation). The app's row is
 * locked first, as the rotate call and a refresh take it: a rotation committed meanwhile is seen
 * and replaced (its refresh tokens revoked), never overwritten by the hash read before it.
 */
const secretHashOf = async (s: Deps, tx: Tx, key: string, secret: string): Promise<{ hash: string; replaced: boolean }> => {
  const [existing] = await tx
    .select({ secretHash: appsTable.secretHash })
    .from(appsTable)
    .where(eq(appsTable.key, key))
    .limit(1)
    .for("update")
  if (existing && (await s.verifySecret(secret, existing.secretHash))) return { hash: existing.secretHash, replaced: false }
  return { hash: await s.hashSecret(secret), replaced: existing !== undefined }
}

/** Applies the manifest in the caller's transaction: the key -> id map, and the rooms and desks retimed. */
const applyManifest = async (s: Deps, tx: Tx, m: Manifest): Promise<ManifestApplied> => {
  const out = emptyManifestIds()
  const retimedAssets: string[] = []
  /** A room or desk whose new config plans its bookings' ticks differently. */
  const retimedAsset = (row: Record<string, unknown>, changed: Record<string, unknown>) => {
    if ("config" in changed && retimes(row.config, changed.config)) retimedAssets.push(row.id as string)
  }
  /** Keys of the projects this apply inserted. */
  const fresh = new Set<string>()
  // The apps' secrets are hashed (or checked against their stored hashes: PBKDF2, ~20 ms each,
  // on the thread pool) one after another while the projects are written, each waited for at its
  // app's row: one at a time, so a manifest of many apps does not fill the thread pool that
  // token checks and file I/O share. Handled here too, so a failure before that row is never an
  // unhandled rejection.
  const secretHashes = new Map<string, Promise<{ hash: string; replaced: boolean }>>()
  let previous: Promise<unknown> = Promise.resolve()
  for (const a of m.apps ?? []) {
    const hash = previous.then(() => secretHashOf(s, tx, a.key, a.appSecret))
    secretHashes.set(a.key, hash)
    previous = hash.catch(() => {})
  }
  for (const p of m.projects ?? []) {
    const [existing] = await tx.select().from(projectsTable).where(eq(projectsTable.key, p.key)).limit(1)
    const brandId = existing?.brandId ?? s.newId()
    if (!existing) await tx.insert(brandsTable).values({ id: brandId, name: p.name, ...stamps(s) })
    const projectId = await upsert(s, tx, projectsTable, eq(projectsTable.key, p.key), {
      key: p.key,
      name: p.name,
      timezone: p.timezone,
      brandId,
    })
    const ids: ProjectIds = emptyProjectIds(projectId, brandId)
    // A project inserted just now has no rows of its own to find.
    if (existing === undefined) fresh.add(p.key)
    /** The ids of one kind's rows, as `upsertKeyed` writes them, into `ids[field]`. */
    const keyed = async <T extends PgTable & { id: unknown; key: unknown; projectId: unknown }, I extends { readonly key: string }>(
      field: Exclude<keyof ProjectIds, "id" | "brandId" | "users">,
      table: T,
      items: readonly I[] | undefined,
      valuesOf: (item: I) => Record<string, unknown>,
      onChange?: (row: Record<string, unknown>, changed: Record<string, unknown>) => void,
    ) => {
      const rows = (items ?? []).map((item) => ({ key: item.key, values: valuesOf(item) }))
      Object.assign(ids[field], await upsertKeyed(s, tx, table, projectId, rows, fresh.has(p.key), onChange))
    }
    const zones = p.zones ?? []
    await keyed("zones", zonesTable, zones, (z) => ({ projectId, key: z.key, name: z.name }))
    const floors = zones.flatMap((z) => (z.floors ?? []).map((f) => ({ ...f, zone: z.key })))
    await keyed("floors", floorsTable, floors, (f) => ({ projectId, zoneId: ids.zones[f.zone], key: f.key, name: f.name }))
    const assetValues = (a: NonNullable<typeof p.rooms>[number] | NonNullable<typeof p.desks>[number]) => ({
      projectId,
      key: a.key,
      name: a.name,
      zoneId: ids.zones[a.zone],
      floorId: ids.floors[a.floor],
      email: a.email ?? null,
      capacity: a.capacity ?? 1,
      status: a.status ?? "active",
      isPublic: a.isPublic ?? true,
      facilities: a.facilities ?? [],
      pictureUrls: a.pictureUrls ?? [],
      chargeRate: a.chargeRate ?? { perHour: 0, perDay: 0 },
      config: a.config ?? {},
    })
    await keyed("rooms", roomsTable, p.rooms, (r) => ({
      ...assetValues(r),
      type: r.type ?? "normal",
      equipmentsAvailability: r.equipmentsAvailability ?? { camera: false, display: false, mic: false, projector: false, speaker: false },
    }), retimedAsset)
    await keyed("desks", desksTable, p.desks, (d) => ({ ...assetValues(d), index: d.index ?? 0 }), retimedAsset)
    await keyed("units", unitsTable, p.units, (u) => ({
      projectId,
      key: u.key,
      addressNo: u.addressNo,
      zoneId: u.zone === undefined ? null : ids.zones[u.zone],
      unitId: u.unitId ?? null,
    }))
    await keyed("accessGroups", accessGroupsTable, p.accessGroups, (g) => ({ projectId, key: g.key, name: g.name }))
    if (!fresh.has(p.key)) await releaseMovedCodes(tx, projectId, p.discounts ?? [])
    await keyed("discounts", discountsTable, p.discounts, (d) => ({
      projectId,
      key: d.key,
      code: d.code,
      name: d.name,
      percentOff: d.percentOff ?? null,
      amountOff: d.amountOff ?? null,
    }))
    await keyed("webhooks", webhooksTable, p.webhooks, (w) => ({
      projectId,
      key: w.key,
      url: w.url,
      secret: w.secret,
      events: [...w.events],
      auth: w.auth ?? { scheme: "signature-only" },
      ...webhookEnabledValues(w.enabled),
    }))
    if ((p.discounts ?? []).length > 0) await refuseCodesClashingInCase(tx, projectId, p.discounts!)
    if ((p.removedWebhooks ?? []).length > 0)
      // Their delivery rows go with them (ON DELETE CASCADE).
      await tx.delete(webhooksTable).where(and(eq(webhooksTable.projectId, projectId), inArray(webhooksTable.key, [...p.removedWebhooks!])))
    out.projects[p.key] = ids
  }

  for (const a of m.apps ?? []) {
    // Secrets are stored hashed; an unchanged secret keeps its hash (idempotent re-apply).
    const secret = await secretHashes.get(a.key)!
    const appId = await upsert(s, tx, appsTable, eq(appsTable.key, a.key), {
      key: a.key,
      appId: a.appId,
      secretHash: secret.hash,
      canActAs: a.canActAs ?? false,
    })
    // A new secret is a rotation, by the manifest as by the rotate call.
    if (secret.replaced) await revokeRefreshTokens(tx, appId, new Date(s.now()))
    out.apps[a.key] = appId
    const projectIds = a.projects.map((k) => out.projects[k]!.id)
    await syncAppProjects(tx, appId, projectIds)
    const groupIds = (a.partnerAccessGroups ?? []).map((g) => out.projects[a.projects[0]!]!.accessGroups[g]!)
    await syncAppGroups(tx, appId, groupIds)
  }

  for (const p of m.projects ?? []) {
    const ids = out.projects[p.key]!
    const users = p.users ?? []
    const together = await upsertUsers(s, tx, ids.id, users, fresh.has(p.key))
    if (together) Object.assign(ids.users, together)
    else for (const u of users) ids.users[u.key] = await upsertUser(s, tx, ids.id, u)
  }
  // Once every project's users are written: a link may move between projects sharing an app.
  await linkUsers(s, tx, (m.projects ?? []).map((p) => ({ ids: out.projects[p.key]!, users: p.users ?? [] })), out.apps)
  // Every process's caches follow this commit without a call here: the triggers on apps,
  // projects, rooms and desks move cache_epoch (adapters/postgres/cache-epoch.ts).
  return { ids: out, retimedAssets }
}

/**
 * Discounts whose code the manifest changes get a placeholder code first (a space and the row id:
 * a manifest code never begins with a space), so codes may move between keys in one apply.
 */
const releaseMovedCodes = async (tx: Tx, projectId: string, discounts: ReadonlyArray<{ readonly key: string; readonly code: string }>) => {
  if (discounts.length === 0) return
  const d = discountsTable
  const codeOf = new Map(discounts.map((x) => [x.key, x.code]))
  const stored = await tx.select({ id: d.id, key: d.key, code: d.code }).from(d).where(and(eq(d.projectId, projectId), inArray(d.key, [...codeOf.keys()])))
  const moved = stored.filter((r) => r.key !== null && r.code !== codeOf.get(r.key)).map((r) => r.id)
  if (moved.length > 0) await tx.update(d).set({ code: sql`' ' || ${d.id}` }).where(inArray(d.id, moved))
}

/** A rule of stored data the manifest breaks that a read finds, not a constraint (409 SV006 in `apply`). */
class StoredConflictFound {
  constructor(readonly constraint: string) {}
}

/**
 * Codes are matched in any case (discount-store.ts), and the unique index holds the code as
 * written: a listed code that a discount the manifest does not list holds in another case would
 * make the code name two discounts.
 */
const refuseCodesClashingInCase = async (tx: Tx, projectId: string, discounts: ReadonlyArray<{ readonly key: string }>) => {
  const keys = discounts.map((d) => d.key)
  const clash = await execute(
    tx,
    sql`select 1 from discounts listed join discounts other
          on other.project_id = listed.project_id and other.id <> listed.id and upper(other.code) = upper(listed.code)
        where listed.project_id = ${projectId} and listed.key in (${sql.join(keys.map((k) => sql`${k}`), sql`, `)}) limit 1`,
  )
  if (clash.length > 0) throw new StoredConflictFound("discounts_project_code_uq")
}

/** Makes the app's project set and partner group set exactly what the manifest says. */
const syncAppProjects = async (tx: Tx, appId: string, projectIds: readonly string[]) => {
  const keep = projectIds.length > 0 ? notInArray(appProjectsTable.projectId, [...projectIds]) : undefined
  await tx.delete(appProjectsTable).where(and(eq(appProjectsTable.appId, appId), keep))
  if (projectIds.length > 0)
    await tx
      .insert(appProjectsTable)
      .values(projectIds.map((projectId) => ({ appId, projectId })))
      .onConflictDoNothing()
}

const syncAppGroups = async (tx: Tx, appId: string, groupIds: readonly string[]) => {
  const keep = groupIds.length > 0 ? notInArray(appPartnerGroupsTable.accessGroupId, [...groupIds]) : undefined
  await tx.delete(appPartnerGroupsTable).where(and(eq(appPartnerGroupsTable.appId, appId), keep))
  if (groupIds.length > 0)
    await tx
      .insert(appPartnerGroupsTable)
      .values(groupIds.map((accessGroupId) => ({ appId, accessGroupId })))
      .onConflictDoNothing()
}

type ManifestUser = NonNullable<Manifest["projects"]>[number]["users"] extends readonly (infer U)[] | undefined ? U : never

/** The user columns a manifest user sets. */
const userValues = (u: ManifestUser) => ({
  firstName: u.firstName,
  lastName: u.lastName,
  email: u.email ?? null,
  emailNorm: u.email?.toLowerCase() ?? null,
  phone: u.phone ?? null,
})

/** A new user's row for a manifest user. */
const newUserRow = (s: Deps, id: string, u: ManifestUser) => ({ id, ...userValues(u), userType: "member", source: "manifest", ...stamps(s) })

/** The membership columns a manifest user sets. */
const membershipValues = (u: ManifestUser) => ({ role: u.role ?? "member", employeeId: u.employeeId ?? null })

/** A new membership's row for a manifest user. */
const newMembershipRow = (s: Deps, projectId: string, userId: string, u: ManifestUser) => ({
  projectId,
  userId,
  ...membershipValues(u),
  manifestKey: u.key,
  ...stamps(s),
})

/** The update of `membership` to what the manifest user says, when it changes anything. */
const membershipUpdate = (s: Deps, tx: Tx, membership: typeof projectMembershipsTable.$inferSelect, u: ManifestUser) => {
  const next = membershipValues(u)
  if (membership.role === next.role && membership.employeeId === next.employeeId) return undefined
  return () =>
    tx
      .update(projectMembershipsTable)
      .set({ ...next, updatedAt: new Date(s.now()) })
      .where(and(eq(projectMembershipsTable.projectId, membership.projectId), eq(projectMembershipsTable.userId, membership.userId)))
}

/**
 * Inserts new memberships; a user found by email may already be a member of the project (under
 * another key, or none): the row then takes that membership over (key, role, employee id).
 */
const upsertMemberships = (tx: Tx, rows: readonly Record<string, unknown>[]) =>
  tx
    .insert(projectMembershipsTable)
    .values(rows as never)
    .onConflictDoUpdate({
      target: [projectMembershipsTable.projectId, projectMembershipsTable.userId],
      set: { manifestKey: sql`excluded.manifest_key`, role: sql`excluded.role`, employeeId: sql`excluded.employee_id` },
    })

/**
 * A project's manifest users in a few statements (their memberships, the users their emails
 * find, then the inserts and updates together), when that gives what `upsertUser` one by one
 * would: every user has a different email and comes to a different person. Otherwise (two
 * manifest users who are, or become, one person, where the order of the one-by-one writes
 * decides the outcome) `undefined`, and the caller goes one by one.
 */
const upsertUsers = async (
  s: Deps,
  tx: Tx,
  projectId: string,
  users: readonly ManifestUser[],
  freshProject: boolean,
): Promise<Record<string, string> | undefined> => {
  if (users.length === 0) return {}
  const emailOf = (u: ManifestUser) => u.email?.toLowerCase() ?? null
  const emails = users.map(emailOf).filter((e): e is string => e !== null)
  if (new Set(emails).size !== emails.length) return undefined
  const memberships = new Map<string, typeof projectMembershipsTable.$inferSelect>()
  // A project inserted just now has no members yet (its users may exist: they are found by email).
  for (const keys of freshProject ? [] : chunksOf(users.map((u) => u.key), KEYS_PER_LOOKUP))
    for (const m of await tx
      .select()
      .from(projectMembershipsTable)
      .where(and(eq(projectMembershipsTable.projectId, projectId), inArray(projectMembershipsTable.manifestKey, keys))))
      memberships.set(m.manifestKey!, m)
  const lookups = users.filter((u) => !memberships.has(u.key)).map(emailOf).filter((e): e is string => e !== null)
  const byEmail = new Map<string, typeof usersTable.$inferSelect>()
  for (const part of chunksOf(lookups, KEYS_PER_LOOKUP))
    for (const u of await tx.select().from(usersTable).where(inArray(usersTable.emailNorm, part))) byEmail.set(u.emailNorm!, u)
  const resolved = users.map((u) => memberships.get(u.key)?.userId ?? byEmail.get(emailOf(u) ?? "")?.id)
  const found = resolved.filter((id): id is string => id !== undefined)
  if (new Set(found).size !== found.length) return undefined
  // Rows of users found by membership are read for the update check (found by email: in hand).
  const rows = new Map([...byEmail.values()].map((u) => [u.id, u as Record<string, unknown>]))
  const viaMembership = found.filter((id) => !rows.has(id))
  for (const part of chunksOf(viaMembership, KEYS_PER_LOOKUP))
    for (const u of await tx.select().from(usersTable).where(inArray(usersTable.id, part))) rows.set(u.id, u)

  const ids = keyMap()
  const newUsers: Record<string, unknown>[] = []
  const userUpdates: Array<() => Promise<unknown>> = []
  // In the manifest's order: a new membership's upsert, or an existing one's update.
  const membershipWrites: Array<{ readonly upsert: Record<string, unknown> } | { readonly update: () => Promise<unknown> }> = []
  users.forEach((u, i) => {
    const found = resolved[i]
    const row = found === undefined ? undefined : rows.get(found)
    const userId = found !== undefined && row !== undefined ? found : s.newId()
    if (row === undefined) newUsers.push(newUserRow(s, userId, u))
    else {
      const changed = changedColumns(row, userValues(u))
      if (changed) userUpdates.push(() => updateChanged(s, tx, usersTable, userId, changed))
    }
    ids[u.key] = userId
    const membership = memberships.get(u.key)
    if (membership === undefined) membershipWrites.push({ upsert: newMembershipRow(s, projectId, userId, u) })
    else {
      const update = membershipUpdate(s, tx, membership, u)
      if (update) membershipWrites.push({ update })
    }
  })
  // The updates first, in the manifest's order (sent together, run in that order): a phone or
  // email an update frees is free for a new user; inserts free nothing, so this order never
  // refuses what one by one accepted.
  await Promise.all(userUpdates.map((update) => update()))
  await insertRows(tx, usersTable, newUsers)
  // Memberships in the manifest's order, as one by one (an employee id one frees, a later one
  // may take). PostgreSQL checks the rows of one insert in their order, so new memberships
  // alone go as one statement.
  if (membershipWrites.every((w) => "upsert" in w)) {
    const rows = membershipWrites.map((w) => (w as { readonly upsert: Record<string, unknown> }).upsert)
    for (const part of insertParts(projectMembershipsTable, rows)) await upsertMemberships(tx, part)
  } else await Promise.all(membershipWrites.map((w) => ("upsert" in w ? upsertMemberships(tx, [w.upsert]) : w.update())))
  return ids
}

/** What a manifest that meets stored data under a unique constraint is told (409 SV006). */
const STORED_CONFLICTS: Readonly<Record<string, string>> = {
  app_links_app_id_external_user_id_pk: "a manifest user's externalUserId is already linked to another user of that app; nothing was changed",
  app_links_app_user_uq: "a manifest user already has a link to that app under another externalUserId; nothing was changed",
  discounts_project_code_uq: "a discount code is held by a discount of the project the manifest does not list; nothing was changed",
}

/**
 * The manifest users' app links: a link not there yet is inserted, and a user's link to an app
 * under another externalUserId is moved to the manifest's (a user has one link per app). Moved
 * links go first, so two users may swap externalUserIds in one apply. A link the manifest does
 * not list is left as it is (partner routes link users too). An externalUserId another user
 * keeps is a unique violation: 409 SV006, nothing written (`apply`).
 */
const linkUsers = async (
  s: Deps,
  tx: Tx,
  projects: ReadonlyArray<{ readonly ids: ProjectIds; readonly users: readonly ManifestUser[] }>,
  apps: Record<string, string>,
): Promise<void> => {
  const wanted = projects.flatMap(({ ids, users }) =>
    users.flatMap((u) => (u.links ?? []).map((l) => ({ appId: apps[l.app]!, externalUserId: l.externalUserId, userId: ids.users[u.key]!, projectId: ids.id }))),
  )
  if (wanted.length === 0) return
  const l = appLinksTable
  const existing: Array<{ appId: string; externalUserId: string; userId: string }> = []
  for (const part of chunksOf(wanted, KEYS_PER_LOOKUP))
    existing.push(
      ...(await tx
        .select({ appId: l.appId, externalUserId: l.externalUserId, userId: l.userId })
        .from(l)
        .where(and(inArray(l.appId, [...new Set(part.map((w) => w.appId))]), inArray(l.userId, [...new Set(part.map((w) => w.userId))])))),
    )
  const link = (x: { appId: string; externalUserId: string; userId: string }) => `${x.appId} ${x.userId} ${x.externalUserId}`
  const userApp = (x: { appId: string; userId: string }) => `${x.appId} ${x.userId}`
  const wantedLinks = new Set(wanted.map(link))
  const wantedUserApps = new Set(wanted.map(userApp))
  const moved = existing.filter((e) => wantedUserApps.has(userApp(e)) && !wantedLinks.has(link(e)))
  for (const part of chunksOf(moved, KEYS_PER_LOOKUP))
    await tx.delete(l).where(or(...part.map((m) => and(eq(l.appId, m.appId), eq(l.externalUserId, m.externalUserId)))))
  const present = new Set(existing.map(link).filter((k) => wantedLinks.has(k)))
  const inserts: Record<string, unknown>[] = []
  for (const w of wanted) {
    if (present.has(link(w))) continue
    present.add(link(w))
    inserts.push({ ...w, ...stamps(s) })
  }
  await insertRows(tx, appLinksTable, inserts)
}

const upsertUser = async (s: Deps, tx: Tx, projectId: string, u: ManifestUser): Promise<string> => {
  const [membership] = await tx
    .select()
    .from(projectMembershipsTable)
    .where(and(eq(projectMembershipsTable.projectId, projectId), eq(projectMembershipsTable.manifestKey, u.key)))
  const values = userValues(u)
  let userId = membership?.userId
  if (!userId && values.emailNorm) {
    const [byEmail] = await tx.select().from(usersTable).where(eq(usersTable.emailNorm, values.emailNorm))
    userId = byEmail?.id
  }
  if (userId) await upsert(s, tx, usersTable, eq(usersTable.id, userId), values)
  else {
    userId = s.newId()
    await tx.insert(usersTable).values(newUserRow(s, userId, u))
  }
  if (membership) await membershipUpdate(s, tx, membership, u)?.()
  else await upsertMemberships(tx, [newMembershipRow(s, projectId, userId, u)])
  return userId
}

/**
 * The key-to-id map of everything provisioned so far, read back from the database: the same
 * shape PUT /manifest answers, for an operator who no longer has that answer (or the ids the
 * demo seed printed on the first start).
 */
const readManifestIds = async (db: Queryable): Promise<ManifestIds> => {
  const out = emptyManifestIds()
  const byProject = new Map<string, ProjectIds>()
  for (const p of await db.select().from(projectsTable).orderBy(projectsTable.key)) {
    const ids: ProjectIds = emptyProjectIds(p.id, p.brandId)
    if (p.key !== null) out.projects[p.key] = ids
    byProject.set(p.id, ids)
  }
  const keyed = [
    ["zones", zonesTable], ["floors", floorsTable], ["rooms", roomsTable], ["desks", desksTable], ["units", unitsTable],
    ["accessGroups", accessGroupsTable], ["discounts", discountsTable], ["webhooks", webhooksTable],
  ] as const
  for (const [field, table] of keyed) {
    const rows = (await db
      .select({ id: table.id, key: table.key, projectId: table.projectId })
      .from(table as PgTable)) as Array<{ id: string; key: string | null; projectId: string }>
    for (const r of rows) {
      const ids = byProject.get(r.projectId)
      if (ids && r.key !== null) ids[field][r.key] = r.id
    }
  }
  const memberships = await db
    .select({ projectId: projectMembershipsTable.projectId, userId: projectMembershipsTable.userId, key: projectMembershipsTable.manifestKey })
    .from(projectMembershipsTable)
  for (const m of memberships) {
    const ids = byProject.get(m.projectId)
    if (ids && m.key !== null) ids.users[m.key] = m.userId
  }
  for (const a of await db.select({ id: appsTable.id, key: appsTable.key }).from(appsTable).orderBy(appsTable.key))
    if (a.key !== null) out.apps[a.key] = a.id
  return out
}

/**
 * The lock every manifest apply and the demo seed's check take first (transaction-scoped): two
 * applies of one new key on two processes would both insert it.
 */
const serializeManifests = (tx: Tx) => tx.execute(sql`select pg_advisory_xact_lock(hashtextextended('keyspace:manifest', 11))`)

/** The manifest on PostgreSQL / PGlite. */
export const ManifestStorePostgres = Layer.effect(
  ManifestStore,
  Effect.gen(function* () {
    const database = yield* SqlDatabase
    const clock = yield* Clock
    const ids = yield* Ids
    const secrets = yield* Secrets
    const deps: Deps = {
      now: () => clock.now(),
      newId: () => ids.newId(),
      hashSecret: (secret) => Effect.runPromise(secrets.hash(secret)),
      verifySecret: (secret, stored) => Effect.runPromise(secrets.verify(secret, stored)),
    }
    const r = <A>(f: (q: Queryable) => Promise<A>) => read(f).pipe(Effect.provideService(SqlDatabase, database))
    return ManifestStore.of({
      apply: (manifest) =>
        inTx("ManifestStore.apply", async (tx) => {
          await serializeManifests(tx)
          return applyManifest(deps, tx, manifest)
        }).pipe(
          Effect.catchTag("DatabaseError", (e) => {
            // An identity key held by a user outside the manifest (its own duplicates are refused
            // before the write): a conflict the operator resolves, not a fault.
            if (e.cause instanceof StoredConflictFound)
              return Effect.fail(new StateConflict({ reason: STORED_CONFLICTS[e.cause.constraint]! }))
            const pg = pgErrorOf(e.cause)
            if (pg?.code === PG_UNIQUE_VIOLATION && pg.constraint === "apps_app_id_uq")
              return Effect.fail(new StateConflict({ reason: APP_ID_TAKEN }))
            if (pg?.code !== PG_UNIQUE_VIOLATION) return Effect.die(e.cause)
            const key = CONFLICT_KEY_OF_CONSTRAINT[pg.constraint ?? ""]
            if (key !== undefined)
              return Effect.fail(new StateConflict({ reason: `a manifest user's ${key} is already held by another user` }))
            const named = STORED_CONFLICTS[pg.constraint ?? ""]
            if (named !== undefined) return Effect.fail(new StateConflict({ reason: named }))
            // No rule names this constraint: the operator is told only "conflicts", so the log says which.
            return Effect.logWarning("manifest refused: a unique constraint no manifest rule names").pipe(
              Effect.annotateLogs({ constraint: pg.constraint ?? "" }),
              Effect.andThen(Effect.fail(new StateConflict({ reason: "the manifest conflicts with data already stored; nothing was changed" }))),
            )
          }),
        ),
      serialize: () =>
        write("ManifestStore.serialize", async (tx) => {
          await serializeManifests(tx)
        }),
      ids: () => r(readManifestIds),
      census: () =>
        r((q) =>
          execute<{ n: number; demo: string | null }>(
            q,
            sql`select count(*)::int as n, max(id) filter (where key = 'demo') as demo from projects`,
          ),
        ).pipe(Effect.map(([row]) => ({ projects: row?.n ?? 0, demoProjectId: Option.fromNullishOr(row?.demo) }))),
    })
  }),
)
