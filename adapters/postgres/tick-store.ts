import { sql, type SQL } from "drizzle-orm"
import { Layer } from "effect"
import type { Booking } from "../../core/booking/state.ts"
import {
  tickRank,
  type TickKind,
  type TimelineBooking,
} from "../../core/booking/timeline.ts"
import type { BookingTick, LifecycleSnapshot } from "../../core/ports/lifecycle-scheduler.ts"
import { TickStore } from "../../core/ports/tick-store.ts"
import { ticksToSchedule } from "../../core/booking/tick-schedule.ts"
import { EPOCH_MS, execute, pgErrorOf, pipeline, wakeAfterCommit, type Queryable, type Sendable } from "./database.ts"
import type { PlannedTick } from "./tables/scheduler.ts"
import { write } from "./unit-of-work.ts"

/**
 * The scheduled_ticks table as the booking code and both scheduler adapters use it: write a
 * booking's ticks inside the booking's transaction, claim due ticks, and the fired ledger.
 */

/** The Postgres NOTIFY channel new ticks announce themselves on (delivered at commit). */
export const TICKS_CHANNEL = "keyspace_ticks"

const iso = (ms: number): string => new Date(ms).toISOString()

/** The kind of a plan row: a new single booking's whole first schedule (tables/scheduler.ts). */
export const PLAN_KIND = "plan"
/**
 * The same as a literal in the statement text, never a parameter: a prepared statement's
 * generic plan can use the partial index `scheduled_ticks_pending_plan_idx` (kind = 'plan')
 * only when its predicate names the literal.
 */
const PLAN = sql.raw(`'${PLAN_KIND}'`)

/** A first tick row as a create's statement writes it (JSON; epoch milliseconds). */
export interface FirstTickRow extends PlannedTick {
  readonly booking_id: string
  readonly created_ms: number
  /** The ticks of a plan row; null for a tick row. */
  readonly plan: ReadonlyArray<PlannedTick> | null
}

/**
 * The rows a create writes for its first ticks (`due`, in due order): those of a booking with
 * one occurrence as one plan row when there is more than one (the row takes the earliest
 * tick's time and rank); with several occurrences one row per tick (their ticks are replaced
 * one occurrence at a time).
 */
export const firstTickRows = (
  bookingId: string,
  due: ReadonlyArray<BookingTick>,
  now: number,
  single: boolean,
): ReadonlyArray<FirstTickRow> => {
  const planned = due.map((t): PlannedTick => ({ occurrence_index: t.occurrenceIndex, kind: t.kind, rank: tickRank[t.kind], due_ms: t.dueAt }))
  const first = planned[0]
  if (single && first !== undefined && planned.length > 1)
    return [{ booking_id: bookingId, occurrence_index: first.occurrence_index, kind: PLAN_KIND, rank: first.rank, due_ms: first.due_ms, created_ms: now, plan: planned }]
  // Named fields, not a spread (tick-schedule.ts says why).
  return planned.map((t) => ({ booking_id: bookingId, occurrence_index: t.occurrence_index, kind: t.kind, rank: t.rank, due_ms: t.due_ms, created_ms: now, plan: null }))
}

/** A planned tick's due time (`r`, a row of the plan) as a timestamptz. */
const DUE = sql.raw(EPOCH_MS("r.due_ms"))

/**
 * Turns the pending plan rows `which` selects (a subquery of ids) into their tick rows, in the
 * caller's transaction; a tick already there is kept. Returns how many plans it expanded.
 */
const expandPlans = async (tx: Queryable, which: SQL): Promise<number> => {
  const [row] = await execute<{ plans: number }>(
    tx,
    sql`with p as (
          delete from scheduled_ticks where id in (${which}) and state = 'pending' and kind = ${PLAN}
          returning booking_id, created_at, plan),
        i as (
          insert into scheduled_ticks (booking_id, occurrence_index, kind, rank, due_at, run_at, created_at)
          select p.booking_id, r.occurrence_index, r.kind, r.rank, ${DUE}, ${DUE}, p.created_at
          from p, jsonb_to_recordset(p.plan) as r(occurrence_index integer, kind text, rank integer, due_ms float8)
          on conflict (booking_id, kind, due_at) do nothing)
        select count(*)::int as plans from p`,
  )
  return Number(row?.plans ?? 0)
}

