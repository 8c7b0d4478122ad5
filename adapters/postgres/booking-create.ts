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

/**
 * `insert into <table> (<columns>) select <the same> from <source>, jsonb_to_recordset(<param>)`:
 * the rows travel as ONE JSON text parameter keyed by the Drizzle property names (JSON.stringify
 * writes a Date as its ISO instant), so the statement text is fixed and prepared once per
 * connection, and no per-column encoding runs in Node.
 */
const insertFromJson = (table: Table, name: string, from: string, param: string): string => {
  const columns = Object.entries(getTableColumns(table))
  const names = columns.map(([, c]) => `"${c.name}"`).join(", ")
  const picked = columns.map(([key]) => `r."${key}"`).join(", ")
  const defs = columns.map(([key, c]) => `"${key}" ${c.getSQLType()}`).join(", ")
  return `insert into ${name} (${names}) select ${picked} from ${from}, jsonb_to_recordset(${param}::text::jsonb) as r(${defs})`
}

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
  `, b as (${insertFromJson(bookingsTable, "bookings", "l", "$2")} returning id)`,
  `, s as (${insertFromJson(bookingSlotsTable, "booking_slots", "b", "$3")})`,
  `, h as (${insertFromJson(bookingHistoriesTable, "booking_histories", "b", "$4")})`,
  `, o as (${insertFromJson(outboxEventsTable, "outbox_events", "b", "$5")})`,
  `, t as (insert into scheduled_ticks (booking_id, occurrence_index, kind, rank, due_at, run_at, created_at)`,
  `    select r.booking_id, r.occurrence_index, r.kind, r.rank, r.due_at, r.due_at, r.created_at`,
  `    from b, jsonb_to_recordset($6::text::jsonb)`,
  `      as r(booking_id text, occurrence_index integer, kind text, rank integer, due_at timestamptz, created_at timestamptz)`,
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
    due_at: new Date(t.dueAt),
    created_at: new Date(now),
  }))
  await clientOf(db).unsafe(
    CREATE_STATEMENT,
    [b.assetId, JSON.stringify([row]), JSON.stringify(slots), JSON.stringify([history]), JSON.stringify(events), JSON.stringify(tickRows)],
    { prepare: true },
  )
  // Committed: wake this process's workers (and, coalesced, the other processes').
  if (events.length > 0) wakeAfterCommit(db, OUTBOX_CHANNEL)
  if (due.length > 0) wakeAfterCommit(db, TICKS_CHANNEL, Math.min(...due.map((t) => t.dueAt)))
  return { row, slots, histories: [history] }
}
