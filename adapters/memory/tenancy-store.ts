import { Effect, Layer, Option } from "effect"
import { admit } from "../../core/auth/rate-limit.ts"
import type { TokenGrant } from "../../core/auth/records.ts"
import { emailLookupKey } from "../../core/member/identity.ts"
import { Clock } from "../../core/ports/clock.ts"
import { Ids } from "../../core/ports/ids.ts"
import { retimes } from "../../core/booking/asset-config.ts"
import { APP_ID_TAKEN, ManifestStore } from "../../core/ports/manifest-store.ts"
import { RateLimiter } from "../../core/ports/rate-limiter.ts"
import { Secrets } from "../../core/ports/secrets.ts"
import { TokenStore } from "../../core/ports/token-store.ts"
import { RateLimited, StateConflict } from "../../core/shared/errors.ts"
import type { Manifest } from "../../core/tenancy/manifest.ts"
import { copyManifestIds, emptyProjectIds, type ManifestIds, type ProjectIds } from "../../core/tenancy/manifest-ids.ts"
import { AppConfig } from "../config/config.ts"
import type { AssetRecord } from "../../core/booking/asset.ts"
import { ASSETS_TABLE, emptyAssetTables, type AssetTables } from "./asset-store.ts"
import { directoryTable } from "./directory-store.ts"
import { memberTable, membershipKey, tenancyTable, tokenTable, type MemberRows, type ProvisionedApp } from "./member-tables.ts"
import { MemoryDb, requireTx, type MemoryDbShape } from "./memory-db.ts"

/** The identity key two users (or two members of one project) would hold, as PostgreSQL's unique indexes see it. */
const heldTwice = (rows: MemberRows): "phone" | "employeeId" | undefined => {
  const phones = [...rows.users.values()].flatMap((u) => (u.profile.phone === undefined ? [] : [u.profile.phone]))
  if (new Set(phones).size !== phones.length) return "phone"
  const employees = [...rows.memberships.values()].flatMap((m) => (m.employeeId === null ? [] : [`${m.projectId} ${m.employeeId}`]))
  return new Set(employees).size !== employees.length ? "employeeId" : undefined
}

const NO_EQUIPMENT = { camera: false, display: false, mic: false, projector: false, speaker: false }

/** Revokes an app's live refresh tokens: its secret was replaced (as token-store.ts on PostgreSQL). */
const revokeRefreshTokens = (db: MemoryDbShape, appId: string, now: number): void =>
  tokenTable(db).update(
    (all) => new Map([...all].map(([h, t]) => [h, t.appId === appId && t.kind === "refresh" && t.revokedAt === null ? { ...t, revokedAt: now } : t])),
  )