/** What `expandDuePlans` did. */
export interface PlansExpanded {
  readonly expanded: number
  /** Plans PostgreSQL refused to expand, now `failed` (they no longer hold back any tick). */
  readonly failed: ReadonlyArray<{ readonly bookingId: string; readonly error: string }>
}

/**
 * Whether PostgreSQL refused a plan's own content (data exception or constraint violation,
 * SQLSTATE classes 22 and 23): retrying cannot help. Anything else (a full disk, a lost
 * connection) may pass, and must not cost a booking its schedule.
 */
const refusesContent = (e: unknown): boolean => /^2[23]/.test(pgErrorOf(e)?.code ?? "")

/**
 * Expands up to `limit` plans due at `now`, earliest first, skipping those another worker is
 * expanding; outside any transaction (each statement commits). A claim never passes a pending
 * plan (claimDueTicks), so ticks fire in due order across bookings whichever row shape they
 * were written in. If the statement fails because of a plan's content, each plan is expanded
 * alone and one PostgreSQL still refuses is marked `failed` with its error, as a tick is after
 * its last attempt: one bad plan must not hold back every tick due after it. Any other error
 * is thrown (the worker logs it and tries again).
 */
export const expandDuePlans = async (db: Queryable, now: number, limit: number): Promise<PlansExpanded> => {
  const due = (columns: SQL) => sql`select ${columns} from scheduled_ticks
    where state = 'pending' and kind = ${PLAN} and run_at <= ${iso(now)}::timestamptz
    order by run_at, rank limit ${limit} for update skip locked`
  try {
    return { expanded: await expandPlans(db, due(sql`id`)), failed: [] }
  } catch (e) {
    if (!refusesContent(e)) throw e
    let expanded = 0
    const failed: Array<{ bookingId: string; error: string }> = []
    for (const { id, booking_id } of await execute<{ id: number; booking_id: string }>(db, due(sql`id, booking_id`))) {
      try {
        expanded += await expandPlans(db, sql`select ${id}::bigint`)
      } catch (one) {
        if (!refusesContent(one)) throw one
        const error = one instanceof Error ? one.message : String(one)
        // Its first and last attempt (a plan is never claimed, so it has none before).
        await recordTickFailure(db, { id, attempts: 0 }, now, error, 1)
        failed.push({ bookingId: booking_id, error })
      }
    }
    return { expanded, failed }
  }
}

/** Expands a booking's plan, if it has one (the Temporal ledger's first step). */
const expandPlanOf = (tx: Queryable, bookingId: string): Promise<number> =>
  expandPlans(tx, sql`select id from scheduled_ticks where booking_id = ${bookingId} and state = 'pending' and kind = ${PLAN}`)

/** The timeline view of a stored booking (one occurrence: the booking's current times). */
export const timelineBookingOf = (
  booking: Booking,
  options: { readonly paymentExpiresAt?: number | undefined } = {},
): TimelineBooking => ({
  id: booking.id,
  status: booking.status,
  start: booking.start,
  end: booking.end,
  createdAt: booking.createdAt,
  paymentExpiresAt: options.paymentExpiresAt,
  checkedIn: booking.checkIns.length > 0,
})

/**
 * Replaces a booking's pending ticks with those of its current state, inside the caller's
 * transaction (create, update, payment, check-in; cancel/check-out/terminal leave none).
 *
 * - Ticks already fired (`done`) are kept and never re-inserted: the unique key makes a
 *   reschedule to the same time a no-op, so a reminder is sent at most once.
 * - A reminder whose due time is already past at `now` is not scheduled (an update that moved
 *   the start to 5 minutes from now must not announce "15 minutes to go"); transitions are
 *   always scheduled, overdue ones fire at once.
 * - On PostgreSQL a NOTIFY wakes every scheduler process when the transaction commits.
 */
export const scheduleTicks = (
  tx: Queryable,
  bookingId: string,
  snapshots: ReadonlyArray<LifecycleSnapshot>,
  now: number,
): Promise<void> => replaceTicks(tx, bookingId, snapshots, now, undefined)

/** Same, for a booking created in this transaction: nothing to drop first. */
export const scheduleNewTicks = (
  tx: Queryable,
  bookingId: string,
  snapshots: ReadonlyArray<LifecycleSnapshot>,
  now: number,
): Promise<void> => replaceTicks(tx, bookingId, snapshots, now, [])

