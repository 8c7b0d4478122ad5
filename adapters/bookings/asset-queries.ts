import { and, asc, eq, gte, ilike, inArray, or, sql, type SQL, type SQLWrapper } from "drizzle-orm"
import { Result } from "effect"
import { decodeAssetConfig, type AssetConfig } from "../../core/booking/asset-config.ts"
import { resolveTimePeriod, searchVerdict, type TimePeriod } from "../../core/booking/asset-rules.ts"
import { LIVE_STATUSES, type AssetKind } from "../../core/booking/state.ts"
import { canSeeProject, type Principal } from "../../core/auth/principal.ts"
import { Forbidden, NotFound } from "../../core/shared/errors.ts"
import { assetCalendar } from "../postgres/booking-repo.ts"
import type { Queryable } from "../postgres/database.ts"
import { desksTable, projectsTable, roomsTable } from "../postgres/schema.ts"
import { bookingSlotsTable } from "../postgres/tables/bookings.ts"
import type { Services } from "../wiring/services.ts"
import { formatOffsetDateTime } from "../../core/shared/local-time.ts"
import { priceOf } from "./pricing-glue.ts"

/** Rooms and desks: searches with availability, detail with the booking calendar. */

export type RoomRow = typeof roomsTable.$inferSelect
export type DeskRow = typeof desksTable.$inferSelect
export interface ProjectInfo {
  readonly id: string
  readonly timezone: string
  readonly brandId: string
}

/** The stored config, decoded by the core schema; the manifest validated it on the way in. */
export const assetConfigOf = (raw: unknown): AssetConfig | undefined => {
  const r = decodeAssetConfig(raw ?? {})
  return Result.isSuccess(r) ? r.success : undefined
}

export const projectsById = async (q: Queryable, ids: ReadonlyArray<string>): Promise<Map<string, ProjectInfo>> => {
  if (ids.length === 0) return new Map()
  const rows = await q
    .select({ id: projectsTable.id, timezone: projectsTable.timezone, brandId: projectsTable.brandId })
    .from(projectsTable)
    .where(inArray(projectsTable.id, [...new Set(ids)]))
  return new Map(rows.map((r) => [r.id, r]))
}

/** An explicit projectId outside the caller's projects is refused (403), never searched. */
export const requireProjectScope = (principal: Principal, projectId: string) => {
  if (!canSeeProject(principal, projectId))
    throw new Forbidden({ reason: "the projectId is not one of this app's projects" })
}

const assetBase = (row: RoomRow | DeskRow, project: ProjectInfo | undefined) => ({
  _id: row.id,
  name: row.name,
  email: row.email ?? "",
  capacity: row.capacity,
  status: row.status,
  brandId: project?.brandId ?? "",
  projectId: row.projectId,
  zoneId: row.zoneId,
  floorId: row.floorId,
  isPublic: row.isPublic,
  facilities: row.facilities,
  pictureUrls: row.pictureUrls,
})

export const roomView = (
  row: RoomRow,
  project: ProjectInfo | undefined,
  extra: { amount?: number | undefined; unavailableReason?: string | undefined } = {},
) => ({
  ...assetBase(row, project),
  type: row.type,
  equipmentsAvailability: row.equipmentsAvailability,
  chargeRate: { ...row.chargeRate, ...(extra.amount === undefined ? {} : { amount: extra.amount }) },
  config: row.config,
  ...(extra.unavailableReason === undefined ? {} : { unavailableReason: extra.unavailableReason }),
  createdAt: row.createdAt.toISOString(),
  updatedAt: row.updatedAt.toISOString(),
})

export const deskView = (row: DeskRow, project: ProjectInfo | undefined) => ({
  ...assetBase(row, project),
  index: row.index,
  chargeRate: row.chargeRate,
  config: row.config,
  createdAt: row.createdAt.toISOString(),
  updatedAt: row.updatedAt.toISOString(),
})

/** Spec locationId has no model of its own here: it matches the zone or the floor. */
const locationMatch = (zone: SQL | undefined, floor: SQL | undefined) => or(zone, floor)

const escapeLike = (text: string) => text.replace(/[\\%_]/g, (c) => `\\${c}`)

export interface RoomSearch {
  readonly projectId: string
  readonly zoneId?: string | undefined
  readonly floorId?: string | undefined
  readonly locationId?: string | undefined
  readonly ids?: ReadonlyArray<string> | undefined
  readonly name?: string | undefined
  readonly status?: ReadonlyArray<string> | undefined
  readonly type?: string | undefined
  readonly minCapacity?: number | undefined
  readonly window?: { readonly start: number; readonly end: number } | undefined
}

