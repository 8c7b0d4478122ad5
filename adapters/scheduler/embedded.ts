import { isSharedManual } from "../clock/clocks.ts"
import type {
  BookingTick,
  LifecycleSchedulerShape,
  TickOutcome,
} from "../../core/ports/lifecycle-scheduler.ts"
import type { Database, Tx } from "../postgres/database.ts"
import type { SchedulerDeps } from "./scheduler-deps.ts"
import { tryLockAssetsOfBookings } from "../postgres/booking-repo.ts"
import {
  claimDueTicks,
  claimTickById,
  unmarkTickFired,
  countRunnable,
  expandDuePlans,
  markClaimedTickFired,
  nextRunAt,
  recordTickFailure,
  TICKS_CHANNEL,
  type ClaimedTick,
} from "../postgres/tick-store.ts"

/**
 * Applies one due tick inside the worker's transaction: load and lock the booking, ask the
 * core (applicableTick) what the tick does, persist it. Returns `Deferred` when the booking is
 * locked by a user transaction right now (the tick stays pending and is retried shortly).
 */
export type ApplyTick = (tx: Tx, tick: BookingTick, at: number) => Promise<TickOutcome | Deferred>
export interface Deferred {
  readonly _tag: "Deferred"
}
export const DEFERRED: Deferred = { _tag: "Deferred" }

export interface EmbeddedOptions {
  /** Ticks claimed per transaction. */
  readonly batchSize?: number
  /** Longest sleep without a known due tick: a safety net for a missed wake-up. */
  readonly maxSleepMs?: number
  readonly maxAttempts?: number
  /** Called after each applied tick has committed, in commit order within this worker (tests and the bench count and time them). */
  readonly onApplied?: (tick: BookingTick, outcome: TickOutcome, at: number) => void
}

export interface EmbeddedScheduler extends LifecycleSchedulerShape {
  /** Applies every tick runnable at `now`; resolves to how many were applied. */
  readonly drainOnce: (now: number) => Promise<number>
  /** `dueAt`: what was committed is not due before then (see the loop). */
  readonly wake: (dueAt?: number) => void
}

/**
 * The durable embedded scheduler (KEYSPACE_SCHEDULER=embedded, the default).
 *
 * Rows of scheduled_ticks are claimed with FOR UPDATE SKIP LOCKED in due order; each tick's
 * effect and its `done` mark commit together (a batch per transaction; a failing tick makes
 * the batch re-run one tick per transaction, so it cannot hold back its neighbours). Several
 * processes on one database therefore share the work and a tick is never applied twice.
 *
 * Timing: on the system clock the worker sleeps until the earliest pending run time (capped
 * by maxSleepMs), and is woken early by `wake()` (the tick writes' commit wakes, with their
 * due time) or, on PostgreSQL, by NOTIFY from any process. On the manual clock nothing is due
 * until the clock moves, so it waits for wake-ups only, and `drainUntil` (ClockControl's
 * advance) applies each tick at its own due time, in order.
 */