/** Same, for some occurrences of a series only: the other occurrences' ticks stay. */
export const replaceOccurrenceTicks = (
  tx: Queryable,
  bookingId: string,
  snapshots: ReadonlyArray<LifecycleSnapshot>,
  now: number,
): Promise<void> =>
  replaceTicks(
    tx,
    bookingId,
    snapshots,
    now,
    snapshots.map((x) => x.occurrenceIndex),
  )

/**
 * The TickStore port's replace: `occurrences` undefined drops every pending tick first, a list
 * only those occurrences' (an empty list: nothing, the booking is new).
 */
export const replaceTicks = async (
  tx: Queryable,
  bookingId: string,
  snapshots: ReadonlyArray<LifecycleSnapshot>,
  now: number,
  occurrences: ReadonlyArray<number> | undefined,
): Promise<void> => {
  // The hold, the delete and the insert in one round trip, run in order (`pipeline`): the
  // delete is still a statement of its own, after the hold.
  const statements: Array<Sendable<unknown>> = []
  if (occurrences === undefined) {
    statements.push(holdPlanOf(tx, bookingId), deletePending(tx, bookingId))
  } else if (occurrences.length > 0) {
    const list = sql.join(
      occurrences.map((o) => sql`${o}`),
      sql`, `,
    )
    statements.push(
      holdPlanOf(tx, bookingId),
      tx.execute(sql`delete from scheduled_ticks
        where booking_id = ${bookingId} and state = 'pending' and occurrence_index in (${list})`),
    )
  }
  const insert = ticksInsert(tx, bookingId, snapshots, now)
  if (insert) statements.push(insert)
  await pipeline(...statements)
}

/**
 * The insert of the ticks of `snapshots` (unsent; undefined when none is due), waking the
 * workers once the transaction commits. A create sends it in the same round trip as its rows.
 */
export const ticksInsert = (
  tx: Queryable,
  bookingId: string,
  snapshots: ReadonlyArray<LifecycleSnapshot>,
  now: number,
) => {
  const rows = ticksToSchedule(bookingId, snapshots, now)
  if (rows.length === 0) return undefined
  // The earliest run time among them: a worker already due to look sooner need not wake.
  notifyTicks(tx, Math.min(...rows.map((t) => t.dueAt)))
  // One text whatever the number of ticks (prepared once per connection; a VALUES list was a
  // text per count, and past 16 parameters an unnamed statement parsed each time), the rows
  // as one JSON parameter, as a create sends its first ticks (TICKS_FROM_B).
  const json = JSON.stringify(
    rows.map((t) => ({ booking_id: t.bookingId, occurrence_index: t.occurrenceIndex, kind: t.kind, rank: tickRank[t.kind], due_ms: t.dueAt })),
  )
  return tx.execute(sql`
    insert into scheduled_ticks (booking_id, occurrence_index, kind, rank, due_at, run_at, created_at)
    select r.booking_id, r.occurrence_index, r.kind, r.rank, ${DUE}, ${DUE}, ${iso(now)}::timestamptz
    from json_to_recordset(${json}::text::json) as r(booking_id text, occurrence_index integer, kind text, rank integer, due_ms float8)
    on conflict (booking_id, kind, due_at) do nothing`)
}

/**
 * Waits for a worker expanding the booking's plan, and keeps workers off it from now on: the
 * delete that follows is a new statement, so it sees the ticks an expansion committed meanwhile
 * (a delete already waiting on the plan row would skip the row and miss them).
 */
const holdPlanOf = (tx: Queryable, bookingId: string) =>
  tx.execute(sql`select id from scheduled_ticks
    where booking_id = ${bookingId} and state = 'pending' and kind = ${PLAN} for update`)

const deletePending = (tx: Queryable, bookingId: string) =>
  tx.execute(sql`delete from scheduled_ticks where booking_id = ${bookingId} and state = 'pending'`)

/**
 * Drops every pending tick of a booking (cancel, check-out, reject, any terminal state). The
 * hold and the delete are sent together and run in order (one round trip): the delete is still
 * a statement of its own, after the hold.
 */
export const dropBookingTicks = async (tx: Queryable, bookingId: string): Promise<void> => {
  await pipeline(holdPlanOf(tx, bookingId), deletePending(tx, bookingId))
}

// Workers here and in other processes are woken after the commit (database.ts), not by a
// NOTIFY inside the booking transaction.
const notifyTicks = (tx: Queryable, dueAt: number): void => wakeAfterCommit(tx, TICKS_CHANNEL, dueAt)