/**
 * GET /meeting-rooms. With a window: rooms holding a live booking that overlaps it are
 * dropped, and so are rooms that cannot be booked for it for a cause the spec has no reason
 * value for (core searchVerdict: status, past, lead time, advance window, duration, multi-day);
 * free rooms outside their hours or in a break carry unavailableReason; chargeRate.amount is
 * the window's price.
 */
export const searchRooms = async (s: Services, principal: Principal, f: RoomSearch) => {
  requireProjectScope(principal, f.projectId)
  const db = s.database.db
  const conditions: SQL[] = [eq(roomsTable.projectId, f.projectId)]
  if (f.zoneId) conditions.push(eq(roomsTable.zoneId, f.zoneId))
  if (f.floorId) conditions.push(eq(roomsTable.floorId, f.floorId))
  if (f.locationId)
    conditions.push(locationMatch(eq(roomsTable.zoneId, f.locationId), eq(roomsTable.floorId, f.locationId))!)
  if (f.ids) conditions.push(f.ids.length > 0 ? inArray(roomsTable.id, [...f.ids]) : eq(roomsTable.id, ""))
  if (f.name) conditions.push(ilike(roomsTable.name, `%${escapeLike(f.name)}%`))
  if (f.status && f.status.length > 0) conditions.push(inArray(roomsTable.status, [...f.status]))
  if (f.type) conditions.push(eq(roomsTable.type, f.type))
  if (f.minCapacity !== undefined) conditions.push(gte(roomsTable.capacity, f.minCapacity))
  // Busy rooms are dropped in SQL: only the rooms answered are read, parsed and mapped.
  if (f.window) {
    const busy = liveOverlap(roomsTable.id, timestamp(f.window.start), timestamp(f.window.end))
    conditions.push(sql`not ${busy}`)
  }
  const rooms = await db
    .select()
    .from(roomsTable)
    .where(and(...conditions))
    .orderBy(asc(roomsTable.name), asc(roomsTable.id))
  const project = (await projectsById(db, [f.projectId])).get(f.projectId)
  if (!f.window) return rooms.map((r) => roomView(r, project))
  const { start, end } = f.window
  const tz = project?.timezone ?? "UTC"
  // Price and reason depend only on the rate or config (the window and zone are fixed), and
  // rooms mostly share a few of each: evaluate once per distinct value, not once per room.
  const prices = memoByJson((rate: RoomRow["chargeRate"]) => priceOf(rate, start, end, tz).total)
  const now = s.clock.now()
  const verdicts = memoByJson(([config, status]: [unknown, string]) =>
    searchVerdict(assetConfigOf(config), tz, start, end, now, "room", status),
  )
  return rooms.flatMap((r) => {
    const verdict = verdicts([r.config, r.status])
    if (verdict._tag === "LeftOut") return []
    return [roomView(r, project, { amount: prices(r.chargeRate), unavailableReason: verdict.reason })]
  })
}

/** One evaluation per distinct JSON value, for the life of one request. */
const memoByJson = <A, B>(f: (a: A) => B) => {
  const seen = new Map<string, B>()
  return (a: A): B => {
    const key = JSON.stringify(a)
    if (seen.has(key)) return seen.get(key)!
    const b = f(a)
    seen.set(key, b)
    return b
  }
}

export interface DeskSearch {
  readonly projectId?: string | undefined
  readonly brandId?: string | undefined
  readonly zoneId?: string | undefined
  readonly floorId?: string | undefined
  readonly locationId?: string | undefined
  readonly ids?: ReadonlyArray<string> | undefined
  readonly name?: string | undefined
  readonly email?: string | undefined
  readonly statuses?: ReadonlyArray<string> | undefined
  readonly availability?:
    | { readonly start: number; readonly end?: number | undefined; readonly timePeriod?: TimePeriod | undefined }
    | undefined
  readonly limit: number
  readonly offset: number
}

/**
 * GET /desks. Filters run in SQL; availability then drops every desk with a live booking
 * overlapping the window (a timePeriod is resolved against each desk's own hours, and a desk
 * with no such period that day is not free either) and every desk that cannot be booked for
 * its window (core searchVerdict), and meta.total counts what is left.
 */
