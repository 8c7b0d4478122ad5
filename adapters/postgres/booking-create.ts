import { getTableColumns, type Table } from "drizzle-orm"
import type { Sql } from "postgres"
import { newBookingRecord, newSlotRecords, type BookingExtras } from "../../core/booking/meeting.ts"
import type { Occurrence } from "../../core/booking/recurrence.ts"
import { tickRank } from "../../core/booking/timeline.ts"
import { ticksToSchedule } from "../../core/booking/tick-schedule.ts"
import type { Transitioned } from "../../core/booking/transitions.ts"
import type { FirstTicks, InsertedBooking } from "../../core/ports/booking-store.ts"
import { SlotTaken } from "../../core/booking/errors.ts"
import { historyValues } from "./booking-repo.ts"
import { pgErrorOf, wakeAfterCommit, type Db } from "./database.ts"
import { OUTBOX_CHANNEL, outboxValues } from "./outbox.ts"
import { bookingHistoriesTable, bookingSlotsTable, bookingsTable, outboxEventsTable } from "./tables/bookings.ts"
import { TICKS_CHANNEL } from "./tick-store.ts"

/** The timestamptz of an expression in epoch milliseconds (exact for whole milliseconds). */
const EPOCH_MS = (ms: string): string => `(timestamptz 'epoch' + ${ms} * interval '1 millisecond')`

/**
 * `insert into <table> (<columns>) select <the same> from <source>, jsonb_to_recordset(<param>)`:
 * the rows travel as ONE JSON text parameter keyed by the Drizzle property names (`json`), so
 * the statement text is fixed and prepared once per connection, and no per-column encoding runs
 * in Node. Timestamp columns travel as epoch milliseconds: JSON.stringify of a Date (its toJSON,
 * which also takes the whole object off the serialiser's fast path) was ~1.4 us per instant, a
 * create has about twenty.
 */
const insertFromJson = (table: Table, name: string, from: string | undefined, param: string, where = "") => {
  const columns = Object.entries(getTableColumns(table))
  const isInstant = (c: (typeof columns)[number][1]) => c.dataType === "date" && c.getSQLType().startsWith("timestamp")
  const instants = columns.filter(([, c]) => isInstant(c)).map(([key]) => key)
  const names = columns.map(([, c]) => `"${c.name}"`).join(", ")
  const picked = columns.map(([key, c]) => (isInstant(c) ? EPOCH_MS(`r."${key}"`) : `r."${key}"`)).join(", ")
  const defs = columns.map(([key, c]) => `"${key}" ${isInstant(c) ? "float8" : c.getSQLType()}`).join(", ")
  const json = (rows: ReadonlyArray<object>): string =>
    JSON.stringify(
      rows.map((row) => {
        const wire: Record<string, unknown> = { ...row }
        for (const key of instants) {
          const v = wire[key]
          if (v instanceof Date) wire[key] = v.getTime()
        }
        return wire
      }),
    )
  const source = `jsonb_to_recordset(${param}::text::jsonb) as r(${defs})`
  return { sql: `insert into ${name} (${names}) select ${picked} from ${from === undefined ? source : `${from}, ${source}`}${where}`, json }
}

const BOOKINGS = insertFromJson(bookingsTable, "bookings", "l", "$2")
const SLOTS = insertFromJson(bookingSlotsTable, "booking_slots", "b", "$3")
const HISTORIES = insertFromJson(bookingHistoriesTable, "booking_histories", "b", "$4")
const EVENTS = insertFromJson(outboxEventsTable, "outbox_events", "b", "$5")

/** The first ticks ($6, JSON rows) of the bookings CTE `b` wrote; a tick already there is kept. */
const TICKS_FROM_B = [
  `insert into scheduled_ticks (booking_id, occurrence_index, kind, rank, due_at, run_at, created_at)`,
  `    select r.booking_id, r.occurrence_index, r.kind, r.rank, ${EPOCH_MS("r.due_ms")}, ${EPOCH_MS("r.due_ms")}, ${EPOCH_MS("r.created_ms")}`,
  `    from b, jsonb_to_recordset($6::text::jsonb)`,
  `      as r(booking_id text, occurrence_index integer, kind text, rank integer, due_ms float8, created_ms float8)`,
  `    where r.booking_id = b.id on conflict (booking_id, kind, due_at) do nothing`,
].join("\n")

/**
 * The whole write of a free create as one autocommit statement (one round trip instead of
 * BEGIN, the batch, COMMIT). Data-modifying CTEs run in the order their FROM clauses force:
 * the asset's advisory lock first (writers of one asset queue, as in insertBooking), then the
 * booking, then the rows that select from it; the foreign keys are checked at the end of the
 * statement. The exclusion constraint on booking_slots still decides a contended slot (23P01,
 * the whole statement rolls back).
 */
