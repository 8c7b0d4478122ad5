import { Hono, type Context } from "hono"
import { ObjectId } from "../../../core/shared/ids.ts"
import {
  actOnMeeting,
  createMeeting,
  getMeeting,
  listMeetings,
  updateMeeting,
  type MeetingAction,
} from "../../bookings/booking-service.ts"
import type { Services } from "../../wiring/services.ts"
import type { AppEnv } from "../app-env.ts"
import { ok } from "../envelope.ts"
import {
  CreateMeetingRequest,
  createMeetingCrossErrors,
  decodeWithCrossRules,
  LIST_MEETINGS_ARRAY_KEYS,
  ListMeetingsQuery,
  MeetingActionRequest,
  UpdateMeetingRequest,
  updateMeetingCrossErrors,
} from "../schemas/meeting-requests.ts"
import { decodeOrFail, readJson, readQuery } from "../validation.ts"
import { Schema } from "effect"

const IdParam = Schema.Struct({ id: ObjectId })

/** Spec Endpoints > Meetings. The three actions answer 202 with the Meeting. */
export const meetingRoutes = (s: Services) => {
  const action = (name: MeetingAction) => async (c: Context<AppEnv>) => {
    const { id } = decodeOrFail(IdParam, { id: c.req.param("id") })
    const body = decodeOrFail(MeetingActionRequest, await readJson(c, { optional: true }))
    return ok(c, await actOnMeeting(s, c.get("principal"), id, name, body), { status: 202 })
  }
  return new Hono<AppEnv>()
    .post("/", async (c) => {
      const req = decodeWithCrossRules(CreateMeetingRequest, await readJson(c), createMeetingCrossErrors)
      const result = await createMeeting(s, c.get("principal"), req)
      return result.created
        ? ok(c, result.meeting, { status: 201, message: "Created" })
        : ok(c, result.preview, { message: "Draft: nothing was created" })
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
      const result = await updateMeeting(s, c.get("principal"), id, req)
      return result.updated
        ? ok(c, result.meeting)
        : ok(c, result.preview, { message: "Draft: nothing was changed" })
    })
    .post("/:id/cancel", action("Cancel"))
    .post("/:id/check-in", action("CheckIn"))
    .post("/:id/check-out", action("CheckOut"))
}
