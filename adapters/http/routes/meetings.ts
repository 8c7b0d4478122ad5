import { Effect, Schema } from "effect"
import { Hono, type Context } from "hono"
import { Bookings } from "../../../core/booking/bookings.ts"
import type { MeetingAction } from "../../../core/booking/commands.ts"
import { Meetings, type MeetingQuery } from "../../../core/booking/meeting-queries.ts"
import { ObjectId } from "../../../core/shared/ids.ts"
import { meetingListingBytes, shownMeetingView } from "../views/meeting-view.ts"
import type { HttpDeps } from "../http-deps.ts"
import type { AppEnv } from "../app-env.ts"
import { ok } from "../envelope.ts"
import { decodedQueries } from "../decoded-queries.ts"
import { keptAnswers } from "../kept-answers.ts"
import { makeRun } from "../run.ts"
import {
  CreateMeetingRequest,
  createMeetingCrossErrors,
  createMeetingRuleErrors,
  decodeWithCrossRules,
  LIST_MEETINGS_ARRAY_KEYS,
  ListMeetingsQuery,
  MeetingActionRequest,
  toCreateMeeting,
  toUpdateMeeting,
  UpdateMeetingRequest,
  updateMeetingCrossErrors,
} from "../schemas/meeting-requests.ts"
import { decodeOrFail, readJson, readQuery } from "../validation.ts"
import { meetingDetailsView } from "../views/meeting-details.ts"
import { instantAt } from "./meeting-rooms.ts"

const IdParam = Schema.Struct({ id: ObjectId })

/** Spec Endpoints > Meetings. The three actions answer 202 with the Meeting. */
export const meetingRoutes = (s: HttpDeps) => {
  const run = makeRun(s.runtime, s)
  // Resolved once: a write handler does no service lookup.
  const bookings = s.runtime.runSync(Effect.service(Bookings))
  const action = (tag: "Cancel" | "CheckIn" | "CheckOut") => async (c: Context<AppEnv>) => {
    const { id } = decodeOrFail(IdParam, { id: c.req.param("id") })
    const body = decodeOrFail(MeetingActionRequest, await readJson(c, { optional: true }))
    const named = { pinCode: body.pinCode, occurrenceEventId: body.occurrenceEventId }
    const a: MeetingAction = tag === "Cancel" ? { _tag: tag, ...named, paymentId: body.paymentId } : { _tag: tag, ...named }
    return run(c, bookings.act(c.get("principal"), id, a), (d) => ok(c, meetingDetailsView(d), { status: 202 }))
  }
  const answers = keptAnswers(s, "meeting-answers")
  const listing = decodedQueries((c) => {
    const q = decodeOrFail(ListMeetingsQuery, readQuery(c, LIST_MEETINGS_ARRAY_KEYS))
    const limit = q.limit === undefined ? s.config.defaultPageSize : Number(q.limit)
    const offset = q.offset === undefined ? 0 : Number(q.offset)
    // A single id and a list of ids are one filter each (a union of the two).
    const ids = (one: string | undefined, many: ReadonlyArray<string> | undefined) =>
      one !== undefined || many !== undefined ? [...(one === undefined ? [] : [one]), ...(many ?? [])] : undefined
    const query: MeetingQuery = {
      projectId: q.projectId,
      from: instantAt(q.from, "from"),
      to: instantAt(q.to, "to"),
      roomIds: ids(q.meetingRoomId, q.meetingRoomIds),
      deskIds: ids(q.deskId, q.deskIds),
      organizerId: q.organizerId,
      organizerEmails: q.organizerEmails,
      attendeeEmails: q.attendeeEmails,
      statuses: q.statuses,
      assetType: q.assetType,
      limit,
      offset,
    }
    return { query, limit, offset }
  })
  return new Hono<AppEnv>()
    .post("/", async (c) => {
      const req = decodeWithCrossRules(CreateMeetingRequest, await readJson(c), createMeetingCrossErrors, createMeetingRuleErrors)
      return run(c, bookings.create(c.get("principal"), toCreateMeeting(req)), (r) =>
        r._tag === "Created"
          ? ok(c, meetingDetailsView(r.meeting), { status: 201, message: "Created" })
          : ok(c, r.preview, { message: "Draft: nothing was created" }),
      )
    })
    .get("/", (c) => {
      const { query, limit, offset } = listing(c)
      return answers(
        c,
        Meetings.use((m) => m.list(c.get("principal"), query)),
        // Keyed by the query: the same page polled between commits resends its bytes.
        ({ data, total }) => meetingListingBytes(c.req.url, data, { limit, offset, total }),
      )
    })
    .get("/:id", (c) => {
      const { id } = decodeOrFail(IdParam, { id: c.req.param("id") })
      return run(
        c,
        Meetings.use((m) => m.get(c.get("principal"), id)),
        (m) => ok(c, shownMeetingView(m)),
      )
    })
    .patch("/:id", async (c) => {
      const { id } = decodeOrFail(IdParam, { id: c.req.param("id") })
      const req = decodeWithCrossRules(UpdateMeetingRequest, await readJson(c), updateMeetingCrossErrors)
      return run(c, bookings.update(c.get("principal"), id, toUpdateMeeting(req)), (r) =>
        r._tag === "Updated"
          ? ok(c, meetingDetailsView(r.meeting))
          : ok(c, r.preview, { message: "Draft: nothing was changed" }),
      )
    })
    .post("/:id/cancel", action("Cancel"))
    .post("/:id/check-in", action("CheckIn"))
    .post("/:id/check-out", action("CheckOut"))
}
