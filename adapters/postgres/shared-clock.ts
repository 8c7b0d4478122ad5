import { sql } from "drizzle-orm"
import postgres from "postgres"
import { UpstreamUnavailable } from "../../core/shared/errors.ts"
import { execute, type Database } from "./database.ts"
import { reconnectBackoff } from "./connection-loss.ts"
/** What the clock logs through (the service's JSON logger fits). */
interface Logger {
  readonly log: (level: "info" | "warn", msg: string, fields?: Record<string, unknown>) => void
  readonly child: (fields: Record<string, unknown>) => Logger
}
import { ManualClock, type SharedClock } from "../clock/clocks.ts"

/**
 * The manual test clock of a whole deployment (KEYSPACE_CLOCK=manual), kept in the database
 * (table service_clock, one row) so every process on one PostgreSQL reads one clock.
 *
 * - `now()` stays synchronous: it returns this process's copy of the row. The copy is brought
 *   up to date before every API request (`refresh`, one primary-key read), on NOTIFY from an
 *   advancing process, and by a one-second poll (background work between requests).
 * - `advance` moves the row forward under a deployment-wide advisory lock held until the
 *   caller's hooks (due ticks, webhook relay) are done, so advances never interleave, whichever
 *   process receives them.
 * - Start: every live process holds a shared advisory lock for its lifetime. A process that
 *   finds none (it is alone: a fresh start or a restart of the whole deployment) sets the clock
 *   to KEYSPACE_CLOCK_START or the real time, as a single process always did; a process joining
 *   running ones adopts their clock (a rolling restart or a new replica never moves it).
 * - If the row cannot be read, a request fails with 503 SV004 rather than run on a stale time;
 *   background work keeps the last time read and retries (docs/deployment.md).
 *
 * On PGlite (one process by construction) the row is written the same way, and nothing else
 * can move it, so `refresh` costs nothing.
 */
export const CLOCK_CHANNEL = "keyspace_clock"
// Advisory locks in the two-int4-key space, which never meets the one-bigint keys the booking
// code takes on hashtext(assetId): (CLOCK_LOCKS, 1) is held shared by every live process on
// the manual clock and tried exclusively at start; (CLOCK_LOCKS, 2) by the process advancing.
const CLOCK_LOCKS = 7419023
const MEMBERS = 1
const ADVANCE = 2
/** The advancing process's lock (tests stand in for an advancer with it). */
export const ADVANCE_LOCK_KEYS = [CLOCK_LOCKS, ADVANCE] as const
const POLL_MS = 1_000

type Session = ReturnType<typeof postgres>

export class SharedManualClock extends ManualClock implements SharedClock {
  readonly sharedByDeployment = true as const
  readonly #database: Database
  readonly #session: Session | undefined
  readonly #log: Logger
  #queue: Promise<unknown> = Promise.resolve()
  #stop: Array<() => Promise<void> | void> = []
  #failing = false
  readonly #moved = new Set<(now: number) => void>()

  constructor(start: number, database: Database, session: Session | undefined, log: Logger) {
    super(start)
    this.#database = database
    this.#session = session
    this.#log = log
  }

