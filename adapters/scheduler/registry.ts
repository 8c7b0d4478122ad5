import type { LifecycleSchedulerShape } from "../../core/ports/lifecycle-scheduler.ts"
import type { Services } from "../wiring/services.ts"

/**
 * Which lifecycle scheduler a running service uses, so the booking code can notify it after a
 * commit (`lifecycleCommitted`) without every caller threading it through. Keyed by the
 * Services object: several services (tests, two workers in one process) never share one.
 */
const schedulers = new WeakMap<Services, LifecycleSchedulerShape>()

export const registerLifecycleScheduler = (s: Services, scheduler: LifecycleSchedulerShape): void => {
  schedulers.set(s, scheduler)
}

export const unregisterLifecycleScheduler = (s: Services): void => {
  schedulers.delete(s)
}

export const lifecycleSchedulerOf = (s: Services): LifecycleSchedulerShape | undefined =>
  schedulers.get(s)
