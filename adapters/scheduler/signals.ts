import { Context, Effect, Layer } from "effect"
import { LifecycleSignals, type LifecycleSignal } from "../../core/ports/lifecycle-signals.ts"

/** What a scheduler does when a booking's transaction committed (wake the loop, signal Temporal). */
export type CommitListener = (bookingId: string, signal: LifecycleSignal) => Promise<void> | void

/**
 * The latch between the use cases (LifecycleSignals) and the scheduler worker: the worker
 * subscribes when it starts and unsubscribes when it stops. One per runtime, so two services in
 * one process (tests) never wake each other's worker. No worker subscribed: a signal is a no-op.
 */
export class SchedulerWake extends Context.Service<
  SchedulerWake,
  {
    readonly subscribe: (listener: CommitListener) => () => void
    readonly listeners: () => ReadonlyArray<CommitListener>
  }
>()("keyspace/scheduler/SchedulerWake") {
  static readonly layer = Layer.sync(SchedulerWake, () => {
    let listeners: ReadonlyArray<CommitListener> = []
    return SchedulerWake.of({
      subscribe: (listener) => {
        listeners = [...listeners, listener]
        return () => {
          listeners = listeners.filter((l) => l !== listener)
        }
      },
      listeners: () => listeners,
    })
  })
}

const notifyAll = async (listeners: ReadonlyArray<CommitListener>, bookingId: string, signal: LifecycleSignal) => {
  for (const listener of listeners) await listener(bookingId, signal)
}

/** LifecycleSignals over the latch; a failing listener is logged, never the caller's failure. */
export const LifecycleSignalsLive = Layer.effect(
  LifecycleSignals,
  Effect.gen(function* () {
    const wake = yield* SchedulerWake
    return LifecycleSignals.of({
      bookingCommitted: (bookingId, signal) => {
        const listeners = wake.listeners()
        if (listeners.length === 0) return Effect.void
        return Effect.tryPromise(() => notifyAll(listeners, bookingId, signal)).pipe(
          // The ticks are committed; the worst case is a later wake-up (safety-net timer, or
          // the Temporal reconciliation). The user's action must not fail for it.
          Effect.catch((e) =>
            Effect.logWarning("lifecycle notification failed").pipe(
              Effect.annotateLogs({ bookingId, signal, error: e.cause instanceof Error ? e.cause.message : String(e.cause) }),
            ),
          ),
        )
      },
    })
  }),
).pipe(Layer.provideMerge(SchedulerWake.layer))