const CREATE_STATEMENT = [
  `with l as (select pg_advisory_xact_lock(hashtext($1::text)) as locked)`,
  `, b as (${BOOKINGS.sql} returning id)`,
  `, s as (${SLOTS.sql})`,
  `, h as (${HISTORIES.sql})`,
  `, o as (${EVENTS.sql})`,
  `, t as (${TICKS_FROM_B})`,
  `select count(*)::int as n from b`,
].join("\n")

/** The postgres-js client under a Drizzle database (postgres-js engine only). */
const clientOf = (db: Db): Sql => (db as unknown as { $client: Sql }).$client

/** A create's rows, built before they are written (alone or with other creates). */
interface CreateRows {
  readonly assetId: string
  readonly bookingId: string
  readonly row: ReturnType<typeof newBookingRecord>
  readonly slots: ReturnType<typeof newSlotRecords>
  readonly history: ReturnType<typeof historyValues>
  readonly events: ReturnType<typeof outboxValues>
  readonly ticks: ReadonlyArray<{ booking_id: string; occurrence_index: number; kind: string; rank: number; due_ms: number; created_ms: number }>
}

const rowsOf = (
  newId: () => string,
  created: Transitioned,
  occurrences: ReadonlyArray<Occurrence>,
  extras: BookingExtras,
  ticks: FirstTicks | undefined,
): CreateRows => {
  const b = created.booking
  const now = ticks?.now ?? 0
  const due = ticks === undefined ? [] : ticksToSchedule(b.id, ticks.snapshots, now)
  return {
    assetId: b.assetId,
    bookingId: b.id,
    row: newBookingRecord(b, extras),
    slots: newSlotRecords(newId, b, occurrences),
    history: historyValues(newId, b.id, created.history, undefined),
    events: outboxValues(newId, { projectId: b.projectId, bookingId: b.id, assetKind: b.assetKind }, created.events),
    ticks: due.map((t) => ({
      booking_id: t.bookingId,
      occurrence_index: t.occurrenceIndex,
      kind: t.kind,
      rank: tickRank[t.kind],
      due_ms: t.dueAt,
      created_ms: now,
    })),
  }
}

const insertedOf = (r: CreateRows): InsertedBooking => ({ row: r.row, slots: r.slots, histories: [r.history] })

/** Committed: wake this process's workers (and, coalesced, the other processes'). */
const wakeWorkers = (db: Db, written: ReadonlyArray<CreateRows>): void => {
  if (written.some((r) => r.events.length > 0)) wakeAfterCommit(db, OUTBOX_CHANNEL)
  let first = Number.POSITIVE_INFINITY
  for (const r of written) for (const t of r.ticks) first = Math.min(first, t.due_ms)
  if (first !== Number.POSITIVE_INFINITY) wakeAfterCommit(db, TICKS_CHANNEL, first)
}

/** One create's rows in the single statement; a taken slot fails it with 23P01. */
const writeAlone = async (db: Db, r: CreateRows): Promise<InsertedBooking> => {
  await clientOf(db).unsafe(
    CREATE_STATEMENT,
    [r.assetId, BOOKINGS.json([r.row]), SLOTS.json(r.slots), HISTORIES.json([r.history]), EVENTS.json(r.events), JSON.stringify(r.ticks)],
    { prepare: true },
  )
  wakeWorkers(db, [r])
  return insertedOf(r)
}

/**
 * Writes a new booking (rows, create history, events, first ticks) in one statement outside any
 * transaction, then wakes the relay and the scheduler as a committed transaction would. Returns
 * what was written, built here (nothing is read back).
 */
export const insertBookingAlone = (
  db: Db,
  newId: () => string,
  created: Transitioned,
  occurrences: ReadonlyArray<Occurrence>,
  extras: BookingExtras,
  ticks: FirstTicks | undefined,
): Promise<InsertedBooking> => writeAlone(db, rowsOf(newId, created, occurrences, extras, ticks))

// --- group commit: concurrent single-slot creates in one statement -------------------------

/*
 * Under load most of a create's cost is PostgreSQL's per statement and per commit (parse-free
 * bind, executor start, the WAL flush a commit waits for), not its rows. Creates that reach the
 * store while others are in flight are written together: one autocommit statement, one commit.
 * The slots go first with ON CONFLICT DO NOTHING (the exclusion constraint as arbiter, so a
 * taken slot skips its row instead of failing the statement), and every other row of a booking
 * is written only if its slot was: a booking whose slot is missing from the answer is SlotTaken.
 * Assets are locked in one order (sorted lock keys), so two batches never deadlock on each other.
 */