export const makeEmbeddedScheduler = (
  s: SchedulerDeps,
  applyTick: ApplyTick,
  options: EmbeddedOptions = {},
): EmbeddedScheduler => {
  const db: Database = s.database
  // PGlite runs a batch on the event loop's thread (milliseconds per tick): smaller batches keep
  // the server answering between them during a long advance.
  const batchSize = options.batchSize ?? (db.engine === "postgres" ? 50 : 16)
  const maxSleepMs = options.maxSleepMs ?? 60_000
  const maxAttempts = options.maxAttempts ?? 10
  const manual = s.clock.mode === "manual"
  const log = s.logger.child({ component: "scheduler" })

  // One drain at a time per process: the clock hook must not return while the background
  // loop holds claimed-but-uncommitted ticks (SKIP LOCKED would hide them from the hook).
  let running: Promise<unknown> = Promise.resolve()
  const exclusive = <A>(f: () => Promise<A>): Promise<A> => {
    const next = running.then(f, f)
    running = next.catch(() => {})
    return next
  }

  const atOf = (tick: ClaimedTick, now: number, stepped: boolean): number =>
    // The manual clock jumped over the due time: apply as if at it (events' occurredAt), so
    // a one-hour advance replays the hour tick by tick; but never before the tick was planned
    // (a lapsed extension plans a no-show already due: it happens at the lapse, not before it).
    // The system clock fires at now.
    stepped ? Math.max(tick.dueAt, tick.createdAt) : now

  /**
   * One batch in one transaction (the fast path: no savepoint per tick). If any tick throws,
   * the batch rolls back and its ticks are re-run one transaction each, so the failing tick
   * is isolated, recorded and retried later while its neighbours are applied. Due plans are
   * expanded first, committed on their own: a failing tick of an expanded plan is then a row
   * the slow path can claim and record. Returns [applied, claimed + expanded plans].
   */
  const runBatch = async (now: number, stepped: boolean): Promise<[number, number]> => {
    const plans = await expandDuePlans(db.db, now, batchSize)
    for (const { bookingId, error } of plans.failed) log.log("error", "scheduler plan failed", { bookingId, error })
    const applied: Array<[BookingTick, TickOutcome, number]> = []
    let claimed: Array<ClaimedTick> = []
    const looked = () => claimed.length + plans.expanded + plans.failed.length
    try {
      await db.db.transaction(async (tx) => {
        claimed = await claimDueTicks(tx, now, batchSize)
        // Every asset the batch may write, locked up front without waiting (two workers' batches
        // taking them tick by tick deadlocked). A tick whose asset is being written elsewhere
        // stays pending for the next round, as one whose booking is locked does.
        const busy = await tryLockAssetsOfBookings(tx, claimed.map((t) => t.bookingId))
        for (const tick of claimed) {
          if (busy.has(tick.bookingId)) continue
          const at = atOf(tick, now, stepped)
          const outcome = await applyInTx(tx, tick, at)
          if (outcome !== undefined) applied.push([tick, outcome, at])
        }
      })
    } catch (e) {
      // The process stops under the batch: its transaction rolled back, the ticks stay pending
      // as they were for whichever process applies them next.
      if (e instanceof SchedulerStopping) {
        stopped = true
        return [0, 0]
      }
      if (claimed.length === 0) throw e
      let alone = 0
      for (const tick of claimed) {
        const at = atOf(tick, now, stepped)
        const outcome = await applyAlone(tick, now, at)
        if (outcome === undefined) continue
        alone++
        // Reported as its own transaction commits, not after the rest: another worker may apply
        // the booking's next tick as soon as this one is done.
        options.onApplied?.(tick, outcome, at)
      }
      return [alone, looked()]
    }
    for (const [tick, outcome, at] of applied) options.onApplied?.(tick, outcome, at)
    return [applied.length, looked()]
  }

  /** Ledger, then effect, in the caller's transaction; undefined = nothing applied. */
  const applyInTx = async (tx: Tx, tick: ClaimedTick, at: number): Promise<TickOutcome | undefined> => {
    // Ledger first: the effect below may drop the booking's other pending ticks (and this one).
    if (!(await markClaimedTickFired(tx, tick, at))) return undefined
    const outcome = await applyTick(tx, tick, at)
    if (outcome._tag === "Deferred") {
      await unmarkTickFired(tx, tick)
      return undefined
    }
    return outcome
  }

  const applyAlone = async (tick: ClaimedTick, now: number, at: number): Promise<TickOutcome | undefined> => {
    try {
      return await db.db.transaction(async (tx) => {
        const mine = await claimTickById(tx, tick.id, now)
        return mine === undefined ? undefined : applyInTx(tx, mine, at)
      })
    } catch (e) {
      if (e instanceof SchedulerStopping) {
        stopped = true
        return undefined
      }
      // A domain error without a message (SlotTaken) is named by its tag and fields.
      const message = e instanceof Error && e.message !== "" ? e.message : describe(e)
      const verdict = await db.db.transaction((tx) =>
        recordTickFailure(tx, tick, s.clock.now(), message, maxAttempts),
      )
      log.log(verdict === "failed" ? "error" : "warn", "scheduler tick failed", {
        bookingId: tick.bookingId,
        kind: tick.kind,
        dueAt: new Date(tick.dueAt).toISOString(),
        attempts: tick.attempts + 1,
        error: message,
      })
      return undefined
    }
  }

  // Set when the process stops: the loop ends, and a drain under way returns after its batch.
  let stopped = false

  /**
   * Drains everything runnable at `now`, yielding to the event loop between batches: on PGlite
   * (in-process) every await resolves without I/O, so a long advance held the whole server
   * (`/healthz`, a SIGTERM's stop) for minutes.
   */
  const drain = async (now: number, stepped: boolean): Promise<number> => {
    let total = 0
    for (;;) {
      const [applied, claimed] = await runBatch(now, stepped)
      total += applied
      if (claimed === 0 || stopped) return total
      // Nothing applied from a full claim (bookings locked by user transactions): back off.
      if (applied === 0) await sleep(10)
      else await new Promise<void>((resolve) => setImmediate(resolve))
    }
  }

  const drainOnce = (now: number) => exclusive(() => drain(now, manual))

  const drainUntil = async (now: number): Promise<void> => {
    await exclusive(() => drain(now, true))
    // Rows locked by another process are invisible to SKIP LOCKED: wait until they are done,
    // so the clock advance answers only when every due tick has been applied.
    for (let i = 0; i < 500 && !stopped && (await countRunnable(db.db, now)) > 0; i++) {
      await sleep(20)
      await exclusive(() => drain(now, true))
    }
    // Not everything was applied: the advance must not answer as if it had been.
    if (stopped) throw new SchedulerStopping()
  }

  // --- background loop -------------------------------------------------------------------
  let timer: ReturnType<typeof setTimeout> | undefined
  let wakeUp: (() => void) | undefined
  let woken = false
  let replan = false
  // When the sleeping loop runs next (undefined while it runs or waits for wake-ups only), and
  // the earliest due time a local wake named since the current round began: the round's
  // nextRunAt may have read before that commit, so its sleep is bounded by this too.
  let plannedAt: number | undefined
  let hinted = Number.POSITIVE_INFINITY

  /**
   * A wake with `dueAt` (this process committed ticks not due before then) runs a round only
   * when the loop would otherwise sleep past it: a new booking's ticks are in the future, so
   * its commit costs no round. A wake without one (another process's NOTIFY)
   * makes the sleeping loop read the earliest run time again (one statement) and run a round
   * only if something is due; wakes while that read is in flight add one more read, not one
   * each. Before, every create ran two rounds (~5 statements and a transaction each).
   */
  const wake = (dueAt?: number): void => {
    if (dueAt !== undefined) {
      hinted = Math.min(hinted, dueAt)
      // A running round (no plan yet) bounds its sleep by `hinted`; the manual clock runs
      // only what is due at its current time.
      if (manual ? dueAt > s.clock.now() : plannedAt === undefined || dueAt >= plannedAt) return
    } else if (!manual) {
      replan = true
      wakeUp?.()
      return
    }
    woken = true
    wakeUp?.()
  }

  /** Sleeps until `ms` elapsed (true) or a wake (false). */
  const waitFor = (ms: number | undefined): Promise<boolean> => {
    let elapsed = false
    return new Promise<void>((resolve) => {
      if (woken || replan || stopped) return resolve()
      wakeUp = resolve
      if (ms !== undefined)
        timer = setTimeout(() => {
          elapsed = true
          resolve()
        }, Math.max(0, ms))
    }).then(() => {
      if (timer !== undefined) clearTimeout(timer)
      timer = undefined
      wakeUp = undefined
      plannedAt = undefined
      return elapsed
    })
  }

  /** Sleeps until the earliest pending run time (system clock), re-reading it on a plain wake. */
  const sleepUntilDue = async (): Promise<void> => {
    for (;;) {
      replan = false
      const found = await nextRunAt(db.db)
      if (woken || stopped) return
      if (replan) continue // a commit during the read: read again
      const next = Math.min(found ?? Number.POSITIVE_INFINITY, hinted)
      const now = s.clock.now()
      if (next <= now) return
      const delay = Number.isFinite(next) ? Math.min(next - now, maxSleepMs) : maxSleepMs
      plannedAt = now + delay
      if ((await waitFor(delay)) || woken || stopped) return
    }
  }

  const loop = async (): Promise<void> => {
    while (!stopped) {
      woken = false
      replan = false
      hinted = Number.POSITIVE_INFINITY
      try {
        await drainOnce(s.clock.now())
        if (manual) await waitFor(undefined)
        else await sleepUntilDue()
      } catch (e) {
        if (stopped) return
        log.log("error", "scheduler loop failed; retrying", {
          error: e instanceof Error ? e.message : String(e),
        })
        await waitFor(1000)
      }
    }
  }

  /**
   * Runs the loop; it wakes on NOTIFY and on the tick writes' commit wakes (TICKS_CHANNEL, with
   * their due time). The clock advance calls drainUntil.
   */
  const start = (): (() => Promise<void>) => {
    const unlisten = db.listen(TICKS_CHANNEL, (_payload, dueAt) => wake(dueAt)).catch((e: unknown) => {
      log.log("warn", "scheduler LISTEN failed; relying on timers", { error: String(e) })
      return async () => {}
    })
    // Another process's advance: once it has finished (or died: its session's end frees the
    // advance lock), apply what it left due (see SharedClock.onMoved). Waiting for it keeps the
    // advance's order across bookings; moves seen meanwhile are followed once more.
    const shared = manual && isSharedManual(s.clock) ? s.clock : undefined
    let following: Promise<void> = Promise.resolve()
    let queued = false
    const follow = (): void => {
      if (shared === undefined || queued) return
      queued = true
      following = following
        .then(async () => {
          queued = false
          await shared.whenAdvanced()
          if (!stopped) await drainUntil(shared.now())
        })
        .catch((e: unknown) => {
          if (!stopped) log.log("warn", "applying another process's clock advance failed; the next advance applies it", { error: String(e) })
        })
    }
    const unfollow = shared?.onMoved(follow) ?? (() => {})
    const done = loop()
    return async () => {
      unfollow()
      stopped = true
      wake()
      await done
      await (await unlisten)()
      await running
    }
  }

  return {
    name: "embedded",
    // No bookingCommitted: every tick a booking change schedules already wakes the loop after
    // its commit, with its due time (tick-store.ts ticksInsert, booking-create.ts wakeWorkers);
    // a plain wake too made the loop re-read the earliest run time after every create (issue 13).
    drainUntil,
    drainOnce,
    start,
    wake,
  }
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))

/** A failure's text for the tick ledger; JSON.stringify throws on a BigInt or a cycle. */
const describe = (e: unknown): string => {
  try {
    return JSON.stringify(e) ?? String(e)
  } catch {
    return String(e)
  }
}

/** A drain cut short by the process stopping: the advance waiting on it is interrupted. */
export class SchedulerStopping extends Error {
  constructor() {
    super("the scheduler is stopping")
  }
}