export const searchDesks = async (s: Services, principal: Principal, f: DeskSearch) => {
  if (f.projectId) requireProjectScope(principal, f.projectId)
  const db = s.database.db
  const projectIds = f.projectId ? [f.projectId] : [...principal.projectIds]
  if (projectIds.length === 0) return { data: [], total: 0 }
  const conditions: SQL[] = [inArray(desksTable.projectId, projectIds)]
  if (f.brandId)
    conditions.push(
      inArray(
        desksTable.projectId,
        db.select({ id: projectsTable.id }).from(projectsTable).where(eq(projectsTable.brandId, f.brandId)),
      ),
    )
  if (f.zoneId) conditions.push(eq(desksTable.zoneId, f.zoneId))
  if (f.floorId) conditions.push(eq(desksTable.floorId, f.floorId))
  if (f.locationId)
    conditions.push(locationMatch(eq(desksTable.zoneId, f.locationId), eq(desksTable.floorId, f.locationId))!)
  if (f.ids) conditions.push(f.ids.length > 0 ? inArray(desksTable.id, [...f.ids]) : eq(desksTable.id, ""))
  if (f.name) conditions.push(ilike(desksTable.name, `%${escapeLike(f.name)}%`))
  if (f.email) conditions.push(ilike(desksTable.email, escapeLike(f.email)))
  if (f.statuses && f.statuses.length > 0) conditions.push(inArray(desksTable.status, [...f.statuses]))
  const a = f.availability
  if (a) {
    if (a.end !== undefined || a.timePeriod !== undefined) {
      const filters = and(...conditions)!
      const { periods, groups } = await bookableWindows(db, filters, a, s.clock.now())
      // No desk can be booked for the window (or has that period on the day): none is offered.
      if (periods.length === 0) return { data: [], total: 0 }
      const [first] = periods
      // Every desk resolved the same window (the usual case: one shared config): a plain
      // window filter, without matching each desk's config against the groups.
      const oneWindow =
        periods.length === groups &&
        periods.every((p) => p.start_at === first!.start_at && p.end_at === first!.end_at)
      conditions.push(
        oneWindow
          ? freeDuring(Date.parse(first!.start_at), Date.parse(first!.end_at))
          : freeDuringPeriods(periods),
      )
    }
    // Neither an end nor a period: no desk has a window to be free in.
    else return { data: [], total: 0 }
  }
  const where = and(...conditions)
  const order = [asc(desksTable.index), asc(desksTable.name), asc(desksTable.id)]
  // The page and meta.total both come from SQL: a page costs a page, not every desk. The page
  // is picked by sorting only the sort keys and ids (whole rows spilled the sort to disk),
  // then its rows are read by primary key.
  const pageIds = db.select({ id: desksTable.id }).from(desksTable).where(where).orderBy(...order)
  const [desks, [count], projects] = await Promise.all([
    f.limit === 0
      ? Promise.resolve([] as DeskRow[])
      : db
          .select()
          .from(desksTable)
          .where(inArray(desksTable.id, pageIds.limit(f.limit).offset(f.offset)))
          .orderBy(...order),
    db.select({ n: sql<number>`count(*)::int` }).from(desksTable).where(where),
    projectsById(db, projectIds),
  ])
  return {
    data: desks.map((d) => deskView(d, projects.get(d.projectId))),
    total: Number(count?.n ?? 0),
  }
}

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

/** Free in one window for every desk; an empty window overlaps nothing, so every desk is free. */
const freeDuring = (start: number, end: number): SQL =>
  end > start ? sql`not ${liveOverlap(desksTable.id, timestamp(start), timestamp(end))}` : sql`true`

interface PeriodWindow {
  readonly project_id: string
  readonly config: unknown
  readonly status: string
  readonly start_at: string
  readonly end_at: string
}

/**
 * The window each desk is searched in, and whether it can be booked in it: a timePeriod
 * resolves against the desk's own hours, and the core searchVerdict judges the window by the
 * desk's status and config, so both depend on (project time zone, config, status). Desks mostly
 * share a few of those: judge once per distinct triple, not per desk. Desks with no such period
 * that day, or that cannot be booked for their window, get no window and are left out; paging
 * and meta.total then stay in SQL.
 */
const bookableWindows = async (
  db: Queryable,
  where: SQL,
  window: { readonly start: number; readonly end?: number | undefined; readonly timePeriod?: TimePeriod | undefined },
  now: number,
): Promise<{ periods: PeriodWindow[]; groups: number }> => {
  const groups = await db
    .selectDistinct({ projectId: desksTable.projectId, config: desksTable.config, status: desksTable.status })
    .from(desksTable)
    .where(where)
  if (groups.length === 0) return { periods: [], groups: 0 }
  const projects = await projectsById(db, groups.map((g) => g.projectId))
  const out: PeriodWindow[] = []
  for (const g of groups) {
    const tz = projects.get(g.projectId)?.timezone ?? "UTC"
    const config = assetConfigOf(g.config)
    let start = window.start
    let end = window.end ?? window.start
    if (window.end === undefined && window.timePeriod !== undefined) {
      const r = resolveTimePeriod(config, tz, window.start, window.timePeriod)
      if (Result.isFailure(r)) continue
      ;({ start, end } = r.success)
    }
    if (searchVerdict(config, tz, start, end, now, "desk", g.status)._tag === "LeftOut") continue
    out.push({
      project_id: g.projectId,
      config: g.config,
      status: g.status,
      start_at: new Date(start).toISOString(),
      end_at: new Date(end).toISOString(),
    })
  }
  return { periods: out, groups: groups.length }
}