const BATCH_SLOTS = insertFromJson(bookingSlotsTable, "booking_slots", "l", "$3", " on conflict do nothing returning booking_id")
const BATCH_BOOKINGS = insertFromJson(bookingsTable, "bookings", undefined, "$2", ` where r."id" in (select booking_id from s)`)
const BATCH_HISTORIES = insertFromJson(bookingHistoriesTable, "booking_histories", "b", "$4", ` where r."bookingId" = b.id`)
const BATCH_EVENTS = insertFromJson(outboxEventsTable, "outbox_events", "b", "$5", ` where r."bookingId" = b.id`)

const BATCH_STATEMENT = [
  `with l as (select count(pg_advisory_xact_lock(k))::int as locked from (select distinct hashtext(a) as k from unnest($1::text[]) as a order by 1) as keys)`,
  `, s as (${BATCH_SLOTS.sql})`,
  `, b as (${BATCH_BOOKINGS.sql} returning id)`,
  `, h as (${BATCH_HISTORIES.sql})`,
  `, o as (${BATCH_EVENTS.sql})`,
  `, t as (${TICKS_FROM_B})`,
  `select id from b`,
].join("\n")

interface Queued {
  readonly rows: CreateRows
  readonly resolve: (inserted: InsertedBooking) => void
  readonly reject: (e: unknown) => void
}

export interface CreateBatcher {
  /** Writes a new single-slot booking with whatever other creates are waiting; SlotTaken if its slot is taken. */
  readonly insert: (
    created: Transitioned,
    occurrences: ReadonlyArray<Occurrence>,
    extras: BookingExtras,
    ticks: FirstTicks | undefined,
  ) => Promise<InsertedBooking>
}

/**
 * At most `inFlight` batch statements at once (two: one commits while the next fills, measured
 * against one and four in bench/README.md), each of at most `maxBatch` creates (a multi-row
 * statement's cost grows with it; 32 is far above what 64 clients queue). A create arriving
 * with nothing in flight leaves at once; with one statement in flight, at the end of the
 * event-loop turn, together with the creates that arrived in it.
 */
export const makeCreateBatcher = (db: Db, newId: () => string, inFlightLimit = 2, maxBatch = 32): CreateBatcher => {
  const queue: Queued[] = []
  let inFlight = 0
  let scheduled = false

  const send = async (batch: ReadonlyArray<Queued>): Promise<void> => {
    const rows = batch.map((q) => q.rows)
    let inserted: ReadonlySet<string>
    try {
      const answer = await clientOf(db).unsafe<Array<{ id: string }>>(
        BATCH_STATEMENT,
        [
          rows.map((r) => r.assetId),
          BATCH_BOOKINGS.json(rows.map((r) => r.row)),
          BATCH_SLOTS.json(rows.flatMap((r) => r.slots)),
          BATCH_HISTORIES.json(rows.map((r) => r.history)),
          BATCH_EVENTS.json(rows.flatMap((r) => r.events)),
          JSON.stringify(rows.flatMap((r) => r.ticks)),
        ],
        { prepare: true },
      )
      inserted = new Set(answer.map((a) => a.id))
    } catch (e) {
      // PostgreSQL refused the statement (a deadlock against another kind of writer, a row it
      // rejects): nothing was written, so each create goes alone and gets its own answer. A lost
      // connection may have lost the answer of a commit: no retry, every create gets the error.
      if (pgErrorOf(e) === undefined) for (const q of batch) q.reject(e)
      else await Promise.all(batch.map((q) => writeAlone(db, q.rows).then(q.resolve, q.reject)))
      return
    }
    const written = rows.filter((r) => inserted.has(r.bookingId))
    if (written.length > 0) wakeWorkers(db, written)
    for (const q of batch)
      if (inserted.has(q.rows.bookingId)) q.resolve(insertedOf(q.rows))
      else q.reject(new SlotTaken({ assetId: q.rows.assetId }))
  }

  const flush = () => {
    scheduled = false
    while (inFlight < inFlightLimit && queue.length > 0) {
      const batch = queue.splice(0, maxBatch)
      inFlight++
      void send(batch).finally(() => {
        inFlight--
        if (queue.length > 0 && !scheduled) flush()
      })
    }
  }

  return {
    insert: (created, occurrences, extras, ticks) =>
      new Promise<InsertedBooking>((resolve, reject) => {
        queue.push({ rows: rowsOf(newId, created, occurrences, extras, ticks), resolve, reject })
        if (scheduled || inFlight >= inFlightLimit) return
        // Nothing in flight: no one to wait for, it leaves now. Otherwise the creates that reach
        // this point in the same turn of the event loop leave together.
        if (inFlight === 0) return flush()
        scheduled = true
        setImmediate(flush)
      }),
  }
}
