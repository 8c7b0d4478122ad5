import { and, asc, eq, gt, gte, ilike, inArray, lt, notExists, or, sql, type SQL, type SQLWrapper } from "drizzle-orm"
import type { AnyPgColumn } from "drizzle-orm/pg-core"
import { Effect, Layer, Result } from "effect"
import { decodeAssetConfig, resolveMeetingConfig, type AssetConfig } from "../../core/booking/asset-config.ts"
import {
  assetEntity,
  kindOfRef,
  type Asset,
  type AssetRecord,
  type AssetRef,
  type CalendarSlot,
  type Project,
} from "../../core/booking/asset.ts"
import { LIVE_STATUSES, type AssetKind } from "../../core/booking/state.ts"
import { AssetStore, type DeskFilter, type DeskGroup, type DeskWindows, type RoomFilter } from "../../core/ports/asset-store.ts"
import { NotFound } from "../../core/shared/errors.ts"
import { EpochCaches, readBySnapshot } from "./cache-epoch.ts"
import type { Queryable } from "./database.ts"
import { desksTable, projectsTable, roomsTable } from "./schema.ts"
import { overlapParts } from "./slot-window.ts"
import { bookingSlotsTable } from "./tables/bookings.ts"
import { read as readDb, SqlDatabase } from "./unit-of-work.ts"

type RoomRow = typeof roomsTable.$inferSelect
type DeskRow = typeof desksTable.$inferSelect

const UTC: Project = { id: "", timezone: "UTC", brandId: "" }

/**
 * Equal stored configs and rates share one decoded object (interned per cache generation), so
 * a search judges each distinct config once by identity, without serialising it per request.
 */
const makeInterner = () => {
  const configs = new Map<string, { raw: unknown; decoded: AssetConfig | undefined }>()
  const rates = new Map<string, RoomRow["chargeRate"]>()
  return {
    size: () => configs.size + rates.size,
    config: (raw: unknown) => {
      const key = JSON.stringify(raw ?? {})
      let hit = configs.get(key)
      if (hit === undefined) {
        const r = decodeAssetConfig(raw ?? {})
        hit = { raw, decoded: Result.isSuccess(r) ? r.success : undefined }
        configs.set(key, hit)
      }
      return hit
    },
    rate: (rate: RoomRow["chargeRate"]) => {
      const key = JSON.stringify(rate)
      let hit = rates.get(key)
      if (hit === undefined) rates.set(key, (hit = rate))
      return hit
    },
  }
}
type Interner = ReturnType<typeof makeInterner>

const recordOf = (kind: AssetKind, row: RoomRow | DeskRow, intern: Interner): AssetRecord => {
  const base = {
    id: row.id,
    projectId: row.projectId,
    zoneId: row.zoneId,
    floorId: row.floorId,
    name: row.name,
    email: row.email,
    capacity: row.capacity,
    status: row.status,
    isPublic: row.isPublic,
    facilities: row.facilities,
    pictureUrls: row.pictureUrls,
    chargeRate: intern.rate(row.chargeRate),
    rawConfig: intern.config(row.config).raw,
    createdAt: row.createdAt.getTime(),
    updatedAt: row.updatedAt.getTime(),
  }
  return kind === "room"
    ? { ...base, kind: "room", type: (row as RoomRow).type, equipmentsAvailability: (row as RoomRow).equipmentsAvailability }
    : { ...base, kind: "desk", index: (row as DeskRow).index }
}

const assetOf = (record: AssetRecord, project: Project | undefined, intern: Interner): Asset => {
  const config = intern.config(record.rawConfig).decoded
  const p = project ?? { ...UTC, id: record.projectId }
  return {
    kind: record.kind,
    id: record.id,
    projectId: record.projectId,
    name: record.name,
    status: record.status,
    chargeRate: record.chargeRate,
    timeZone: p.timezone,
    project: p,
    config,
    meetingConfig: resolveMeetingConfig(config),
    record,
  }
}

const projectsById = async (q: Queryable, ids: ReadonlyArray<string>): Promise<Map<string, Project>> => {
  if (ids.length === 0) return new Map()
  const rows = await q
    .select({ id: projectsTable.id, timezone: projectsTable.timezone, brandId: projectsTable.brandId })
    .from(projectsTable)
    .where(inArray(projectsTable.id, [...new Set(ids)]))
  return new Map(rows.map((r) => [r.id, r]))
}

