import { Effect, Schema } from "effect"
import { Hono } from "hono"
import { Bookings } from "../../../core/booking/bookings.ts"
import { ObjectId } from "../../../core/shared/ids.ts"
import type { HttpDeps } from "../http-deps.ts"
import type { AppEnv } from "../app-env.ts"
import { ok } from "../envelope.ts"
import { makeRun } from "../run.ts"
import { RejectMeetingRequest } from "../schemas/meeting-requests.ts"
import { meetingDetailsView } from "../views/meeting-details.ts"
import { decodeOrFail, readJson } from "../validation.ts"

const IdParam = Schema.Struct({ id: ObjectId })

/** Operator contract: POST /admin/v1/meetings/{id}/reject (the administrator decline). */
export const operatorMeetingRoutes = (s: HttpDeps) => {
  const run = makeRun(s.runtime, s)
  const bookings = s.runtime.runSync(Effect.service(Bookings))
  return new Hono<AppEnv>().post("/:id/reject", async (c) => {
    const { id } = decodeOrFail(IdParam, { id: c.req.param("id") })
    const body = decodeOrFail(RejectMeetingRequest, await readJson(c, { optional: true }))
    return run(c, bookings.act("operator", id, { _tag: "Reject", reason: body.reason, occurrenceEventId: body.occurrenceEventId }), (d) => ok(c, meetingDetailsView(d)))
  })
}
