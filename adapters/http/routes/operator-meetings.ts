import { Hono } from "hono"
import { Schema } from "effect"
import { ObjectId } from "../../../core/shared/ids.ts"
import { actOnMeeting } from "../../bookings/booking-service.ts"
import type { Services } from "../../wiring/services.ts"
import type { AppEnv } from "../app-env.ts"
import { ok } from "../envelope.ts"
import { RejectMeetingRequest } from "../schemas/meeting-requests.ts"
import { decodeOrFail, readJson } from "../validation.ts"

const IdParam = Schema.Struct({ id: ObjectId })

/** Operator contract: POST /admin/v1/meetings/{id}/reject (the administrator decline). */
export const operatorMeetingRoutes = (s: Services) =>
  new Hono<AppEnv>().post("/:id/reject", async (c) => {
    const { id } = decodeOrFail(IdParam, { id: c.req.param("id") })
    const body = decodeOrFail(RejectMeetingRequest, await readJson(c, { optional: true }))
    return ok(c, await actOnMeeting(s, "operator", id, "Reject", body))
  })