const escapeLike = (text: string) => text.replace(/[\\%_]/g, (c) => `\\${c}`)
/**
 * A name containing the filter, in any case, and in either Unicode form: "Café" typed as é or
 * as e + a combining accent (macOS input, some form posts) finds both. Names are kept as given.
 */
const nameContains = (column: AnyPgColumn, part: string): SQL =>
  sql`normalize(${column}, NFC) ilike ${`%${escapeLike(part.normalize("NFC"))}%`}`
const timestamp = (instant: number): SQL => sql`${new Date(instant).toISOString()}::timestamptz`

/**
 * A live slot of the asset overlapping [start, end) (half-open, as the exclusion constraint),
 * probed through booking_slots_asset_end_idx.
 */
const liveOverlap = (assetId: SQLWrapper, start: SQL, end: SQL) =>
  sql`exists (select 1 from ${bookingSlotsTable} s where s.asset_id = ${assetId}
    and s.status in (${sql.join(
      LIVE_STATUSES.map((st) => sql`${st}`),
      sql`, `,
    )})
    and s.start_at < ${end} and s.end_at > ${start})`

const roomConditions = (f: RoomFilter): SQL[] => {
  const c: SQL[] = [eq(roomsTable.projectId, f.projectId)]
  if (f.zoneId) c.push(eq(roomsTable.zoneId, f.zoneId))
  if (f.floorId) c.push(eq(roomsTable.floorId, f.floorId))
  if (f.locationId) c.push(or(eq(roomsTable.zoneId, f.locationId), eq(roomsTable.floorId, f.locationId))!)
  if (f.ids) c.push(f.ids.length > 0 ? inArray(roomsTable.id, [...f.ids]) : eq(roomsTable.id, ""))
  if (f.name) c.push(nameContains(roomsTable.name, f.name))
  if (f.status && f.status.length > 0) c.push(inArray(roomsTable.status, [...f.status]))
  if (f.type) c.push(eq(roomsTable.type, f.type))
  if (f.minCapacity !== undefined) c.push(gte(roomsTable.capacity, f.minCapacity))
  // Busy rooms are dropped in SQL: one indexed probe per room, nothing else read.
  if (f.freeDuring)
    c.push(sql`not ${liveOverlap(roomsTable.id, timestamp(f.freeDuring.start), timestamp(f.freeDuring.end))}`)
  return c
}

const deskConditions = (q: Queryable, f: DeskFilter): SQL[] => {
  const c: SQL[] = [inArray(desksTable.projectId, [...f.projectIds])]
  if (f.brandId)
    c.push(
      inArray(
        desksTable.projectId,
        q.select({ id: projectsTable.id }).from(projectsTable).where(eq(projectsTable.brandId, f.brandId)),
      ),
    )
  if (f.zoneId) c.push(eq(desksTable.zoneId, f.zoneId))
  if (f.floorId) c.push(eq(desksTable.floorId, f.floorId))
  if (f.locationId) c.push(or(eq(desksTable.zoneId, f.locationId), eq(desksTable.floorId, f.locationId))!)
  if (f.ids) c.push(f.ids.length > 0 ? inArray(desksTable.id, [...f.ids]) : eq(desksTable.id, ""))
  if (f.name) c.push(nameContains(desksTable.name, f.name))
  if (f.email) c.push(ilike(desksTable.email, escapeLike(f.email)))
  if (f.statuses && f.statuses.length > 0) c.push(inArray(desksTable.status, [...f.statuses]))
  return c
}

/** Free in one window for every desk; an empty window overlaps nothing, so every desk is free. */
const freeDuring = (start: number, end: number): SQL =>
  end > start ? sql`not ${liveOverlap(desksTable.id, timestamp(start), timestamp(end))}` : sql`true`

/**
 * Desks whose (project, config, status) got a window, free in that window. The windows travel
 * as one jsonb parameter, so any number of distinct configs is one statement.
 */