/** A claimed row. */
export interface ClaimedTick extends BookingTick {
  readonly id: number
  readonly attempts: number
  /** When the tick was planned (a reschedule plans ticks already due). */
  readonly createdAt: number
}

interface ClaimRow {
  id: number | string
  booking_id: string
  occurrence_index: number
  kind: TickKind
  due_ms: number | string
  created_ms: number | string
  attempts: number
}

/** A claimed tick's columns (ClaimRow), for both ways a tick is claimed. */
const CLAIM_COLUMNS = sql.raw(`id, booking_id, occurrence_index, kind, attempts,
  (extract(epoch from due_at) * 1000)::float8 as due_ms,
  (extract(epoch from created_at) * 1000)::float8 as created_ms`)

/**
 * Claims up to `limit` pending ticks runnable at `now`, in due order, locking them for the
 * caller's transaction. SKIP LOCKED lets several processes claim disjoint rows concurrently.
 * The order is exactly the partial index's (run_at, rank): an index scan that stops at
 * `limit`, whatever the number of pending ticks (no sort over the backlog).
 *
 * - Only a booking's earliest pending tick: with a backlog, a second worker that skipped a
 *   booking's locked reminder would otherwise claim its end, and the end's transition would drop
 *   the reminder its first worker then deferred (the booking was locked by the end): a tick
 *   lost, found by two-workers.test.ts. The next tick is claimed once the earlier one is done.
 *   Earliest by due time, not run time: a failed tick's retry (run_at moved on by its backoff,
 *   from a manual clock already at an advance's end) holds the booking's later ticks until it
 *   is applied, so an end never runs before the no-show it follows.
 * - Plan rows are not ticks: none is claimed, and no tick at or after a pending plan's
 *   (run_at, rank) (expandDuePlans first), tested on the plans' own index.
 */
export const claimDueTicks = async (
  tx: Queryable,
  now: number,
  limit: number,
): Promise<Array<ClaimedTick>> => {
  const rows = await execute<ClaimRow>(
    tx,
    sql`select ${CLAIM_COLUMNS}
        from scheduled_ticks t
        where state = 'pending' and run_at <= ${iso(now)}::timestamptz and kind <> ${PLAN}
          and not exists (select 1 from scheduled_ticks p
            where p.state = 'pending' and p.kind = ${PLAN} and (p.run_at, p.rank) <= (t.run_at, t.rank))
          and not exists (select 1 from scheduled_ticks e
            where e.booking_id = t.booking_id and e.state = 'pending' and (e.due_at, e.rank) < (t.due_at, t.rank))
        order by run_at, rank
        limit ${limit}
        for update skip locked`,
  )
  return rows.map(toClaimed)
}

/**
 * The fired ledger: marks a tick done, inserting it if it was never scheduled here (Temporal
 * mode). Returns false when it had already fired, so the caller applies nothing: this is what
 * makes a retried activity or a second worker harmless. The booking's plan, if any, is
 * expanded first: its ticks become rows of their own, so the plan does not stay pending.
 */
export const markTickFired = async (
  tx: Queryable,
  tick: BookingTick,
  at: number,
): Promise<boolean> => {
  await expandPlanOf(tx, tick.bookingId)
  const rows = await execute<{ id: unknown }>(
    tx,
    sql`insert into scheduled_ticks
          (booking_id, occurrence_index, kind, rank, due_at, run_at, state, attempts, fired_at, created_at)
        values (${tick.bookingId}, ${tick.occurrenceIndex}, ${tick.kind}, ${tickRank[tick.kind]},
          ${iso(tick.dueAt)}::timestamptz, ${iso(tick.dueAt)}::timestamptz, 'done', 1,
          ${iso(at)}::timestamptz, ${iso(at)}::timestamptz)
        on conflict (booking_id, kind, due_at) do update
          set state = 'done', fired_at = excluded.fired_at,
              attempts = scheduled_ticks.attempts + 1, last_error = null
          where scheduled_ticks.state <> 'done'
        returning id`,
  )
  return rows.length > 0
}

/**
 * The embedded worker's ledger step for a row it has claimed: false when the row is gone or
 * no longer pending (the booking's own transition earlier in this batch dropped it).
 */
