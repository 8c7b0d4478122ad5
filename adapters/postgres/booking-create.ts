import { getTableColumns, type Table } from "drizzle-orm"
import type { Sql } from "postgres"
import { newBookingRecord, newSlotRecords, type BookingExtras } from "../../core/booking/meeting.ts"
import type { Occurrence } from "../../core/booking/recurrence.ts"
import { tickRank } from "../../core/booking/timeline.ts"
import { ticksToSchedule } from "../../core/booking/tick-schedule.ts"
import type { Transitioned } from "../../core/booking/transitions.ts"
import type { FirstTicks, InsertedBooking } from "../../core/ports/booking-store.ts"
import { historyValues } from "./booking-repo.ts"
import { wakeAfterCommit, type Db } from "./database.ts"
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
const insertFromJson = (table: Table, name: string, from: string, param: string) => {
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
  return { sql: `insert into ${name} (${names}) select ${picked} from ${from}, jsonb_to_recordset(${param}::text::jsonb) as r(${defs})`, json }
}

const BOOKINGS = insertFromJson(bookingsTable, "bookings", "l", "$2")
const SLOTS = insertFromJson(bookingSlotsTable, "booking_slots", "b", "$3")
const HISTORIES = insertFromJson(bookingHistoriesTable, "booking_histories", "b", "$4")
const EVENTS = insertFromJson(outboxEventsTable, "outbox_events", "b", "$5")

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
  `, t as (insert into scheduled_ticks (booking_id, occurrence_index, kind, rank, due_at, run_at, created_at)`,
  `    select r.booking_id, r.occurrence_index, r.kind, r.rank, ${EPOCH_MS("r.due_ms")}, ${EPOCH_MS("r.due_ms")}, ${EPOCH_MS("r.created_ms")}`,
  `    from b, jsonb_to_recordset($6::text::jsonb)`,
  `      as r(booking_id text, occurrence_index integer, kind text, rank integer, due_ms float8, created_ms float8)`,
  `    on conflict (booking_id, kind, due_at) do nothing)`,
  `select count(*)::int as n from b`,
].join("\n")

/** The postgres-js client under a Drizzle database (postgres-js engine only). */
const clientOf = (db: Db): Sql => (db as unknown as { $client: Sql }).$client

/**
 * Writes a new booking (rows, create history, events, first ticks) in one statement outside any
 * transaction, then wakes the relay and the scheduler as a committed transaction would. Returns
 * what was written, built here (nothing is read back).
 */
export const insertBookingAlone = async (
  db: Db,
  newId: () => string,
  created: Transitioned,
  occurrences: ReadonlyArray<Occurrence>,
  extras: BookingExtras,
  ticks: FirstTicks | undefined,
): Promise<InsertedBooking> => {
  const b = created.booking
  const row = newBookingRecord(b, extras)
  const slots = newSlotRecords(newId, b, occurrences)
  const history = historyValues(newId, b.id, created.history, undefined)
  const events = outboxValues(newId, { projectId: b.projectId, bookingId: b.id, assetKind: b.assetKind }, created.events)
  const now = ticks?.now ?? 0
  const due = ticks === undefined ? [] : ticksToSchedule(b.id, ticks.snapshots, now)
  const tickRows = due.map((t) => ({
    booking_id: t.bookingId,
    occurrence_index: t.occurrenceIndex,
    kind: t.kind,
    rank: tickRank[t.kind],
    due_ms: t.dueAt,
    created_ms: now,
  }))
  await clientOf(db).unsafe(
    CREATE_STATEMENT,
    [b.assetId, BOOKINGS.json([row]), SLOTS.json(slots), HISTORIES.json([history]), EVENTS.json(events), JSON.stringify(tickRows)],
    { prepare: true },
  )
  // Committed: wake this process's workers (and, coalesced, the other processes').
  if (events.length > 0) wakeAfterCommit(db, OUTBOX_CHANNEL)
  if (due.length > 0) wakeAfterCommit(db, TICKS_CHANNEL, Math.min(...due.map((t) => t.dueAt)))
  return { row, slots, histories: [history] }
}