const freeDuringPeriods = (windows: Extract<DeskWindows, { _tag: "FreeIn" }>["windows"]): SQL => {
  const rows = windows.map((w) => ({
    project_id: w.group.projectId,
    config: w.group.rawConfig,
    status: w.group.status,
    start_at: new Date(w.start).toISOString(),
    end_at: new Date(w.end).toISOString(),
  }))
  return sql`exists (select 1 from jsonb_to_recordset(${JSON.stringify(rows)}::jsonb)
      as w(project_id text, config jsonb, status text, start_at timestamptz, end_at timestamptz)
    where w.project_id = ${desksTable.projectId} and w.config = ${desksTable.config}
      and w.status = ${desksTable.status}
      and (w.end_at <= w.start_at
        or not ${liveOverlap(desksTable.id, sql`w.start_at`, sql`w.end_at`)}))`
}

/** The rooms or desks of one project as cached, in the listing's SQL order, and by id. */
interface ProjectAssets {
  readonly ordered: ReadonlyArray<Asset>
  readonly byId: ReadonlyMap<string, Asset>
  /** Distinct (stored config, status) of the project's assets: a desk's bookable window depends on these only. */
  readonly groups: ReadonlyArray<DeskGroup>
  /** groupOf[i] = the index in `groups` of ordered[i]. */
  readonly groupOf: Int32Array
}

/** Groups by (interned config, status), computed once per cache generation. */
const grouped = (ordered: ReadonlyArray<Asset>): Pick<ProjectAssets, "groups" | "groupOf"> => {
  const index = new Map<unknown, Map<string, number>>()
  const groups: DeskGroup[] = []
  const groupOf = new Int32Array(ordered.length)
  ordered.forEach((a, i) => {
    let byStatus = index.get(a.record.rawConfig)
    if (byStatus === undefined) index.set(a.record.rawConfig, (byStatus = new Map()))
    let g = byStatus.get(a.status)
    if (g === undefined) {
      g = groups.length
      byStatus.set(a.status, g)
      groups.push({ projectId: a.projectId, timeZone: a.timeZone, rawConfig: a.record.rawConfig, config: a.config, status: a.status })
    }
    groupOf[i] = g
  })
  return { groups, groupOf }
}

const hasExactRoomFilters = (f: RoomFilter) =>
  f.zoneId !== undefined ||
  f.floorId !== undefined ||
  f.locationId !== undefined ||
  f.ids !== undefined ||
  (f.status !== undefined && f.status.length > 0) ||
  f.type !== undefined ||
  f.minCapacity !== undefined

const hasExactDeskFilters = (f: DeskFilter) =>
  f.brandId !== undefined ||
  f.zoneId !== undefined ||
  f.floorId !== undefined ||
  f.locationId !== undefined ||
  f.ids !== undefined ||
  (f.statuses !== undefined && f.statuses.length > 0)

/**
 * Ids of the project's rooms or desks with no live slot overlapping [start, end): one
 * statement, the project's live slots in the window read once (index-only, slot-window.ts's two
 * parts) and the assets not among them; only ids travel back, the records come from the cache.
 */
const freeAssets = async (q: Queryable, kind: AssetKind, projectId: string, start: number, end: number): Promise<ReadonlySet<string>> => {
  const table = kind === "room" ? roomsTable : desksTable
  const busyIn = (part: SQL) =>
    q
      .select({ assetId: bookingSlotsTable.assetId })
      .from(bookingSlotsTable)
      .where(and(eq(bookingSlotsTable.projectId, projectId), inArray(bookingSlotsTable.status, [...LIVE_STATUSES]), part))
  const [short, long] = overlapParts(timestamp(start), timestamp(end))
  // NOT EXISTS, not NOT IN: a NOT IN whose busy list outgrows work_mem (a window of months) is
  // planned as a scan of the whole list per asset; the anti join stays a hash or merge join.
  const busy = busyIn(short).unionAll(busyIn(long)).as("busy")
  const rows = await q
    .select({ id: table.id })
    .from(table)
    .where(and(eq(table.projectId, projectId), notExists(q.select({ one: sql`1` }).from(busy).where(eq(busy.assetId, table.id)))))
  return new Set(rows.map((r) => r.id))
}

const oneOf = (values: ReadonlyArray<string> | undefined, value: string) =>
  values === undefined || values.length === 0 || values.includes(value)

