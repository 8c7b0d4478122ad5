import type { Client } from "@temporalio/client"
import type {
  LifecycleSchedulerShape,
  LifecycleSignal,
} from "../../core/ports/lifecycle-scheduler.ts"
import type { LifecyclePorts } from "../../workflows/activities.ts"
import type { bookingLifecycle } from "../../workflows/booking-lifecycle.ts"
import { BOOKING_LIFECYCLE_WORKFLOW, lifecycleWorkflowId, signalNameFor } from "../../workflows/definitions.ts"
import { bookingsWithPendingTicks } from "../postgres/tick-queries.ts"
import type { SchedulerDeps } from "./scheduler-deps.ts"
import { applyTickNow, loadSnapshots } from "./apply-tick.ts"
import { makeEmbeddedScheduler, type ApplyTick } from "./embedded.ts"

/**
 * LifecycleScheduler on Temporal (KEYSPACE_SCHEDULER=temporal; TEMPORAL_ADDRESS,
 * TEMPORAL_NAMESPACE, TEMPORAL_TASK_QUEUE). After each booking commit the service
 * signal-with-starts the booking's workflow (`booking-${id}`); the workflow sleeps on Temporal
 * timers and applies ticks through the activities (runtimes/node/temporal-worker.ts).
 *
 * The scheduled_ticks rows are still written in the booking transaction: they are the fired
 * ledger the activities use (a retried activity never applies a tick twice), and the list of
 * bookings to re-signal (on start, and every minute for ticks overdue) in case a signal was
 * lost between a commit and Temporal (crash, Temporal unreachable).
 *
 * The manual test clock cannot move Temporal's timers, so with KEYSPACE_CLOCK=manual the
 * clock advance applies due ticks from the table itself (the embedded drain); the workflows
 * then find those ticks already fired.
 */
export const makeTemporalScheduler = (
  s: SchedulerDeps,
  applyTick: ApplyTick,
  options: { readonly sweepEveryMs?: number } = {},
): LifecycleSchedulerShape => {
  const { address, namespace, taskQueue } = s.config.temporal
  const log = s.logger.child({ component: "temporal-scheduler" })
  const sweepEveryMs = options.sweepEveryMs ?? 60_000
  let client: Promise<Client> | undefined
  const connect = (): Promise<Client> => {
    // Loaded on first use: the Temporal client (and its protobuf tables) is tens of MB of
    // heap and a slower start that the embedded scheduler, the default, never needs.
    client ??= import("@temporalio/client")
      .then(({ Client, Connection }) =>
        Connection.connect({ address, connectTimeout: "5s" }).then((connection) => new Client({ connection, namespace })),
      )
      .catch((e: unknown) => {
        client = undefined
        throw e
      })
    return client
  }
  // Drains the table on the manual clock only; never started as a background loop here.
  const fallback = makeEmbeddedScheduler(s, applyTick)

  const signal = async (bookingId: string, kind: LifecycleSignal): Promise<void> => {
    const c = await connect()
    await c.workflow.signalWithStart<typeof bookingLifecycle, []>(BOOKING_LIFECYCLE_WORKFLOW, {
      workflowId: lifecycleWorkflowId(bookingId),
      taskQueue,
      args: [{ bookingId }],
      signal: signalNameFor[kind],
      signalArgs: [],
    })
  }

  // Signals leave in the background, in order, so a slow or unreachable Temporal never holds
  // up a booking request; a failure is retried with backoff. The booking's ticks are already
  // committed, and the sweep below re-signals any booking whose ticks Temporal missed.
  const queue: Array<[string, LifecycleSignal]> = []
  let pumping: Promise<void> | undefined
  let stopped = false
  const pump = async (): Promise<void> => {
    let backoff = 500
    while (queue.length > 0 && !stopped) {
      const [bookingId, kind] = queue[0]!
      try {
        await signal(bookingId, kind)
        queue.shift()
        backoff = 500
      } catch (e) {
        log.log("warn", "Temporal signal failed; retrying", {
          bookingId,
          signal: kind,
          error: e instanceof Error ? e.message : String(e),
        })
        await new Promise((r) => setTimeout(r, backoff))
        backoff = Math.min(backoff * 2, 30_000)
      }
    }
  }
  const enqueue = (bookingId: string, kind: LifecycleSignal): void => {
    queue.push([bookingId, kind])
    pumping ??= pump().finally(() => {
      pumping = undefined
    })
  }

  /**
   * Re-signals bookings whose ticks should have fired by now (`overdueMs` ago) but are still
   * pending: their workflow is missing (a signal lost in a crash) or stuck. With overdueMs 0 at
   * start, every booking with pending ticks is re-signalled; signal-with-start is idempotent.
   */
  const sweep = async (overdueMs: number | undefined): Promise<void> => {
    const due = overdueMs === undefined ? undefined : new Date(s.clock.now() - overdueMs).toISOString()
    let after = ""
    for (;;) {
      const rows = await bookingsWithPendingTicks(s.database.db, after, due)
      if (rows.length === 0) return
      for (const id of rows) enqueue(id, "update")
      after = rows[rows.length - 1]!
    }
  }

  return {
    name: "temporal",
    bookingCommitted: async (bookingId, kind) => enqueue(bookingId, kind),
    drainUntil: (now) => fallback.drainUntil(now),
    start: () => {
      const manual = s.clock.mode === "manual"
      const report = (e: unknown) =>
        log.log("error", "Temporal reconciliation failed", {
          address,
          error: e instanceof Error ? e.message : String(e),
        })
      const started = sweep(undefined).catch(report)
      // On the manual clock the advance hook applies ticks itself; nothing to sweep for.
      const timer = manual ? undefined : setInterval(() => void sweep(sweepEveryMs).catch(report), sweepEveryMs)
      timer?.unref?.()
      return async () => {
        stopped = true
        if (timer !== undefined) clearInterval(timer)
        await started
        await pumping
        const c = client === undefined ? undefined : await client.catch(() => undefined)
        await c?.connection.close()
      }
    },
  }
}

/** What the Temporal activities run against: the same apply path as the embedded worker. */
export const lifecyclePorts = (s: SchedulerDeps, applyTick: ApplyTick): LifecyclePorts => ({
  now: () => s.clock.now(),
  load: (bookingId) => loadSnapshots(s, bookingId),
  apply: (tick, at) => applyTickNow(s, applyTick, tick, at),
})
