import type { LifecycleSchedulerShape } from "../../core/ports/lifecycle-scheduler.ts"
import type { SchedulerDeps } from "./scheduler-deps.ts"
import { makeEmbeddedScheduler, type ApplyTick, type EmbeddedOptions } from "./embedded.ts"
import { makeTemporalScheduler } from "./temporal.ts"

/**
 * Starts the lifecycle scheduler the configuration selects (KEYSPACE_SCHEDULER: embedded by
 * default, or temporal). The worker layer (adapters/wiring/layers/lifecycle.ts) subscribes it to
 * the booking commits and hands its drain to the clock advance.
 */
export const startLifecycleScheduler = (
  s: SchedulerDeps,
  apply: ApplyTick,
  options: EmbeddedOptions = {},
): { readonly scheduler: LifecycleSchedulerShape; readonly stop: () => Promise<void> } => {
  const scheduler =
    s.config.scheduler === "temporal"
      ? makeTemporalScheduler(s, apply)
      : makeEmbeddedScheduler(s, apply, options)
  const stop = scheduler.start()
  s.logger.log("info", "lifecycle scheduler started", { scheduler: scheduler.name })
  return { scheduler, stop }
}