/** The room filters that are exact comparisons (all but the name's ILIKE), on a cached record. */
const roomMatches = (f: RoomFilter) => (a: Asset) => {
  const r = a.record
  return (
    r.kind === "room" &&
    (f.zoneId === undefined || r.zoneId === f.zoneId) &&
    (f.floorId === undefined || r.floorId === f.floorId) &&
    (f.locationId === undefined || r.zoneId === f.locationId || r.floorId === f.locationId) &&
    (f.ids === undefined || f.ids.includes(r.id)) &&
    oneOf(f.status, r.status) &&
    (f.type === undefined || r.type === f.type) &&
    (f.minCapacity === undefined || r.capacity >= f.minCapacity)
  )
}

/** The desk filters that are exact comparisons (all but name and email, which are ILIKE). */
const deskMatches = (f: DeskFilter) => (a: Asset) => {
  const r = a.record
  return (
    r.kind === "desk" &&
    (f.brandId === undefined || a.project.brandId === f.brandId) &&
    (f.zoneId === undefined || r.zoneId === f.zoneId) &&
    (f.floorId === undefined || r.floorId === f.floorId) &&
    (f.locationId === undefined || r.zoneId === f.locationId || r.floorId === f.locationId) &&
    (f.ids === undefined || f.ids.includes(r.id)) &&
    oneOf(f.statuses, r.status)
  )
}

