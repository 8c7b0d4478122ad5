import { Context, type Effect } from "effect"
import type { BookingTick, LifecycleSnapshot } from "./lifecycle-scheduler.ts"

/**
 * A booking's scheduled ticks (spec "Scheduler ticks"), written in the booking's own
 * transaction so a tick exists if and only if the change that scheduled it committed. Workers
 * are woken once the transaction commits (PostgreSQL: NOTIFY to every process).
 */
export class TickStore extends Context.Service<
  TickStore,
  {
    /**
     * In tx. Replaces pending ticks with those of `snapshots` (ticks already fired are kept and
     * never re-inserted; a reminder already past at `now` is not scheduled).
     * `only` undefined: every pending tick of the booking is dropped first; a list: only those
     * occurrences' pending ticks; `[]`: nothing is dropped (a booking created in this transaction).
     */
    readonly replace: (
      bookingId: string,
      snapshots: ReadonlyArray<LifecycleSnapshot>,
      now: number,
      only?: ReadonlyArray<number>,
    ) => Effect.Effect<void>
    /** In tx. Drops every pending tick of a booking (cancel, check-out, reject, terminal). */
    readonly drop: (bookingId: string) => Effect.Effect<void>
    /**
     * In tx. The fired ledger: marks the tick done (inserting it if it was never scheduled
     * here, Temporal mode); false when it had already fired, so nothing is applied twice.
     */
    readonly markFired: (tick: BookingTick, at: number) => Effect.Effect<boolean>
  }
>()("keyspace/ports/TickStore") {}