/** The manifest in memory: ids are kept per key, so a re-apply keeps every id. */
export const ManifestStoreMemory = Layer.effect(
  ManifestStore,
  Effect.gen(function* () {
    const db = yield* MemoryDb
    const ids = yield* Ids
    const secrets = yield* Secrets
    const clock = yield* Clock
    const tenancy = tenancyTable(db)
    const members = memberTable(db)
    const assets = db.table<AssetTables>(ASSETS_TABLE, emptyAssetTables)
    const directory = directoryTable(db)
    /** Projects, rooms and desks as the memory asset store reads them; the rooms and desks retimed. */
    const writeAssets = (m: Manifest, out: ManifestIds): string[] => {
      const retimed: string[] = []
      const now = clock.now()
      const current = assets.get()
      const projects = new Map(current.projects)
      const records = new Map(current.assets)
      for (const p of m.projects ?? []) {
        const pids = out.projects[p.key]!
        projects.set(pids.id, { id: pids.id, timezone: p.timezone, brandId: pids.brandId })
        const fields = (id: string, a: NonNullable<typeof p.rooms>[number] | NonNullable<typeof p.desks>[number]) => ({
          id,
          projectId: pids.id,
          zoneId: pids.zones[a.zone] ?? "",
          floorId: pids.floors[a.floor] ?? "",
          name: a.name,
          email: a.email ?? null,
          capacity: a.capacity ?? 1,
          status: a.status ?? "active",
          isPublic: a.isPublic ?? true,
          facilities: a.facilities ?? [],
          pictureUrls: a.pictureUrls ?? [],
          chargeRate: a.chargeRate ?? { perHour: 0, perDay: 0 },
          rawConfig: a.config ?? {},
          createdAt: records.get(id)?.createdAt ?? now,
          updatedAt: now,
        })
        const keep = (asset: AssetRecord) => {
          const before = records.get(asset.id)
          if (before !== undefined && retimes(before.rawConfig, asset.rawConfig)) retimed.push(asset.id)
          records.set(asset.id, asset)
        }
        for (const r of p.rooms ?? []) {
          const id = pids.rooms[r.key]!
          const room: AssetRecord = {
            ...fields(id, r),
            kind: "room",
            type: r.type ?? "normal",
            equipmentsAvailability: { ...NO_EQUIPMENT, ...r.equipmentsAvailability },
          }
          keep(room)
        }
        for (const d of p.desks ?? []) {
          const id = pids.desks[d.key]!
          const desk: AssetRecord = { ...fields(id, d), kind: "desk", index: d.index ?? 0 }
          keep(desk)
        }
      }
      assets.set({ projects, assets: records })
      return retimed
    }
    /** People, apps and roles as the memory directory reads them. */
    const writeDirectory = (m: Manifest, out: ManifestIds) => {
      const current = directory.get()
      const users = new Map(current.users)
      const memberships = new Map(current.memberships)
      const apps = new Map(current.apps)
      for (const a of m.apps ?? []) apps.set(out.apps[a.key]!, a.key)
      for (const p of m.projects ?? []) {
        const pids = out.projects[p.key]!
        for (const u of p.users ?? []) {
          const userId = pids.users[u.key]!
          const name = `${u.firstName} ${u.lastName}`.trim()
          users.set(userId, { ...(u.email ? { email: u.email } : {}), name, displayName: name })
          memberships.set(`${pids.id}:${userId}`, u.role ?? "member")
        }
      }
      directory.set({ users, apps, memberships })
    }
    const apply = Effect.fnUntraced(function* (m: Manifest) {
      yield* requireTx("ManifestStore.apply")
      const before = tenancy.get()
      const out: ManifestIds = copyManifestIds(before.ids)
      const projects = new Map(before.projects)
      const keyed = (map: Record<string, string>, key: string) => (map[key] ??= ids.newId())
      for (const p of m.projects ?? []) {
        const known = out.projects[p.key]
        const pids: ProjectIds = known ?? emptyProjectIds(ids.newId(), ids.newId())
        out.projects[p.key] = pids
        for (const z of p.zones ?? []) {
          keyed(pids.zones, z.key)
          for (const f of z.floors ?? []) keyed(pids.floors, f.key)
        }
        for (const r of p.rooms ?? []) keyed(pids.rooms, r.key)
        for (const d of p.desks ?? []) keyed(pids.desks, d.key)
        for (const u of p.units ?? []) keyed(pids.units, u.key)
        for (const g of p.accessGroups ?? []) keyed(pids.accessGroups, g.key)
        for (const d of p.discounts ?? []) keyed(pids.discounts, d.key)
        for (const w of p.webhooks ?? []) keyed(pids.webhooks, w.key)
        for (const key of p.removedWebhooks ?? []) delete pids.webhooks[key]
        projects.set(pids.id, p)
      }
      const apps = new Map(before.apps)
      for (const a of m.apps ?? []) {
        if ([...apps.values()].some((x) => x.appId === a.appId && x.key !== a.key)) return yield* new StateConflict({ reason: APP_ID_TAKEN })
        const id = keyed(out.apps, a.key)
        const existing = apps.get(id)
        const kept = existing !== undefined && (yield* secrets.verify(a.appSecret, existing.secretHash))
        const secretHash = kept ? existing.secretHash : yield* secrets.hash(a.appSecret)
        // A new secret is a rotation, by the manifest as by the rotate call.
        if (existing !== undefined && !kept) revokeRefreshTokens(db, id, clock.now())
        const app: ProvisionedApp = {
          id,
          appId: a.appId,
          key: a.key,
          secretHash,
          canActAs: a.canActAs ?? false,
          projectIds: a.projects.map((k) => out.projects[k]!.id),
          partnerGroupIds: (a.partnerAccessGroups ?? []).map((g) => out.projects[a.projects[0]!]!.accessGroups[g]!),
        }
        apps.set(id, app)
      }
      let rows = members.get()
      for (const p of m.projects ?? []) {
        const pids = out.projects[p.key]!
        for (const u of p.users ?? []) {
          const memberships = [...rows.memberships.values()]
          const byKey = memberships.find((x) => x.projectId === pids.id && x.manifestKey === u.key)
          const emailKey = u.email === undefined ? null : emailLookupKey(u.email)
          const userId =
            byKey?.userId ?? (emailKey === null ? undefined : [...rows.users.values()].find((x) => x.emailKey === emailKey)?.id) ?? ids.newId()
          const previous = rows.users.get(userId)
          const users = new Map(rows.users).set(userId, {
            id: userId,
            profile: {
              firstName: u.firstName,
              lastName: u.lastName,
              ...(u.email !== undefined ? { email: u.email } : {}),
              ...(u.phone !== undefined ? { phone: u.phone } : {}),
            },
            emailKey,
            username: previous?.username ?? null,
            userType: previous?.userType ?? "member",
            source: previous?.source ?? "manifest",
          })
          const key = membershipKey(pids.id, userId)
          const stored = rows.memberships.get(key)
          const membership = {
            projectId: pids.id,
            userId,
            status: stored?.status ?? "active",
            employeeId: u.employeeId ?? null,
            role: u.role ?? "member",
            manifestKey: u.key,
          }
          pids.users[u.key] = userId
          const links = [...rows.links]
          for (const l of u.links ?? []) {
            const appId = out.apps[l.app]!
            if (!links.some((x) => x.appId === appId && x.externalUserId === l.externalUserId))
              links.push({ appId, externalUserId: l.externalUserId, userId, projectId: pids.id })
          }
          rows = { ...rows, users, memberships: new Map(rows.memberships).set(key, membership), links }
        }
      }
      const taken = heldTwice(rows)
      if (taken !== undefined)
        return yield* new StateConflict({ reason: `a manifest user's ${taken} is already held by another user` })
      members.set(rows)
      tenancy.set({ ids: out, projects, apps })
      const retimedAssets = writeAssets(m, out)
      writeDirectory(m, out)
      return { ids: copyManifestIds(out), retimedAssets }
    })
    return ManifestStore.of({
      apply,
      // Units of work run one at a time in memory: nothing else can apply meanwhile.
      serialize: () => requireTx("ManifestStore.serialize"),
      ids: () => Effect.sync(() => copyManifestIds(tenancy.get().ids)),
      census: () =>
        Effect.sync(() => {
          const { ids: current } = tenancy.get()
          return { projects: Object.keys(current.projects).length, demoProjectId: Option.fromUndefinedOr(current.projects.demo?.id) }
        }),
    })
  }),
)

