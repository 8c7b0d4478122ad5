import { Hono } from "hono"
import { Result, Schema } from "effect"
import { roomRef } from "../../../core/booking/asset.ts"
import { Assets } from "../../../core/booking/assets.ts"
import { ObjectId } from "../../../core/shared/ids.ts"
import { parseOffsetDateTime } from "../../../core/shared/local-time.ts"
import { ValidationFailed } from "../../../core/shared/errors.ts"
import type { HttpDeps } from "../http-deps.ts"
import type { AppEnv } from "../app-env.ts"
import { ok } from "../envelope.ts"
import { decodedQueries } from "../decoded-queries.ts"
import { keptAnswers } from "../kept-answers.ts"
import { makeRun } from "../run.ts"
import { CalendarQuery, LIST_ROOMS_ARRAY_KEYS, ListRoomsQuery, roomQueryCrossErrors } from "../schemas/asset-queries.ts"
import { decodeWithCrossRules } from "../schemas/meeting-requests.ts"
import { decodeOrFail, readQuery } from "../validation.ts"
import { assetDetailView, roomListingBytes } from "../views/asset-view.ts"

const IdParam = Schema.Struct({ id: ObjectId })

/** A validated offset date-time as epoch ms (minute-truncated). */
export const instantOf = (text: string | undefined): number | undefined => {
  if (text === undefined) return undefined
  const r = parseOffsetDateTime(text)
  return Result.isSuccess(r) ? r.success : undefined
}

/** A required offset date-time the schema already validated, as epoch ms. */
export const instantAt = (text: string, field: string): number => {
  const r = parseOffsetDateTime(text)
  if (Result.isFailure(r)) throw new ValidationFailed({ messages: [`${field}: must be an ISO 8601 date-time with an offset`] })
  return r.success
}

/** GET /meeting-rooms and GET /meeting-rooms/{id} (spec Endpoints > Meeting rooms). */
export const meetingRoomRoutes = (s: HttpDeps) => {
  const run = makeRun(s.runtime, s)
  // A window's verdict per room reads the clock (lead time, days ahead).
  const answers = keptAnswers(s, "room-answers", { bySecond: true })
  const listing = decodedQueries((c) => {
    const q = decodeWithCrossRules(ListRoomsQuery, readQuery(c, LIST_ROOMS_ARRAY_KEYS), roomQueryCrossErrors)
    const start = instantOf(q.startDateTime)
    const end = instantOf(q.endDateTime)
    const search = {
      projectId: q.projectId,
      zoneId: q.zoneId,
      floorId: q.floorId,
      locationId: q.locationId,
      ids: q.ids,
      name: q.name,
      status: q.status,
      type: q.type,
      minCapacity: q.minCapacity === undefined ? undefined : Number(q.minCapacity),
      // An inverted window was refused with the query's cross rules (asset-queries.ts).
      window: start !== undefined && end !== undefined ? { start, end } : undefined,
    }
    return { search }
  })
  return new Hono<AppEnv>()
    .get("/", (c) => {
      const { search } = listing(c)
      return answers(
        c,
        Assets.use((a) => a.searchRooms(c.get("principal"), search)),
        // Keyed by the query: the same search polled again reuses its bytes when nothing changed.
        (rooms) => roomListingBytes(c.req.url, rooms),
      )
    })
    .get("/:id", (c) => {
      const { id } = decodeOrFail(IdParam, { id: c.req.param("id") })
      const q = decodeOrFail(CalendarQuery, readQuery(c))
      const range = { from: instantOf(q.from), to: instantOf(q.to) }
      return run(
        c,
        Assets.use((a) => a.detail(c.get("principal"), roomRef(id), range)),
        (d) => ok(c, assetDetailView(d)),
      )
    })
}