  /** Takes a newer time read elsewhere (the row, a NOTIFY); never moves backwards. */
  observe(to: number): void {
    if (to <= this.now()) return
    this.set(to)
    for (const listener of this.#moved) listener(to)
  }

  onMoved(listener: (now: number) => void): () => void {
    this.#moved.add(listener)
    return () => this.#moved.delete(listener)
  }

  /** Waits for the advance lock and lets it go: an advance under way has finished, or died. */
  async whenAdvanced(): Promise<void> {
    const session = this.#session
    if (session === undefined) return
    await session`select pg_advisory_lock(${CLOCK_LOCKS}::int, ${ADVANCE}::int)`
    await session`select pg_advisory_unlock(${CLOCK_LOCKS}::int, ${ADVANCE}::int)`
  }

  /** Reads the deployment's clock now; throws UpstreamUnavailable (503) if it cannot. */
  async refresh(): Promise<number> {
    if (this.#session === undefined) return this.now()
    try {
      this.observe(await readClock(this.#database))
      if (this.#failing) this.#log.log("info", "service clock readable again")
      this.#failing = false
    } catch (e) {
      if (!this.#failing)
        this.#log.log("warn", "service clock unreadable; requests answer 503", { error: String(e) })
      this.#failing = true
      throw new UpstreamUnavailable({ reason: "the service clock cannot be read" })
    }
    return this.now()
  }

  /**
   * Moves the deployment's clock to `target(current)` (which may throw to refuse) and runs
   * `after(now)` before any other advance, on any process, may start. Resolves to the new time.
   */
  advance(target: (current: number) => number, after: (now: number) => Promise<void>): Promise<number> {
    const run = this.#queue.then(async () => {
      const session = this.#session
      if (session) await session`select pg_advisory_lock(${CLOCK_LOCKS}::int, ${ADVANCE}::int)`
      try {
        const now = await this.#database.db.transaction(async (tx) => {
          const [row] = await execute<{ now_ms: string | number }>(
            tx,
            sql`select now_ms from service_clock where id = 1 for update`,
          )
          const current = Math.max(Number(row?.now_ms ?? this.now()), this.now())
          const next = Math.max(target(current), current)
          await tx.execute(sql`update service_clock set now_ms = ${next} where id = 1`)
          // Delivered at commit: the other processes take the new time without a poll.
          if (session) await tx.execute(sql`select pg_notify(${CLOCK_CHANNEL}, ${String(next)})`)
          return next
        })
        // Its own move: `after` applies what is due (no listener: they are for others' moves).
        if (now > this.now()) this.set(now)
        await after(now)
        return now
      } finally {
        // A lost session released the lock already; nothing to undo then.
        if (session) await session`select pg_advisory_unlock(${CLOCK_LOCKS}::int, ${ADVANCE}::int)`.catch(() => {})
      }
    })
    this.#queue = run.catch(() => {})
    return run
  }

  /** Follows other processes' advances (NOTIFY, and the poll as a safety net). */
  follow(): void {
    if (this.#session === undefined) return
    const timer = setInterval(() => void this.refresh().catch(() => {}), POLL_MS)
    timer.unref?.()
    this.#stop.push(() => clearInterval(timer))
    const listening = this.#database
      .listen(CLOCK_CHANNEL, (payload) => {
        const to = Number(payload)
        if (Number.isFinite(to)) this.observe(to)
      })
      .catch((e: unknown) => {
        this.#log.log("warn", "clock LISTEN failed; following by polling", { error: String(e) })
        return async () => {}
      })
    this.#stop.push(async () => (await listening)())
  }

  async close(): Promise<void> {
    for (const stop of this.#stop.splice(0)) await stop()
    await this.#queue
    // Ending the session releases the membership lock: the process has left the deployment.
    await this.#session?.end({ timeout: 5 })
  }
}

export { isSharedManual } from "../clock/clocks.ts"

const readClock = async (database: Database): Promise<number> => {
  const [row] = await execute<{ now_ms: string | number }>(
    database.db,
    sql`select now_ms from service_clock where id = 1`,
  )
  if (row === undefined) throw new Error("service_clock has no row")
  return Number(row.now_ms)
}

const setClock = async (database: Database, to: number, onlyIfMissing: boolean): Promise<void> => {
  await database.db.execute(
    onlyIfMissing
      ? sql`insert into service_clock (id, now_ms) values (1, ${to}) on conflict (id) do nothing`
      : sql`insert into service_clock (id, now_ms) values (1, ${to})
            on conflict (id) do update set now_ms = excluded.now_ms`,
  )
}

/**
 * Joins the deployment's manual clock (see SharedManualClock): starts it at `start` when this
 * process is alone on the database, adopts the running clock otherwise.
 */
export const openSharedClock = async (
  database: Database,
  options: { readonly databaseUrl: string | undefined; readonly start: number; readonly logger: Logger },
): Promise<SharedManualClock> => {
  const log = options.logger.child({ component: "clock" })
  if (database.engine === "pglite" || !options.databaseUrl) {
    await setClock(database, options.start, false)
    return new SharedManualClock(options.start, database, undefined, log)
  }
  // One connection for the process's lifetime: session advisory locks live on it.
  const session = postgres(options.databaseUrl, { max: 1, idle_timeout: 0, backoff: reconnectBackoff, onnotice: () => {} })
  try {
    const [row] = await session<Array<{ alone: boolean }>>`select pg_try_advisory_lock(${CLOCK_LOCKS}::int, ${MEMBERS}::int) as alone`
    if (row?.alone) {
      await setClock(database, options.start, false)
      // Shared before exclusive is released: a process waiting below sees the new row.
      await session`select pg_advisory_lock_shared(${CLOCK_LOCKS}::int, ${MEMBERS}::int)`
      await session`select pg_advisory_unlock(${CLOCK_LOCKS}::int, ${MEMBERS}::int)`
      log.log("info", "manual clock started", { now: new Date(options.start).toISOString() })
    } else {
      // Waits while a process that found itself alone is still setting the clock.
      await session`select pg_advisory_lock_shared(${CLOCK_LOCKS}::int, ${MEMBERS}::int)`
      await setClock(database, options.start, true)
    }
    const now = await readClock(database)
    if (!row?.alone) log.log("info", "manual clock joined", { now: new Date(now).toISOString() })
    const clock = new SharedManualClock(now, database, session, log)
    clock.follow()
    return clock
  } catch (e) {
    await session.end({ timeout: 5 }).catch(() => {})
    throw e
  }
}