/** Apps and tokens in memory. */
export const TokenStoreMemory = Layer.effect(
  TokenStore,
  Effect.gen(function* () {
    const db = yield* MemoryDb
    const tenancy = tenancyTable(db)
    const tokens = tokenTable(db)
    const appByAppId = (appId: string) => [...tenancy.get().apps.values()].find((a) => a.appId === appId)
    return TokenStore.of({
      app: (appId) =>
        Effect.sync(() =>
          Option.fromUndefinedOr(appByAppId(appId)).pipe(
            Option.map(({ id, appId: publicId, key, secretHash, canActAs }) => ({ id, appId: publicId, key, secretHash, canActAs })),
          ),
        ),
      insert: (t) => Effect.sync(() => tokens.update((all) => new Map(all).set(t.hash, { ...t, revokedAt: null }))),
      holdSecret: (appId, secretHash) =>
        requireTx("TokenStore.holdSecret").pipe(
          Effect.andThen(Effect.sync(() => tenancy.get().apps.get(appId)?.secretHash === secretHash)),
        ),
      // Nothing is kept apart from the tables: every check reads them through grantOf.
      freshFor: () => Promise.resolve(),
      heldGrant: () => undefined,
      grantOf: (hash) =>
        Effect.sync(() => {
          const t = tokens.get().get(hash)
          const app = t && tenancy.get().apps.get(t.appId)
          if (!t || !app) return Option.none<TokenGrant>()
          return Option.some({
            appId: t.appId,
            kind: t.kind,
            grant: t.grant,
            subjectUserId: t.subjectUserId ?? null,
            tokenProjectId: t.projectId ?? null,
            expiresAt: t.expiresAt,
            revokedAt: t.revokedAt,
            appKey: app.key,
            appProjects: app.projectIds,
          })
        }),
      rotateRefresh: (hash, now) =>
        requireTx("TokenStore.rotateRefresh").pipe(
          Effect.andThen(
            Effect.sync(() => {
              const t = tokens.get().get(hash)
              if (!t || t.kind !== "refresh" || t.revokedAt !== null || t.expiresAt <= now) return Option.none()
              tokens.update((all) => new Map(all).set(hash, { ...t, revokedAt: now }))
              return Option.some({ appId: t.appId })
            }),
          ),
        ),
      revokeDelegated: (projectId, userId, now) =>
        requireTx("TokenStore.revokeDelegated").pipe(
          Effect.andThen(
            Effect.sync(() => {
              const { apps } = tenancy.get()
              tokens.update(
                (all) =>
                  new Map(
                    [...all].map(([h, t]) => [
                      h,
                      apps.get(t.appId)?.projectIds.includes(projectId) === true && t.subjectUserId === userId && t.grant === "act_as" && t.revokedAt === null
                        ? { ...t, revokedAt: now }
                        : t,
                    ]),
                  ),
              )
            }),
          ),
        ),
      setSecretHash: (appId, secretHash, now) =>
        requireTx("TokenStore.setSecretHash").pipe(
          Effect.andThen(
            Effect.sync(() => {
              const app = appByAppId(appId)
              if (!app) return false
              tenancy.update((t) => ({ ...t, apps: new Map(t.apps).set(app.id, { ...app, secretHash }) }))
              revokeRefreshTokens(db, app.id, now)
              return true
            }),
          ),
        ),
    })
  }),
)

/** The partner budget in memory (one process). */
export const RateLimiterMemory = Layer.effect(
  RateLimiter,
  Effect.gen(function* () {
    const clock = yield* Clock
    const { partnerRateLimit } = yield* AppConfig
    const hits = new Map<string, number[]>()
    return RateLimiter.of({
      consume: (appId) =>
        Effect.suspend(() => {
          const decision = admit(hits.get(appId) ?? [], clock.now(), partnerRateLimit)
          if (!decision.admitted) return Effect.fail(new RateLimited({ retryAfterSeconds: decision.retryAfterSeconds }))
          hits.set(appId, decision.hits)
          return Effect.void
        }),
    })
  }),
)
