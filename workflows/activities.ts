import { ApplicationFailure } from "@temporalio/activity"
import type {
  BookingTick,
  LifecycleSnapshot,
  TickOutcome,
} from "../core/ports/lifecycle-scheduler.ts"

/**
 * Activities of the booking lifecycle workflow. They are the workflow's only way to touch the
 * world; each runs the same code the embedded scheduler runs (adapters/scheduler/apply-tick.ts)
 * through `LifecyclePorts`, which the worker builds from the service (adapters/scheduler/
 * temporal.ts `lifecyclePorts(services)`). Taking ports rather than the worker dependencies keeps workflows/
 * free of adapter imports, as the dependency rule asks.
 */
export interface LifecyclePorts {
  /** The service clock. */
  readonly now: () => number
  /** The booking's current lifecycle view (one entry per live occurrence; empty = gone). */
  readonly load: (bookingId: string) => Promise<ReadonlyArray<LifecycleSnapshot>>
  /**
   * One transaction: the fired ledger (a tick already fired is `AlreadyFired`), the core's
   * applicableTick, and the transition or reminder with its outbox event.
   */
  readonly apply: (tick: BookingTick, at: number) => Promise<TickOutcome>
}

/** How early a timer may fire against the service clock (clock skew between hosts). */
export const EARLY_TOLERANCE_MS = 60_000

export const createActivities = (ports: LifecyclePorts) => ({
  async loadLifecycle(bookingId: string): Promise<ReadonlyArray<LifecycleSnapshot>> {
    return ports.load(bookingId)
  },

  async applyLifecycleTick(tick: BookingTick): Promise<TickOutcome> {
    const now = ports.now()
    if (tick.dueAt - now > EARLY_TOLERANCE_MS) {
      // The service clock is well behind the Temporal timer: retry rather than skip the tick.
      throw ApplicationFailure.retryable(`tick due at ${new Date(tick.dueAt).toISOString()}`)
    }
    // A timer that fires a little early (skew) applies at its due time, never before it.
    return ports.apply(tick, Math.max(now, tick.dueAt))
  },
})

export type LifecycleActivities = ReturnType<typeof createActivities>