export const markClaimedTickFired = async (
  tx: Queryable,
  tick: ClaimedTick,
  at: number,
): Promise<boolean> => {
  const rows = await execute<{ id: unknown }>(
    tx,
    sql`update scheduled_ticks
        set state = 'done', fired_at = ${iso(at)}::timestamptz, attempts = attempts + 1,
            last_error = null
        where id = ${tick.id} and state = 'pending'
        returning id`,
  )
  return rows.length > 0
}

/** Undoes markClaimedTickFired when the booking turned out to be locked (tick deferred). */
export const unmarkTickFired = async (tx: Queryable, tick: ClaimedTick): Promise<void> => {
  await tx.execute(sql`update scheduled_ticks
    set state = 'pending', fired_at = null, attempts = attempts - 1 where id = ${tick.id}`)
}

/** Re-claims one row for a transaction of its own (the slow path after a failed batch). */
export const claimTickById = async (
  tx: Queryable,
  id: number,
  now: number,
): Promise<ClaimedTick | undefined> => {
  const rows = await execute<ClaimRow>(
    tx,
    sql`select ${CLAIM_COLUMNS}
        from scheduled_ticks
        where id = ${id} and state = 'pending' and run_at <= ${iso(now)}::timestamptz
        for update skip locked`,
  )
  return rows.map(toClaimed)[0]
}

const toClaimed = (r: ClaimRow): ClaimedTick => ({
  id: Number(r.id),
  bookingId: r.booking_id,
  occurrenceIndex: Number(r.occurrence_index),
  kind: r.kind,
  dueAt: Number(r.due_ms),
  attempts: Number(r.attempts),
  createdAt: Number(r.created_ms),
})

/** After a failed attempt: retry later with exponential backoff, give up after `maxAttempts`. */
export const recordTickFailure = async (
  tx: Queryable,
  tick: Pick<ClaimedTick, "id" | "attempts">,
  now: number,
  error: string,
  maxAttempts: number,
): Promise<"retry" | "failed"> => {
  const attempts = tick.attempts + 1
  const failed = attempts >= maxAttempts
  const retryAt = now + Math.min(2 ** attempts * 1000, 5 * 60_000)
  await tx.execute(sql`
    update scheduled_ticks
      set attempts = ${attempts}, last_error = ${error.slice(0, 2000)},
          state = ${failed ? "failed" : "pending"}, run_at = ${iso(retryAt)}::timestamptz
      where id = ${tick.id}`)
  return failed ? "failed" : "retry"
}

/** The earliest run time of a pending tick, if any (how long the worker may sleep). */
export const nextRunAt = async (q: Queryable): Promise<number | undefined> => {
  const rows = await execute<{ next_ms: number | string | null }>(
    q,
    sql`select (extract(epoch from min(run_at)) * 1000)::float8 as next_ms
        from scheduled_ticks where state = 'pending'`,
  )
  const next = rows[0]?.next_ms
  return next === null || next === undefined ? undefined : Number(next)
}

/** How many ticks are pending, a plan row counted as the ticks it stands for (the gauge, the bench). */
export const countPendingTicks = async (q: Queryable): Promise<number> => {
  const rows = await execute<{ n: number | string }>(
    q,
    sql`select coalesce(sum(case when kind = ${PLAN} then jsonb_array_length(plan) else 1 end), 0)::int as n
        from scheduled_ticks where state = 'pending'`,
  )
  return Number(rows[0]?.n ?? 0)
}

/** How many pending ticks are runnable at `now` (locked ones included). */
export const countRunnable = async (q: Queryable, now: number): Promise<number> => {
  const rows = await execute<{ n: number | string }>(
    q,
    sql`select count(*)::int as n from scheduled_ticks
        where state = 'pending' and run_at <= ${iso(now)}::timestamptz`,
  )
  return Number(rows[0]?.n ?? 0)
}

/** The TickStore port over scheduled_ticks (the embedded worker's claims use the functions above). */
export const TickStorePostgres = Layer.succeed(
  TickStore,
  TickStore.of({
    replace: (bookingId, snapshots, now, only) =>
      write("TickStore.replace", (tx) => replaceTicks(tx, bookingId, snapshots, now, only)),
    drop: (bookingId) => write("TickStore.drop", (tx) => dropBookingTicks(tx, bookingId)),
    markFired: (tick, at) => write("TickStore.markFired", (tx) => markTickFired(tx, tick, at)),
  }),
)
