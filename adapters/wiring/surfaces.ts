import type { AppParts } from "../http/app.ts"
import { deskRoutes } from "../http/routes/desks.ts"
import { meetingRoomRoutes } from "../http/routes/meeting-rooms.ts"
import { meetingRoutes } from "../http/routes/meetings.ts"
import { operatorMeetingRoutes } from "../http/routes/operator-meetings.ts"
import { operatorClockRoutes } from "../http/routes/operator-clock.ts"
import { operatorWebhookRoutes } from "../http/routes/operator-webhooks.ts"
import { partnerMemberRoutes } from "../http/routes/partner-members.ts"
import { payPageRoutes } from "../http/routes/pay-page.ts"
import { PartnerMembers } from "../../core/member/members.ts"
import { makeRun } from "../http/run.ts"
import type { HttpDeps } from "../http/http-deps.ts"

/**
 * The composition root: which HTTP surfaces this build serves. Background workers are layers
 * of the runtime (adapters/wiring/layers/lifecycle.ts `lifecycleWorkers`).
 */
export const surfaces = (_s: HttpDeps): AppParts => ({
  surfaces: [
    { path: "/meeting-rooms", routes: meetingRoomRoutes(_s) },
    { path: "/desks", routes: deskRoutes(_s) },
    { path: "/meetings", routes: meetingRoutes(_s) },
    {
      path: "/partner/members",
      routes: partnerMemberRoutes({ run: makeRun(_s.runtime, _s), members: _s.runtime.runSync(PartnerMembers) }),
    },
  ],
  operator: [
    { path: "/meetings", routes: operatorMeetingRoutes(_s) },
    { path: "/", routes: operatorWebhookRoutes(_s) },
    { path: "/", routes: operatorClockRoutes(_s) },
  ],
  public: [{ path: "/pay", routes: payPageRoutes(_s) }],
})
