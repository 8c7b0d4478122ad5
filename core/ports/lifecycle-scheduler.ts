import { Context } from "effect"
import type { MeetingConfig, Tick, TickKind, TimelineBooking } from "../booking/timeline.ts"

/**
 * The lifecycle scheduler port: whatever fires a booking's timed ticks (spec "Scheduler
 * ticks") at their due time. Two adapters drive the same core rule (timeline + applicableTick):
 * the embedded durable scheduler on PostgreSQL (adapters/scheduler/embedded.ts, the default)
 * and Temporal workflows (adapters/scheduler/temporal.ts + workflows/).
 *
 * Ticks are recorded in the booking's own transaction through the TickStore port (adapters/postgres/tick-store.ts) whatever
 * the adapter, so the record is durable; the port only says what happens after the commit.
 */

/** Why a booking's lifecycle changed; Temporal signals carry it, the embedded adapter wakes. */
export type LifecycleSignal = "update" | "cancel" | "check-in" | "check-out" | "payment" | "create"

/** What the scheduler needs to know about one booking (or one occurrence of a series). */
export interface LifecycleSnapshot {
  readonly booking: TimelineBooking
  readonly config: MeetingConfig
  /** Occurrence of a recurring series; 0 for a single booking. */
  readonly occurrenceIndex: number
}

/** One stored tick of one booking. */
export interface BookingTick extends Tick {
  readonly bookingId: string
  readonly occurrenceIndex: number
}

/** What applying a tick did; `skipped` = applicableTick said none (moved on, stale, fired). */
export type TickOutcome =
  | { readonly _tag: "Transitioned"; readonly to: string }
  | { readonly _tag: "Emitted"; readonly event: string }
  | { readonly _tag: "Skipped" }
  | { readonly _tag: "AlreadyFired" }

export interface LifecycleSchedulerShape {
  readonly name: "embedded" | "temporal"
  /**
   * After the transaction that changed the booking committed: signal its workflow. Absent when
   * the scheduler learns of commits otherwise (the embedded loop: its tick writes' commit wakes).
   */
  readonly bookingCommitted?: (bookingId: string, signal: LifecycleSignal) => Promise<void>
  /** Applies every tick due up to `now`, in due order (the manual clock's advance). */
  readonly drainUntil: (now: number) => Promise<void>
  /** Starts the background part (hooks are registered before it returns); returns stop. */
  readonly start: () => () => Promise<void>
}

export class LifecycleScheduler extends Context.Service<
  LifecycleScheduler,
  LifecycleSchedulerShape
>()("keyspace/ports/LifecycleScheduler") {}

export type { TickKind }
