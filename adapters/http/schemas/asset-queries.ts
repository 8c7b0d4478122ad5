import { Result, Schema } from "effect"
import { Characters } from "../../../core/shared/characters.ts"
import { ObjectId } from "../../../core/shared/ids.ts"
import { parseOffsetDateTime } from "../../../core/shared/local-time.ts"
import { OffsetDateTime, QueryInt, TimePeriod } from "./meeting-requests.ts"

/** Query shapes of GET /meeting-rooms and GET /desks (spec Endpoints: Meeting rooms, Desks). */

const Name = Characters(0, 200)

export const ListRoomsQuery = Schema.Struct({
  projectId: ObjectId,
  zoneId: Schema.optionalKey(ObjectId),
  floorId: Schema.optionalKey(ObjectId),
  locationId: Schema.optionalKey(ObjectId),
  ids: Schema.optionalKey(Schema.Array(ObjectId)),
  name: Schema.optionalKey(Name),
  status: Schema.optionalKey(Schema.Array(Schema.Literals(["active", "inactive"]))),
  type: Schema.optionalKey(Schema.Literals(["normal", "bedroom"])),
  minCapacity: Schema.optionalKey(QueryInt(1, 1_000_000)),
  startDateTime: Schema.optionalKey(OffsetDateTime),
  endDateTime: Schema.optionalKey(OffsetDateTime),
})
export type ListRoomsQuery = typeof ListRoomsQuery.Type
export const LIST_ROOMS_ARRAY_KEYS = ["ids", "status"] as const

export const DESK_STATUSES = ["active", "inactive", "in-used", "reserved", "suspended"] as const

export const ListDesksQuery = Schema.Struct({
  projectId: Schema.optionalKey(ObjectId),
  brandId: Schema.optionalKey(ObjectId),
  zoneId: Schema.optionalKey(ObjectId),
  floorId: Schema.optionalKey(ObjectId),
  locationId: Schema.optionalKey(ObjectId),
  ids: Schema.optionalKey(Schema.Array(ObjectId)),
  name: Schema.optionalKey(Name),
  email: Schema.optionalKey(Name),
  status: Schema.optionalKey(Schema.Literals(DESK_STATUSES)),
  statuses: Schema.optionalKey(Schema.Array(Schema.Literals(DESK_STATUSES))),
  startDateTime: Schema.optionalKey(OffsetDateTime),
  endDateTime: Schema.optionalKey(OffsetDateTime),
  timePeriod: Schema.optionalKey(TimePeriod),
  limit: Schema.optionalKey(QueryInt(0, 3000)),
  offset: Schema.optionalKey(QueryInt(0, 1_000_000_000)),
})
export type ListDesksQuery = typeof ListDesksQuery.Type
export const LIST_DESKS_ARRAY_KEYS = ["ids", "statuses"] as const

/**
 * THE window-order rule of the query strings (rooms, desks, calendars): both ends well formed and
 * the end not after the start. Checked on the raw query, so it is reported with the query's other
 * faults.
 */
const endsBefore = (start: unknown, end: unknown): boolean => {
  if (typeof start !== "string" || typeof end !== "string") return false
  const from = parseOffsetDateTime(start)
  const to = parseOffsetDateTime(end)
  return Result.isSuccess(from) && Result.isSuccess(to) && !(to.success > from.success)
}

/** Optional window of an asset's booking calendar (GET /meeting-rooms/{id}, /desks/{id}). */
export const CalendarQuery = Schema.Struct({
  from: Schema.optionalKey(OffsetDateTime),
  to: Schema.optionalKey(OffsetDateTime),
}).check(
  // As every other window: one whose end is not after its start is refused, not silently empty.
  Schema.makeFilter((q) => (endsBefore(q.from, q.to) ? { path: ["to"], issue: "must be after from" } : undefined)),
)

const present = (raw: Record<string, unknown>, key: string) => raw[key] !== undefined

/** A window whose end is not after its start, when both ends are well-formed date-times. */
const windowOrderErrors = (raw: Record<string, unknown>): string[] =>
  endsBefore(raw["startDateTime"], raw["endDateTime"]) ? ["endDateTime: must be after startDateTime"] : []

/** Rooms: a window is startDateTime and endDateTime together. */
export const roomQueryCrossErrors = (raw: Record<string, unknown>): string[] =>
  present(raw, "startDateTime") !== present(raw, "endDateTime")
    ? ["startDateTime, endDateTime: an availability window needs both startDateTime and endDateTime"]
    : windowOrderErrors(raw)

/** Desks: startDateTime plus exactly one of endDateTime or timePeriod. */
export const deskQueryCrossErrors = (raw: Record<string, unknown>): string[] => {
  const start = present(raw, "startDateTime")
  const end = present(raw, "endDateTime")
  const period = present(raw, "timePeriod")
  if (!start && !end && !period) return []
  if (!start) return ["startDateTime: is required with endDateTime or timePeriod"]
  if (end === period)
    return ["endDateTime, timePeriod: an availability window takes exactly one of endDateTime or timePeriod"]
  return windowOrderErrors(raw)
}