/**
 * Desks whose (project, config, status) got a window, free in that window. The windows travel
 * as one jsonb parameter, so any number of distinct configs is one statement.
 */
const freeDuringPeriods = (periods: ReadonlyArray<PeriodWindow>): SQL =>
  sql`exists (select 1 from jsonb_to_recordset(${JSON.stringify(periods)}::jsonb)
      as w(project_id text, config jsonb, status text, start_at timestamptz, end_at timestamptz)
    where w.project_id = ${desksTable.projectId} and w.config = ${desksTable.config}
      and w.status = ${desksTable.status}
      and (w.end_at <= w.start_at
        or not ${liveOverlap(desksTable.id, sql`w.start_at`, sql`w.end_at`)}))`

/** A room or desk by id, inside the caller's projects; other projects' ids are "not found". */
export const findAsset = async (
  q: Queryable,
  principal: Principal | undefined,
  kind: AssetKind,
  id: string,
): Promise<{ room?: RoomRow; desk?: DeskRow; row: RoomRow | DeskRow; project: ProjectInfo }> => {
  const table = kind === "room" ? roomsTable : desksTable
  const [row] = await q.select().from(table).where(eq(table.id, id)).limit(1)
  if (!row || (principal && !canSeeProject(principal, row.projectId)))
    throw new NotFound({ entity: kind === "room" ? "meetingRoom" : "desk", id })
  const project = (await projectsById(q, [row.projectId])).get(row.projectId)!
  return kind === "room"
    ? { room: row as RoomRow, row, project }
    : { desk: row as DeskRow, row, project }
}

type FoundAsset = Awaited<ReturnType<typeof findAsset>>

/**
 * findAsset through the process's asset cache: rows and projects change only through the
 * manifest, and any change empties the cache on every process before their next request
 * (postgres/cache-epoch.ts). Call after `s.caches.sync()` (the bearer middleware does).
 */
export const findAssetCached = async (
  s: Services,
  principal: Principal | undefined,
  kind: AssetKind,
  id: string,
): Promise<FoundAsset> => {
  const found = await s.caches
    .cache<string, FoundAsset>("assets", { max: 10_000 })
    .getOrLoad(`${kind}:${id}`, () =>
      findAsset(s.database.db, undefined, kind, id).catch((e: unknown) => (e instanceof NotFound ? undefined : Promise.reject(e))),
    )
  if (!found || (principal && !canSeeProject(principal, found.row.projectId)))
    throw new NotFound({ entity: kind === "room" ? "meetingRoom" : "desk", id })
  return found
}

const DAY_MS = 86_400_000
const CALENDAR_MAX = 1000

/**
 * The asset's booking calendar: busy intervals of live bookings overlapping the window
 * (default: now to 30 days ahead), without titles or people, since any caller of the project
 * may read an asset.
 */
export const assetDetail = async (
  s: Services,
  principal: Principal,
  kind: AssetKind,
  id: string,
  range: { from?: number | undefined; to?: number | undefined },
) => {
  const db = s.database.db
  const asset = await findAsset(db, principal, kind, id)
  const from = range.from ?? s.clock.now()
  const to = range.to ?? from + 30 * DAY_MS
  const slots = to > from ? await assetCalendar(db, id, from, to, CALENDAR_MAX) : []
  const tz = asset.project.timezone
  const calendar = slots.map((slot) => ({
    meetingId: slot.bookingId,
    startDateTime: formatOffsetDateTime(slot.startAt.getTime(), tz),
    endDateTime: formatOffsetDateTime(slot.endAt.getTime(), tz),
    status: slot.status,
  }))
  const view = asset.room ? roomView(asset.room, asset.project) : deskView(asset.desk!, asset.project)
  return {
    ...view,
    calendar: {
      from: formatOffsetDateTime(from, tz),
      to: formatOffsetDateTime(Math.max(from, to), tz),
      bookings: calendar,
    },
  }
}
