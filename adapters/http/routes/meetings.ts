import { Effect } from "effect"
import { Hono, type Context } from "hono"
import { Bookings } from "../../../core/booking/bookings.ts"
import type { MeetingAction } from "../../../core/booking/commands.ts"
import { ObjectId } from "../../../core/shared/ids.ts"
import { getMeeting, listMeetings } from "../../bookings/booking-service.ts"
import type { Services } from "../../wiring/services.ts"
import type { AppEnv } from "../app-env.ts"
import { ok } from "../envelope.ts"
import { makeRun } from "../run.ts"
import {
  CreateMeetingRequest,
  createMeetingCrossErrors,
  decodeWithCrossRules,
  LIST_MEETINGS_ARRAY_KEYS,
  ListMeetingsQuery,
  MeetingActionRequest,
  toCreateMeeting,
  toUpdateMeeting,
  UpdateMeetingRequest,
  updateMeetingCrossErrors,
} from "../schemas/meeting-requests.ts"
import { meetingDetailsView } from "../views/meeting-details.ts"
import { decodeOrFail, readJson, readQuery } from "../validation.ts"
import { Schema } from "effect"

const IdParam = Schema.Struct({ id: ObjectId })

/** Spec Endpoints > Meetings. The three actions answer 202 with the Meeting. */
export const meetingRoutes = (s: Services) => {
  const run = makeRun(s.runtime, s.logger)
  // Resolved once: a handler does no service lookup.
  const bookings = s.runtime.runSync(Effect.service(Bookings))
  const action = (tag: "Cancel" | "CheckIn" | "CheckOut") => async (c: Context<AppEnv>) => {
    const { id } = decodeOrFail(IdParam, { id: c.req.param("id") })
    const body = decodeOrFail(MeetingActionRequest, await readJson(c, { optional: true }))
    const a: MeetingAction =
      tag === "Cancel" ? { _tag: tag, pinCode: body.pinCode, paymentId: body.paymentId } : { _tag: tag, pinCode: body.pinCode }
    return run(c, bookings.act(c.get("principal"), id, a), (d) => ok(c, meetingDetailsView(d), { status: 202 }))
  }
  return new Hono<AppEnv>()
    .post("/", async (c) => {
      const req = decodeWithCrossRules(CreateMeetingRequest, await readJson(c), createMeetingCrossErrors)
      return run(c, bookings.create(c.get("principal"), toCreateMeeting(req)), (r) =>
        r._tag === "Created"
          ? ok(c, meetingDetailsView(r.meeting), { status: 201, message: "Created" })
          : ok(c, r.preview, { message: "Draft: nothing was created" }),
      )
    })
    .get("/", async (c) => {
      const q = decodeOrFail(ListMeetingsQuery, readQuery(c, LIST_MEETINGS_ARRAY_KEYS))
      const { data, meta } = await listMeetings(s, c.get("principal"), q)
      return ok(c, data, { meta })
    })
    .get("/:id", async (c) => {
      const { id } = decodeOrFail(IdParam, { id: c.req.param("id") })
      return ok(c, await getMeeting(s, c.get("principal"), id))
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
