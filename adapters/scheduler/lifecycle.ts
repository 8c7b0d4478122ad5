import { Effect } from "effect"
import type { Services } from "../wiring/services.ts"
import { makeApplyTick } from "./apply-tick.ts"
import { makeEmbeddedScheduler, type EmbeddedOptions } from "./embedded.ts"
import { registerLifecycleScheduler, unregisterLifecycleScheduler } from "./registry.ts"
import { SchedulerWake } from "./signals.ts"
import { makeTemporalScheduler } from "./temporal.ts"

/**
 * Starts the lifecycle scheduler the configuration selects (KEYSPACE_SCHEDULER: embedded by
 * default, or temporal) and registers it for the booking code. Hooks are registered before
 * this returns, so call it before starting anything that must run after ticks (webhooks).
 */
export const startLifecycleScheduler = (
  s: Services,
  options: EmbeddedOptions = {},
): (() => Promise<void>) => {
  const apply = makeApplyTick(s)
  const scheduler =
    s.config.scheduler === "temporal"
      ? makeTemporalScheduler(s, apply)
      : makeEmbeddedScheduler(s, apply, options)
  registerLifecycleScheduler(s, scheduler)
  // Use cases signal through the LifecycleSignals port (adapters/scheduler/signals.ts).
  const unsubscribe = s.runtime.runSync(
    Effect.map(SchedulerWake, (wake) => wake.subscribe(scheduler.bookingCommitted)),
  )
  const stop = scheduler.start()
  s.logger.log("info", "lifecycle scheduler started", { scheduler: scheduler.name })
  return async () => {
    unsubscribe()
    unregisterLifecycleScheduler(s)
    await stop()
  }
}
