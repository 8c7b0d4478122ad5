import { Cause, Deferred, Effect, Exit, Layer } from "effect"
import { stoppedUnder } from "../../http/run.ts"
import { ClockControl } from "../../../core/operator/clock.ts"
import type { LifecycleSchedulerShape } from "../../../core/ports/lifecycle-scheduler.ts"
import { SchedulerDrain } from "../../../core/ports/scheduler-drain.ts"
import { WebhookDrain } from "../../../core/ports/webhook-drain.ts"
import { ClockAdvanceLive } from "../../clock/clock-advance.ts"
import { WebhookAdmin } from "../../../core/events/webhooks.ts"
import { OutboxMemory } from "../../memory/outbox-store.ts"
import { WebhookStoreMemory } from "../../memory/webhook-store.ts"
import { WebhookStorePostgres } from "../../postgres/webhook-store.ts"
import { TickStoreMemory } from "../../memory/tick-store.ts"
import { OutboxPostgres } from "../../postgres/outbox-store.ts"
import { TickStorePostgres } from "../../postgres/tick-store.ts"
import { BookingLifecycle } from "../../../core/booking/lifecycle.ts"
import { provideTx } from "../../postgres/unit-of-work.ts"
import { SchedulerStopping, type ApplyTick } from "../../scheduler/embedded.ts"
import { startLifecycleScheduler } from "../../scheduler/lifecycle.ts"
import { LifecycleSignalsLive, SchedulerWake } from "../../scheduler/signals.ts"
import { startDispatcher } from "../../webhooks/dispatcher.ts"
import { startDeliveryRetention } from "../../postgres/delivery-retention.ts"
import { WorkerDepsService, type WorkerDeps } from "../worker-deps.ts"

/**
 * The lifecycle stream's part of the layer graph (adapters/wiring/app-layer.ts): its stores for
 * each storage profile, and its use cases (which need only ports).
 */
export const lifecycleStores = {
  postgres: Layer.mergeAll(TickStorePostgres, OutboxPostgres, WebhookStorePostgres),
  memory: Layer.mergeAll(TickStoreMemory, OutboxMemory, WebhookStoreMemory),
}
export const lifecycleUseCases = WebhookAdmin.layer
/** What the use cases signal after commit (wake latches; no dependencies). */
export const lifecycleSignals = LifecycleSignalsLive

/** How a due tick is applied (embedded worker, Temporal activities, benches, tests). */
export const applyTickFor = (s: WorkerDeps): ApplyTick => {
  const lifecycle = s.runtime.runSync(Effect.service(BookingLifecycle))
  // The worker's transaction becomes the use case's unit of work (its stores join it).
  return (tx, tick, at) =>
    s.runtime.runPromiseExit(provideTx(tx, lifecycle.applyTick(tick, at))).then((exit) => {
      if (Exit.isSuccess(exit)) return exit.value
      // The runtime is being disposed (the process stops): not the tick's failure. Recorded as
      // one, its retry was stamped after the advance's later ticks, which then ran first (a
      // booking's end before its no-show, the cancel lost).
      if (stoppedUnder(exit.cause)) throw new SchedulerStopping()
      throw Cause.squash(exit.cause)
    })
}


/**
 * The lifecycle scheduler (embedded or Temporal, KEYSPACE_SCHEDULER) as a scoped layer: started
 * when the runtime builds, subscribed to the booking commits when it takes them (Temporal
 * signals the booking's workflow; nothing runs per commit for the embedded loop), stopped when
 * it is disposed.
 */
const schedulerWorker = Layer.effect(
  SchedulerDrain,
  Effect.gen(function* () {
    const workerDeps = yield* WorkerDepsService
    const wake = yield* SchedulerWake
    const started = yield* Deferred.make<LifecycleSchedulerShape>()
    // Starts once boot hands the worker dependencies over (right after the build); stops with the runtime.
    yield* Effect.forkScoped(
      Effect.gen(function* () {
        const s = yield* Effect.promise(() => workerDeps)
        const { scheduler } = yield* Effect.acquireRelease(
          Effect.sync(() => startLifecycleScheduler(s, applyTickFor(s))),
          ({ stop }) => Effect.promise(stop),
        )
        const signal = scheduler.bookingCommitted
        if (signal !== undefined)
          yield* Effect.acquireRelease(
            Effect.sync(() => wake.subscribe(signal)),
            (unsubscribe) => Effect.sync(unsubscribe),
          )
        yield* Deferred.succeed(started, scheduler)
      }),
    )
    return SchedulerDrain.of({
      // A stop cut the drain short: the advance is interrupted (503), not answered as done.
      drainUntil: (now) =>
        Effect.flatMap(Deferred.await(started), (scheduler) =>
          Effect.tryPromise({ try: () => scheduler.drainUntil(now), catch: (e) => e }).pipe(
            Effect.catch((e) => (e instanceof SchedulerStopping ? Effect.interrupt : Effect.die(e))),
          ),
        ),
    })
  }),
)

/** The webhook relay and dispatcher, and the delivery retention sweep, as one scoped layer. */
const webhookWorker = Layer.effect(
  WebhookDrain,
  Effect.gen(function* () {
    const workerDeps = yield* WorkerDepsService
    const started = yield* Deferred.make<{ readonly drainDue: () => Promise<void> }>()
    yield* Effect.forkScoped(
      Effect.gen(function* () {
        const s = yield* Effect.promise(() => workerDeps)
        const dispatcher = yield* Effect.acquireRelease(
          Effect.sync(() => startDispatcher(s)),
          (d) => Effect.promise(d.stop),
        )
        const retention = yield* Effect.acquireRelease(
          Effect.sync(() => startDeliveryRetention(s)),
          (r) => Effect.promise(r.stop),
        )
        yield* Deferred.succeed(started, { drainDue: () => dispatcher.drainDue().then(retention.sweep) })
      }),
    )
    return WebhookDrain.of({
      drainDue: () => Effect.flatMap(Deferred.await(started), (w) => Effect.promise(w.drainDue)),
    })
  }),
)

/** No worker in this process (background off, memory profile): an advance only moves the clock. */
const noWorkers = Layer.mergeAll(
  Layer.succeed(SchedulerDrain, SchedulerDrain.of({ drainUntil: () => Effect.void })),
  Layer.succeed(WebhookDrain, WebhookDrain.of({ drainDue: () => Effect.void })),
)

export interface WorkerInputs {
  /** Start the background workers (false: tests, the Temporal worker process, the memory profile). */
  readonly background: boolean
  /** The loops' dependencies, handed over by boot once the runtime is built. */
  readonly workerDeps?: Promise<WorkerDeps> | undefined
}

/**
 * Background workers (embedded scheduler or Temporal sweep, webhook relay/dispatcher, retention)
 * and the clock control on top of them: the advance drains ticks, then webhooks, in that order
 * (core/operator/clock.ts). Workers need the use cases; nothing below depends on a worker.
 */
export const lifecycleWorkers = (inputs: WorkerInputs) => {
  const workerDeps = inputs.workerDeps
  const workers =
    inputs.background && workerDeps !== undefined
      ? // The scheduler starts first and stops last (ticks before the webhooks they produce).
        webhookWorker.pipe(Layer.provideMerge(schedulerWorker), Layer.provide(Layer.succeed(WorkerDepsService, workerDeps)))
      : noWorkers
  return ClockControl.layer.pipe(Layer.provideMerge(workers), Layer.provideMerge(ClockAdvanceLive))
}
