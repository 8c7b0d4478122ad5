import { Hono } from "hono"
import { Result, Schema } from "effect"
import { ObjectId } from "../../../core/shared/ids.ts"
import { parseOffsetDateTime } from "../../../core/shared/local-time.ts"
import { ValidationFailed } from "../../../core/shared/errors.ts"
import { assetDetail, searchRooms } from "../../bookings/asset-queries.ts"
import type { Services } from "../../wiring/services.ts"
import type { AppEnv } from "../app-env.ts"
import { ok } from "../envelope.ts"
import { CalendarQuery, LIST_ROOMS_ARRAY_KEYS, ListRoomsQuery, roomQueryCrossErrors } from "../schemas/asset-queries.ts"
import { decodeWithCrossRules } from "../schemas/meeting-requests.ts"
import { decodeOrFail, readQuery } from "../validation.ts"

const IdParam = Schema.Struct({ id: ObjectId })

/** A validated offset date-time as epoch ms (minute-truncated). */
export const instantOf = (text: string | undefined): number | undefined => {
  if (text === undefined) return undefined
  const r = parseOffsetDateTime(text)
  return Result.isSuccess(r) ? r.success : undefined
}

/** A window whose end is not after its start is refused, not silently empty. */
export const windowOf = (start: number, end: number, names = "endDateTime") => {
  if (!(end > start)) throw new ValidationFailed({ messages: [`${names}: must be after startDateTime`] })
  return { start, end }
}

/** GET /meeting-rooms and GET /meeting-rooms/{id} (spec Endpoints > Meeting rooms). */
export const meetingRoomRoutes = (s: Services) =>
  new Hono<AppEnv>()
    .get("/", async (c) => {
      const q = decodeWithCrossRules(ListRoomsQuery, readQuery(c, LIST_ROOMS_ARRAY_KEYS), roomQueryCrossErrors)
      const start = instantOf(q.startDateTime)
      const end = instantOf(q.endDateTime)
      const rooms = await searchRooms(s, c.get("principal"), {
        projectId: q.projectId,
        zoneId: q.zoneId,
        floorId: q.floorId,
        locationId: q.locationId,
        ids: q.ids,
        name: q.name,
        status: q.status,
        type: q.type,
        minCapacity: q.minCapacity === undefined ? undefined : Number(q.minCapacity),
        window: start !== undefined && end !== undefined ? windowOf(start, end) : undefined,
      })
      return ok(c, rooms)
    })
    .get("/:id", async (c) => {
      const { id } = decodeOrFail(IdParam, { id: c.req.param("id") })
      const q = decodeOrFail(CalendarQuery, readQuery(c))
      return ok(c, await assetDetail(s, c.get("principal"), "room", id, { from: instantOf(q.from), to: instantOf(q.to) }))
    })
