import { getTableColumns, type Table } from "drizzle-orm"
import type { Sql } from "postgres"
import { newBookingRecord, newSlotRecords, type BookingExtras } from "../../core/booking/meeting.ts"
import type { Occurrence } from "../../core/booking/recurrence.ts"
import { ticksToSchedule } from "../../core/booking/tick-schedule.ts"
import type { Transitioned } from "../../core/booking/transitions.ts"
import type { FirstTicks, InsertedBooking } from "../../core/ports/booking-store.ts"
import { assetLockKey, historyValues } from "./booking-repo.ts"
import { EPOCH_MS, wakeAfterCommit, type Db } from "./database.ts"
import { OUTBOX_CHANNEL, outboxValues } from "./outbox.ts"
import { bookingHistoriesTable, bookingSlotsTable, bookingsTable, outboxEventsTable } from "./tables/bookings.ts"
import { firstTickRows, TICKS_CHANNEL, type FirstTickRow } from "./tick-store.ts"


/**
 * `insert into <table> (<columns>) select <the same> from <source>, json_to_recordset(<param>) <tail>`:
 * the rows travel as ONE JSON text parameter keyed by the Drizzle property names (`json`), so
 * the statement text is fixed and prepared once per connection, and no per-column encoding runs
 * in Node. Timestamp columns travel as epoch milliseconds: JSON.stringify of a Date (its toJSON,
 * which also takes the whole object off the serialiser's fast path) was ~1.4 us per instant, a
 * create has about twenty.
 */
export const insertFromJson = (table: Table, name: string, from: string | undefined, param: string, tail = "") => {
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
  const source = `json_to_recordset(${param}::text::json) as r(${defs})`
  return { sql: `insert into ${name} (${names}) select ${picked} from ${from === undefined ? source : `${from}, ${source}`}${tail}`, json }
}

const BOOKINGS = insertFromJson(bookingsTable, "bookings", "l", "$2")
const SLOTS = insertFromJson(bookingSlotsTable, "booking_slots", "b", "$3")
const HISTORIES = insertFromJson(bookingHistoriesTable, "booking_histories", "b", "$4")
const EVENTS = insertFromJson(outboxEventsTable, "outbox_events", "b", "$5", " returning project_id, type")

/**
 * The first tick rows ($6, JSON: `firstTickRows`, a plan row for a single booking) of the
 * bookings CTE `b` wrote; a tick already there is kept.
 */
export const TICKS_FROM_B = [
  `insert into scheduled_ticks (booking_id, occurrence_index, kind, rank, due_at, run_at, created_at, plan)`,
  `    select r.booking_id, r.occurrence_index, r.kind, r.rank, ${EPOCH_MS("r.due_ms")}, ${EPOCH_MS("r.due_ms")}, ${EPOCH_MS("r.created_ms")}, r.plan`,
  `    from b, json_to_recordset($6::text::json)`,
  `      as r(booking_id text, occurrence_index integer, kind text, rank integer, due_ms float8, created_ms float8, plan jsonb)`,
  `    where r.booking_id = b.id on conflict (booking_id, kind, due_at) do nothing`,
].join("\n")

/**
 * Whether an enabled webhook wants any event the statement wrote (its CTE `o`, returning
 * project_id and type), by the outbox trigger's own rule (webhook_subscribed), asked once per
 * statement: the relay is woken only when something was queued for it. Most projects
 * subscribe to nothing, and a relay round per commit was a statement that found the queue empty.
 */
export const EVENTS_WANTED =
  `(select coalesce(bool_or(webhook_subscribed(k.project_id, k.type)), false) from (select distinct project_id, type from o) as k) as wanted`

/**
 * The whole write of a free create as one autocommit statement (one round trip instead of
 * BEGIN, the batch, COMMIT). Data-modifying CTEs run in the order their FROM clauses force:
 * the asset's advisory lock first (writers of one asset queue, as in insertBooking), then the
 * booking, then the rows that select from it; the foreign keys are checked at the end of the
 * statement. The exclusion constraint on booking_slots still decides a contended slot (23P01,
 * the whole statement rolls back).
 */
const CREATE_STATEMENT = [
  `with l as (select pg_advisory_xact_lock(${assetLockKey("$1::text")}) as locked)`,
  `, b as (${BOOKINGS.sql} returning id)`,
  `, s as (${SLOTS.sql})`,
  `, h as (${HISTORIES.sql})`,
  `, o as (${EVENTS.sql})`,
  `, t as (${TICKS_FROM_B})`,
  `select (select count(*)::int from b) as n, ${EVENTS_WANTED}`,
].join("\n")

/** The postgres-js client under a Drizzle database (postgres-js engine only). */
export const clientOf = (db: Db): Sql => (db as unknown as { $client: Sql }).$client

/** A create's rows, built before they are written (alone or with other creates). */
export interface CreateRows {
  readonly assetId: string
  readonly bookingId: string
  readonly row: ReturnType<typeof newBookingRecord>
  readonly slots: ReturnType<typeof newSlotRecords>
  readonly history: ReturnType<typeof historyValues>
  readonly events: ReturnType<typeof outboxValues>
  readonly ticks: ReadonlyArray<FirstTickRow>
}

export const rowsOf = (
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
    ticks: firstTickRows(b.id, due, now, occurrences.length === 1),
  }
}

export const insertedOf = (r: CreateRows): InsertedBooking => ({ row: r.row, slots: r.slots, histories: [r.history] })

/**
 * Committed: wake this process's workers (and, coalesced, the other processes'); the relay only
 * when an event was queued for it (`wanted`, EVENTS_WANTED).
 */
export const wakeWorkers = (db: Db, written: ReadonlyArray<CreateRows>, wanted: boolean): void => {
  if (wanted) wakeAfterCommit(db, OUTBOX_CHANNEL)
  let first = Number.POSITIVE_INFINITY
  for (const r of written) for (const t of r.ticks) first = Math.min(first, t.due_ms)
  if (first !== Number.POSITIVE_INFINITY) wakeAfterCommit(db, TICKS_CHANNEL, first)
}

/** One create's rows in the single statement; a taken slot fails it with 23P01. */
export const writeAlone = async (db: Db, r: CreateRows): Promise<InsertedBooking> => {
  const [answer] = await clientOf(db).unsafe<[{ n: number; wanted: boolean }]>(
    CREATE_STATEMENT,
    [r.assetId, BOOKINGS.json([r.row]), SLOTS.json(r.slots), HISTORIES.json([r.history]), EVENTS.json(r.events), JSON.stringify(r.ticks)],
    { prepare: true },
  )
  wakeWorkers(db, [r], answer.wanted)
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
