import type { AppParts } from "../http/app.ts"
import { deskRoutes } from "../http/routes/desks.ts"
import { meetingRoomRoutes } from "../http/routes/meeting-rooms.ts"
import { meetingRoutes } from "../http/routes/meetings.ts"
import { operatorMeetingRoutes } from "../http/routes/operator-meetings.ts"
import { operatorWebhookRoutes } from "../http/routes/operator-webhooks.ts"
import { partnerMemberRoutes } from "../http/routes/partner-members.ts"
import { payPageRoutes } from "../http/routes/pay-page.ts"
import { PartnerMembers } from "../../core/member/members.ts"
import { makeRun } from "../http/run.ts"
import { startLifecycleScheduler } from "../scheduler/lifecycle.ts"
import { startDispatcher } from "../webhooks/dispatcher.ts"
import { startDeliveryRetention } from "../webhooks/retention.ts"
import type { Services } from "./services.ts"

/**
 * The composition root: which HTTP surfaces and background workers this build serves.
 * Each capability adds its routes and workers here, in one place.
 */
export const surfaces = (_s: Services): AppParts => ({
  surfaces: [
    { path: "/meeting-rooms", routes: meetingRoomRoutes(_s) },
    { path: "/desks", routes: deskRoutes(_s) },
    { path: "/meetings", routes: meetingRoutes(_s) },
    {
      path: "/partner/members",
      routes: partnerMemberRoutes({ run: makeRun(_s.runtime, _s.logger), members: _s.runtime.runSync(PartnerMembers) }),
    },
  ],
  operator: [
    { path: "/meetings", routes: operatorMeetingRoutes(_s) },
    { path: "/", routes: operatorWebhookRoutes(_s) },
  ],
  public: [{ path: "/pay", routes: payPageRoutes(_s) }],
})

/** Starts background workers (scheduler, webhook dispatcher); returns their stop function. */
export const startBackground = (s: Services): (() => Promise<void>) => {
  // Scheduler first: its clock hook applies due ticks (writing their outbox events) before the
  // webhook hook, registered after it, relays them.
  const stopScheduler = startLifecycleScheduler(s)
  // Webhooks last: its clock hook relays what the scheduler's hook (registered before) emitted.
  const webhooks = startDispatcher(s)
  const stopRetention = startDeliveryRetention(s)
  return async () => {
    await stopRetention()
    await webhooks.stop()
    await stopScheduler()
  }
}
