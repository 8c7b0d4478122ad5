import { and, eq, inArray, notInArray, sql, type SQL } from "drizzle-orm"
import type { PgTable } from "drizzle-orm/pg-core"
import { Effect, Layer, Option } from "effect"
import { Clock } from "../../core/ports/clock.ts"
import { Ids } from "../../core/ports/ids.ts"
import { ManifestStore } from "../../core/ports/manifest-store.ts"
import { Secrets } from "../../core/ports/secrets.ts"
import type { Manifest } from "../../core/tenancy/manifest.ts"
import { emptyProjectIds, type ManifestIds, type ProjectIds } from "../../core/tenancy/manifest-ids.ts"
import { execute, type Queryable, type Tx } from "./database.ts"
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
import { read, SqlDatabase, write } from "./unit-of-work.ts"

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

const same = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b)

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
  const changed = Object.fromEntries(Object.entries(values).filter(([k, v]) => !same(existing[k], v)))
  if (Object.keys(changed).length > 0)
    await tx
      .update(table)
      .set({ ...changed, updatedAt: new Date(s.now()) } as never)
      .where(eq((table as unknown as { id: never }).id, existing.id as never))
  return existing.id as string
}

const byKey = <T extends { key: unknown; projectId: unknown }>(table: T, projectId: string, key: string) =>
  and(eq(table.projectId as never, projectId), eq(table.key as never, key))

/** A manifest's `enabled`: only an explicit value changes the registration's state. */
const webhookEnabledValues = (enabled: boolean | undefined): Record<string, unknown> =>
  enabled === undefined
    ? {}
    : enabled
      ? { enabled: true, consecutiveFailures: 0, disabledAt: null }
      : { enabled: false }

/** The hash to store for an app's secret: the stored one when the secret is unchanged (idempotent re-apply). */
const secretHashOf = async (s: Deps, tx: Tx, key: string, secret: string): Promise<string> => {
  const [existing] = await tx.select({ secretHash: appsTable.secretHash }).from(appsTable).where(eq(appsTable.key, key)).limit(1)
  return existing && (await s.verifySecret(secret, existing.secretHash)) ? existing.secretHash : s.hashSecret(secret)
}

/** Applies the manifest in the caller's transaction and returns the key -> id map. */
const applyManifest = async (s: Deps, tx: Tx, m: Manifest): Promise<ManifestIds> => {
  const out: ManifestIds = { projects: {}, apps: {} }
  // The apps' secrets are hashed (or checked against their stored hashes: PBKDF2, ~20 ms each,
  // on the thread pool) one after another while the projects are written, each waited for at its
  // app's row: one at a time, so a manifest of many apps does not fill the thread pool that
  // token checks and file I/O share. Handled here too, so a failure before that row is never an
  // unhandled rejection.
  const secretHashes = new Map<string, Promise<string>>()
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
    for (const z of p.zones ?? []) {
      const zoneId = await upsert(s, tx, zonesTable, byKey(zonesTable, projectId, z.key), {
        projectId,
        key: z.key,
        name: z.name,
      })
      ids.zones[z.key] = zoneId
      for (const f of z.floors ?? [])
        ids.floors[f.key] = await upsert(s, tx, floorsTable, byKey(floorsTable, projectId, f.key), {
          projectId,
          zoneId,
          key: f.key,
          name: f.name,
        })
    }
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
    for (const r of p.rooms ?? [])
      ids.rooms[r.key] = await upsert(s, tx, roomsTable, byKey(roomsTable, projectId, r.key), {
        ...assetValues(r),
        type: r.type ?? "normal",
        equipmentsAvailability: r.equipmentsAvailability ?? {
          camera: false,
          display: false,
          mic: false,
          projector: false,
          speaker: false,
        },
      })
    for (const d of p.desks ?? [])
      ids.desks[d.key] = await upsert(s, tx, desksTable, byKey(desksTable, projectId, d.key), {
        ...assetValues(d),
        index: d.index ?? 0,
      })
    for (const u of p.units ?? [])
      ids.units[u.key] = await upsert(s, tx, unitsTable, byKey(unitsTable, projectId, u.key), {
        projectId,
        key: u.key,
        addressNo: u.addressNo,
        zoneId: u.zone === undefined ? null : ids.zones[u.zone],
        unitId: u.unitId ?? null,
      })
    for (const g of p.accessGroups ?? [])
      ids.accessGroups[g.key] = await upsert(s, tx, accessGroupsTable, byKey(accessGroupsTable, projectId, g.key), {
        projectId,
        key: g.key,
        name: g.name,
      })
    for (const d of p.discounts ?? [])
      ids.discounts[d.key] = await upsert(s, tx, discountsTable, byKey(discountsTable, projectId, d.key), {
        projectId,
        key: d.key,
        code: d.code,
        name: d.name,
        percentOff: d.percentOff ?? null,
        amountOff: d.amountOff ?? null,
      })
    for (const w of p.webhooks ?? [])
      ids.webhooks[w.key] = await upsert(s, tx, webhooksTable, byKey(webhooksTable, projectId, w.key), {
        projectId,
        key: w.key,
        url: w.url,
        secret: w.secret,
        events: [...w.events],
        auth: w.auth ?? { scheme: "signature-only" },
        ...webhookEnabledValues(w.enabled),
      })
    if ((p.removedWebhooks ?? []).length > 0)
      // Their delivery rows go with them (ON DELETE CASCADE).
      await tx.delete(webhooksTable).where(and(eq(webhooksTable.projectId, projectId), inArray(webhooksTable.key, [...p.removedWebhooks!])))
    out.projects[p.key] = ids
  }

  for (const a of m.apps ?? []) {
    // Secrets are stored hashed; an unchanged secret keeps its hash (idempotent re-apply).
    const secretHash = await secretHashes.get(a.key)!
    const appId = await upsert(s, tx, appsTable, eq(appsTable.key, a.key), {
      key: a.key,
      appId: a.appId,
      secretHash,
      canActAs: a.canActAs ?? false,
    })
    out.apps[a.key] = appId
    const projectIds = a.projects.map((k) => out.projects[k]!.id)
    await syncAppProjects(tx, appId, projectIds)
    const groupIds = (a.partnerAccessGroups ?? []).map((g) => out.projects[a.projects[0]!]!.accessGroups[g]!)
    await syncAppGroups(tx, appId, groupIds)
  }

  for (const p of m.projects ?? []) {
    const ids = out.projects[p.key]!
    for (const u of p.users ?? []) {
      ids.users[u.key] = await upsertUser(s, tx, ids.id, u)
      for (const l of u.links ?? []) {
        const appId = out.apps[l.app]!
        const [link] = await tx
          .select()
          .from(appLinksTable)
          .where(and(eq(appLinksTable.appId, appId), eq(appLinksTable.externalUserId, l.externalUserId)))
        if (!link)
          await tx.insert(appLinksTable).values({ appId, externalUserId: l.externalUserId, userId: ids.users[u.key]!, projectId: ids.id, ...stamps(s) })
      }
    }
  }
  // Every process's caches follow this commit without a call here: the triggers on apps,
  // projects, rooms and desks move cache_epoch (adapters/postgres/cache-epoch.ts).
  return out
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