export const AssetStorePostgres = Layer.effect(
  AssetStore,
  Effect.gen(function* () {
    const db = yield* SqlDatabase
    const provideDb = Effect.provideService(SqlDatabase, db)
    const caches = yield* EpochCaches
    // Any committed manifest change empties these on every process (cache-epoch.ts); the
    // bearer middleware syncs the epoch before a request reaches a use case.
    const assetCache = caches.cache<string, Asset>("asset-records", { max: 20_000 })
    const roomsCache = caches.cache<string, ProjectAssets>("project-rooms", { max: 64 })
    const desksCache = caches.cache<string, ProjectAssets>("project-desks", { max: 64 })
    const projectCache = caches.cache<string, Project>("projects", { max: 1_000 })
    let intern = makeInterner()
    // The interner grows with distinct configs only; start afresh if a manifest churned many.
    const interner = () => {
      if (intern.size() > 10_000) intern = makeInterner()
      return intern
    }

    const read = <A>(f: (q: Queryable) => Promise<A>) => provideDb(readDb(f))

    /**
     * Free rooms or desks per (kind, project, window), kept by database snapshot (see
     * `SnapshotMemo`): a repeated search between commits costs no availability statement.
     */
    const freeSets = caches.bySnapshot<ReadonlySet<string>>("free-assets", 16)
    const freeIds = (kind: AssetKind, projectId: string, start: number, end: number) =>
      readBySnapshot(freeSets, `${kind}:${projectId}:${start}:${end}`, read((q) => freeAssets(q, kind, projectId, start, end)))
    /**
     * The listing order filtered to a free set, with no other filter: derived once per (free
     * set, cached assets), so a repeated search does not walk every asset again.
     */
    const freeOrdered = new WeakMap<ReadonlySet<string>, { readonly of: ProjectAssets; readonly pattern: string; readonly list: ReadonlyArray<Asset> }>()

    const loadProjects = (ids: ReadonlyArray<string>) =>
      Effect.gen(function* () {
        const out = new Map<string, Project>()
        const missing: string[] = []
        for (const id of new Set(ids)) {
          const hit = projectCache.get(id)
          if (hit) out.set(id, hit)
          else missing.push(id)
        }
        if (missing.length > 0) {
          // The counter before the read: a project read before a move is not kept under the new one.
          const readUnder = caches.epoch()
          const loaded = yield* read((q) => projectsById(q, missing))
          for (const [id, p] of loaded) {
            out.set(id, p)
            projectCache.keep(id, p, readUnder)
          }
        }
        return out as ReadonlyMap<string, Project>
      })

    const assetsOf = (kind: AssetKind, rows: ReadonlyArray<RoomRow | DeskRow>) =>
      Effect.gen(function* () {
        const projects = yield* loadProjects(rows.map((r) => r.projectId))
        const i = interner()
        return rows.map((r) => assetOf(recordOf(kind, r, i), projects.get(r.projectId), i))
      })

    const loadAsset = (kind: AssetKind, id: string) =>
      Effect.gen(function* () {
        const table = kind === "room" ? roomsTable : desksTable
        const rows = yield* read((q) => q.select().from(table).where(eq(table.id, id)).limit(1))
        const [asset] = yield* assetsOf(kind, rows)
        return asset
      })

    /**
     * An asset of a project whose rooms or desks a listing loaded whole (roomsCache, desksCache):
     * found there without a statement (a project's 10,000 desks, listed, then booked one by
     * one). Those caches follow the epoch like the per-asset one.
     */
    const listed = (kind: AssetKind, id: string): Asset | undefined => {
      for (const project of (kind === "room" ? roomsCache : desksCache).values()) {
        const asset = project.byId.get(id)
        if (asset !== undefined) return asset
      }
      return undefined
    }

    const find = (ref: AssetRef): Effect.Effect<Asset, NotFound> =>
      Effect.gen(function* () {
        const kind = kindOfRef(ref)
        const key = `${kind}:${ref.id}`
        const hit = assetCache.get(key) ?? listed(kind, ref.id)
        if (hit !== undefined) return hit
        const ctx = yield* Effect.context<never>()
        const loaded = yield* Effect.promise(() =>
          assetCache.getOrLoad(key, () => Effect.runPromiseWith(ctx)(loadAsset(kind, ref.id))),
        )
        if (loaded === undefined) return yield* new NotFound({ entity: assetEntity(kind), id: ref.id })
        return loaded
      })

    const loading = new Map<string, Promise<ProjectAssets>>()
    /** A project's rooms or desks, loaded once per cache generation in the listings' order. */
    const projectAssets = (kind: AssetKind, projectId: string) =>
      Effect.gen(function* () {
        const cache = kind === "room" ? roomsCache : desksCache
        const hit = cache.get(projectId)
        if (hit !== undefined) return hit
        const ctx = yield* Effect.context<never>()
        const load = Effect.gen(function* () {
          const rows = yield* read(
            async (q): Promise<ReadonlyArray<RoomRow | DeskRow>> =>
              kind === "room"
                ? await q.select().from(roomsTable).where(eq(roomsTable.projectId, projectId)).orderBy(asc(roomsTable.name), asc(roomsTable.id))
                : await q
                    .select()
                    .from(desksTable)
                    .where(eq(desksTable.projectId, projectId))
                    .orderBy(asc(desksTable.index), asc(desksTable.name), asc(desksTable.id)),
          )
          const ordered = yield* assetsOf(kind, rows)
          return { ordered, byId: new Map(ordered.map((a) => [a.id, a])), ...grouped(ordered) }
        })
        // Concurrent first searches share one load (a 10,000-desk project is a large read).
        const key = `${kind}:${projectId}`
        let pending = loading.get(key)
        if (pending === undefined) {
          pending = cache
            .getOrLoad(projectId, () => Effect.runPromiseWith(ctx)(load))
            .then((v) => v!)
            .finally(() => loading.delete(key))
          loading.set(key, pending)
        }
        const shared = pending
        return yield* Effect.promise(() => shared)
      })

    const searchRooms = (f: RoomFilter) =>
      Effect.gen(function* () {
        const rooms = yield* projectAssets("room", f.projectId)
        if (f.name === undefined) {
          // Every filter but the name is an exact comparison: run it on the cached records, and
          // learn the free rooms in one statement.
          const window = f.freeDuring
          const free = window ? yield* freeIds("room", f.projectId, window.start, window.end) : undefined
          const matches = hasExactRoomFilters(f) ? roomMatches(f) : undefined
          if (matches === undefined && free === undefined) return rooms.ordered
          if (matches === undefined && free !== undefined) {
            const held = freeOrdered.get(free)
            if (held !== undefined && held.of === rooms) return held.list
            const list = rooms.ordered.filter((a) => free.has(a.id))
            freeOrdered.set(free, { of: rooms, pattern: "", list })
            return list
          }
          return rooms.ordered.filter((a) => (matches === undefined || matches(a)) && (free === undefined || free.has(a.id)))
        }
        // Only ids travel back: the rows are the cached records (a change empties the cache first).
        const ids = yield* read((q) =>
          q
            .select({ id: roomsTable.id })
            .from(roomsTable)
            .where(and(...roomConditions(f)))
            .orderBy(asc(roomsTable.name), asc(roomsTable.id)),
        )
        const missing = ids.filter((r) => !rooms.byId.has(r.id)).map((r) => r.id)
        // A room committed after the cache was filled and before this read: read it directly.
        const extra =
          missing.length === 0
            ? new Map<string, Asset>()
            : new Map(
                (yield* assetsOf("room", yield* read((q) => q.select().from(roomsTable).where(inArray(roomsTable.id, missing))))).map(
                  (a) => [a.id, a],
                ),
              )
        return ids.map((r) => rooms.byId.get(r.id) ?? extra.get(r.id)!)
      })

    /** One project and no ILIKE filter: desks are filtered, judged and paged on the cached records. */
    const cachedDeskSearch = (f: DeskFilter) => f.projectIds.length === 1 && f.name === undefined && f.email === undefined

    const deskGroups = (f: DeskFilter) =>
      Effect.gen(function* () {
        if (f.projectIds.length === 0) return []
        if (cachedDeskSearch(f)) {
          const desks = yield* projectAssets("desk", f.projectIds[0]!)
          if (!hasExactDeskFilters(f)) return desks.groups
          // The cached group objects, so searchDesks finds a window by identity.
          const matches = deskMatches(f)
          const used = new Set<number>()
          desks.ordered.forEach((a, i) => {
            if (matches(a)) used.add(desks.groupOf[i]!)
          })
          return desks.groups.filter((_, g) => used.has(g))
        }
        const groups = yield* read((q) =>
          q
            .selectDistinct({ projectId: desksTable.projectId, config: desksTable.config, status: desksTable.status })
            .from(desksTable)
            .where(and(...deskConditions(q, f))),
        )
        const projects = yield* loadProjects(groups.map((g) => g.projectId))
        const i = interner()
        return groups.map(
          (g): DeskGroup => ({
            projectId: g.projectId,
            timeZone: projects.get(g.projectId)?.timezone ?? "UTC",
            rawConfig: g.config,
            config: i.config(g.config).decoded,
            status: g.status,
          }),
        )
      })

    const searchDesks = (f: DeskFilter, windows: DeskWindows, page: { readonly limit: number; readonly offset: number }) =>
      Effect.gen(function* () {
        if (f.projectIds.length === 0) return { desks: [], total: 0 }
        if (cachedDeskSearch(f)) {
          const projectId = f.projectIds[0]!
          const desks = yield* projectAssets("desk", projectId)
          const matches = hasExactDeskFilters(f) ? deskMatches(f) : undefined
          if (windows._tag === "All" && matches === undefined)
            return { desks: desks.ordered.slice(page.offset, page.offset + page.limit), total: desks.ordered.length }
          // Per group: left out (no window), always free (an empty window), or free when in the
          // window's free set (one statement per distinct window; usually one in all).
          const freeIn: Array<ReadonlySet<string> | "all" | undefined> = desks.groups.map(() => (windows._tag === "All" ? "all" : undefined))
          if (windows._tag === "FreeIn") {
            const freeBy = new Map<string, ReadonlySet<string>>()
            const slot = new Map(desks.groups.map((g, i) => [g, i]))
            for (const w of windows.windows) {
              // By identity; by value when the cache was refilled since deskGroups (a manifest change).
              const g =
                slot.get(w.group) ??
                desks.groups.findIndex(
                  (c) => c.status === w.group.status && JSON.stringify(c.rawConfig) === JSON.stringify(w.group.rawConfig),
                )
              if (g < 0) continue
              if (w.end <= w.start) {
                freeIn[g] = "all"
                continue
              }
              const key = `${w.start}/${w.end}`
              let free = freeBy.get(key)
              if (free === undefined) freeBy.set(key, (free = yield* freeIds("desk", projectId, w.start, w.end)))
              freeIn[g] = free
            }
          }
          // With one free set and no other filter (the usual case), the selection is kept with
          // that set: which groups take it, are always free or are left out is its pattern.
          const sets = new Set(freeIn.filter((x): x is ReadonlySet<string> => x !== undefined && x !== "all"))
          const only = matches === undefined && sets.size === 1 ? [...sets][0]! : undefined
          const pattern = only === undefined ? "" : freeIn.map((x) => (x === undefined ? "-" : x === "all" ? "a" : "f")).join("")
          const held = only === undefined ? undefined : freeOrdered.get(only)
          let selected: ReadonlyArray<Asset>
          if (held !== undefined && held.of === desks && held.pattern === pattern) selected = held.list
          else {
            const list: Asset[] = []
            const { ordered, groupOf } = desks
            for (let i = 0; i < ordered.length; i++) {
              const a = ordered[i]!
              const free = freeIn[groupOf[i]!]
              if (free === undefined || (free !== "all" && !free.has(a.id))) continue
              if (matches === undefined || matches(a)) list.push(a)
            }
            if (only !== undefined) freeOrdered.set(only, { of: desks, pattern, list })
            selected = list
          }
          return { desks: selected.slice(page.offset, page.offset + page.limit), total: selected.length }
        }
        const { desks, total } = yield* read(async (q) => {
          const conditions = deskConditions(q, f)
          if (windows._tag === "FreeIn") {
            const [first] = windows.windows
            // Every desk resolved the same window (the usual case: one shared config): a plain
            // window filter, without matching each desk's config against the groups.
            const oneWindow =
              windows.everyGroup && first !== undefined && windows.windows.every((w) => w.start === first.start && w.end === first.end)
            conditions.push(oneWindow ? freeDuring(first.start, first.end) : freeDuringPeriods(windows.windows))
          }
          const where = and(...conditions)
          const order = [asc(desksTable.index), asc(desksTable.name), asc(desksTable.id)]
          // The page and the total both come from SQL: a page costs a page. The page is picked
          // by sorting only the sort keys and ids, then its rows are read by primary key.
          const pageIds = q.select({ id: desksTable.id }).from(desksTable).where(where).orderBy(...order)
          const [desks, [count]] = await Promise.all([
            page.limit === 0
              ? Promise.resolve([] as DeskRow[])
              : q
                  .select()
                  .from(desksTable)
                  .where(inArray(desksTable.id, pageIds.limit(page.limit).offset(page.offset)))
                  .orderBy(...order),
            q.select({ n: sql<number>`count(*)::int` }).from(desksTable).where(where),
          ])
          return { desks, total: Number(count?.n ?? 0) }
        })
        return { desks: yield* assetsOf("desk", desks), total }
      })

    const calendar = (assetId: string, from: number, to: number, limit: number) =>
      read((q) =>
        q
          .select({
            bookingId: bookingSlotsTable.bookingId,
            startAt: bookingSlotsTable.startAt,
            endAt: bookingSlotsTable.endAt,
            status: bookingSlotsTable.status,
          })
          .from(bookingSlotsTable)
          .where(
            and(
              eq(bookingSlotsTable.assetId, assetId),
              inArray(bookingSlotsTable.status, [...LIVE_STATUSES]),
              lt(bookingSlotsTable.startAt, new Date(to)),
              gt(bookingSlotsTable.endAt, new Date(from)),
            ),
          )
          .orderBy(asc(bookingSlotsTable.startAt))
          .limit(limit),
      ).pipe(
        Effect.map((rows) =>
          rows.map((r): CalendarSlot => ({ bookingId: r.bookingId, start: r.startAt.getTime(), end: r.endAt.getTime(), status: r.status })),
        ),
      )

    const roomNames = (ids: ReadonlyArray<string>) =>
      Effect.gen(function* () {
        const out = new Map<string, string>()
        const missing: string[] = []
        for (const id of new Set(ids)) {
          const hit = assetCache.get(`room:${id}`)
          if (hit) out.set(id, hit.name)
          else missing.push(id)
        }
        if (missing.length > 0) {
          const rows = yield* read((q) =>
            q.select({ id: roomsTable.id, name: roomsTable.name }).from(roomsTable).where(inArray(roomsTable.id, missing)),
          )
          for (const r of rows) out.set(r.id, r.name)
        }
        return out as ReadonlyMap<string, string>
      })

    return AssetStore.of({ find, projects: loadProjects, roomNames, searchRooms, deskGroups, searchDesks, calendar })
  }),
)
