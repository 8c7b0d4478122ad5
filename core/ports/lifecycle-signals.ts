import { Context, type Effect } from "effect"
import type { LifecycleSignal } from "./lifecycle-scheduler.ts"

/**
 * What a use case says after the transaction that changed a booking committed: the embedded
 * scheduler wakes, the Temporal adapter signals the booking's workflow. Never fails: the ticks
 * are committed, the worst case is a later wake-up (safety-net timer, Temporal sweep).
 */
export class LifecycleSignals extends Context.Service<
  LifecycleSignals,
  {
    readonly bookingCommitted: (bookingId: string, signal: LifecycleSignal) => Effect.Effect<void>
  }
>()("keyspace/ports/LifecycleSignals") {}

export type { LifecycleSignal }