const upsertUser = async (s: Deps, tx: Tx, projectId: string, u: ManifestUser): Promise<string> => {
  const [membership] = await tx
    .select()
    .from(projectMembershipsTable)
    .where(and(eq(projectMembershipsTable.projectId, projectId), eq(projectMembershipsTable.manifestKey, u.key)))
  const emailNorm = u.email?.toLowerCase() ?? null
  let userId = membership?.userId
  if (!userId && emailNorm) {
    const [byEmail] = await tx.select().from(usersTable).where(eq(usersTable.emailNorm, emailNorm))
    userId = byEmail?.id
  }
  const values = {
    firstName: u.firstName,
    lastName: u.lastName,
    email: u.email ?? null,
    emailNorm,
    phone: u.phone ?? null,
  }
  if (userId) await upsert(s, tx, usersTable, eq(usersTable.id, userId), values)
  else {
    userId = s.newId()
    await tx.insert(usersTable).values({ id: userId, ...values, userType: "member", source: "manifest", ...stamps(s) })
  }
  if (membership) {
    const next = { role: u.role ?? "member", employeeId: u.employeeId ?? null }
    if (membership.role !== next.role || membership.employeeId !== next.employeeId)
      await tx
        .update(projectMembershipsTable)
        .set({ ...next, updatedAt: new Date(s.now()) })
        .where(and(eq(projectMembershipsTable.projectId, projectId), eq(projectMembershipsTable.userId, userId)))
  } else {
    await tx
      .insert(projectMembershipsTable)
      .values({ projectId, userId, role: u.role ?? "member", employeeId: u.employeeId ?? null, manifestKey: u.key, ...stamps(s) })
      .onConflictDoUpdate({
        target: [projectMembershipsTable.projectId, projectMembershipsTable.userId],
        set: { manifestKey: u.key, role: u.role ?? "member", employeeId: u.employeeId ?? null },
      })
  }
  return userId
}

/**
 * The key-to-id map of everything provisioned so far, read back from the database: the same
 * shape PUT /manifest answers, for an operator who no longer has that answer (or the ids the
 * demo seed printed on the first start).
 */
const readManifestIds = async (db: Queryable): Promise<ManifestIds> => {
  const out: ManifestIds = { projects: {}, apps: {} }
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
      apply: (manifest) => write("ManifestStore.apply", (tx) => applyManifest(deps, tx, manifest)),
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
