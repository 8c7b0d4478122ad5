import { and, asc, eq, gte, ilike, inArray, or, type SQL } from "drizzle-orm"
import { Result } from "effect"
import { decodeAssetConfig, type AssetConfig } from "../../core/booking/asset-config.ts"
import { resolveTimePeriod, unavailableReason, type TimePeriod } from "../../core/booking/asset-rules.ts"
import type { AssetKind } from "../../core/booking/state.ts"
import { canSeeProject, type Principal } from "../../core/auth/principal.ts"
import * as Interval from "../../core/shared/interval.ts"
import { Forbidden, NotFound } from "../../core/shared/errors.ts"
import { assetCalendar, liveSlotsOverlapping } from "../postgres/booking-repo.ts"
import type { Queryable } from "../postgres/database.ts"
import { desksTable, projectsTable, roomsTable } from "../postgres/schema.ts"
import type { Services } from "../runtime/services.ts"
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

const window = (start: number, end: number) => Interval.make(start, end)

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
 * dropped; free rooms the configuration does not allow for the window carry
 * unavailableReason; chargeRate.amount is the window's price.
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
  const rooms = await db
    .select()
    .from(roomsTable)
    .where(and(...conditions))
    .orderBy(asc(roomsTable.name), asc(roomsTable.id))
  const project = (await projectsById(db, [f.projectId])).get(f.projectId)
  if (!f.window) return rooms.map((r) => roomView(r, project))
  const { start, end } = f.window
  const busy = new Set(
    (await liveSlotsOverlapping(db, rooms.map((r) => r.id), start, end)).map((slot) => slot.assetId),
  )
  return rooms
    .filter((r) => !busy.has(r.id))
    .map((r) =>
      roomView(r, project, {
        amount: priceOf(r.chargeRate, start, end, project?.timezone ?? "UTC").total,
        unavailableReason: unavailableReason(assetConfigOf(r.config), project?.timezone ?? "UTC", start, end),
      }),
    )
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
 * with no such period that day is not free either), and meta.total counts what is left.
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
  let desks = await db
    .select()
    .from(desksTable)
    .where(and(...conditions))
    .orderBy(asc(desksTable.index), asc(desksTable.name), asc(desksTable.id))
  const projects = await projectsById(db, projectIds)
  const a = f.availability
  if (a) {
    const wanted = new Map<string, Interval.Interval>()
    for (const d of desks) {
      const tz = projects.get(d.projectId)?.timezone ?? "UTC"
      if (a.end !== undefined) wanted.set(d.id, window(a.start, a.end))
      else if (a.timePeriod !== undefined) {
        const r = resolveTimePeriod(assetConfigOf(d.config), tz, a.start, a.timePeriod)
        if (Result.isSuccess(r)) wanted.set(d.id, r.success)
      }
    }
    const spans = [...wanted.values()]
    const lo = Math.min(...spans.map((w) => w.start))
    const hi = Math.max(...spans.map((w) => w.end))
    const slots = spans.length === 0 ? [] : await liveSlotsOverlapping(db, [...wanted.keys()], lo, hi)
    const busy = new Set(
      slots
        .filter((slot) => {
          const w = wanted.get(slot.assetId)
          return w !== undefined && Interval.overlaps(w, window(slot.startAt.getTime(), slot.endAt.getTime()))
        })
        .map((slot) => slot.assetId),
    )
    desks = desks.filter((d) => wanted.has(d.id) && !busy.has(d.id))
  }
  return {
    data: desks.slice(f.offset, f.offset + f.limit).map((d) => deskView(d, projects.get(d.projectId))),
    total: desks.length,
  }
}

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
