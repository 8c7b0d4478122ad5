import { and, asc, eq, gt, inArray, lt, sql } from "drizzle-orm"
import type { AnyPgColumn } from "drizzle-orm/pg-core"
import type { HistoryEntry, Transitioned } from "../../core/booking/transitions.ts"
import {
  newBookingRecord,
  newSlotRecords,
  transitionedRowFields,
  transitionedSlotFields,
  type BookingExtras,
  type StoredBooking,
} from "../../core/booking/meeting.ts"
import { LIVE_STATUSES, type Booking } from "../../core/booking/state.ts"
import { SlotTaken } from "../../core/booking/errors.ts"
import type { Occurrence } from "../../core/booking/recurrence.ts"
import {
  execute,
  inSendOrder,
  pgErrorOf,
  pipeline,
  PG_DEADLOCK_DETECTED,
  PG_EXCLUSION_VIOLATION,
  type Queryable,
  type Sendable,
} from "./database.ts"
import { keptQuery, param, paramAs, paramsOf } from "./kept-query.ts"
import { outboxInsert, recordBookingEvents } from "./outbox.ts"
import { bookingHistoriesTable, bookingSlotsTable, bookingsTable } from "./tables/bookings.ts"
import { desksTable, roomsTable } from "./tables/tenancy.ts"
import type { LockedBooking } from "../../core/ports/booking-store.ts"

export { recordBookingEvents } from "./outbox.ts"

export type BookingRow = typeof bookingsTable.$inferSelect
export type SlotRow = typeof bookingSlotsTable.$inferSelect
export type HistoryRow = typeof bookingHistoriesTable.$inferSelect

export type { BookingExtras, StoredBooking } from "../../core/booking/meeting.ts"
export { toCoreBooking } from "../../core/booking/meeting.ts"

/**
 * Runs a slot write; an overlap refused by booking_slots_no_overlap becomes SlotTaken (SV012).
 * Writers of one asset first queue on a transaction-scoped advisory lock: two transactions
 * checking overlapping ranges at once would otherwise deadlock inside the exclusion check and
 * wait for PostgreSQL's deadlock timeout. With the lock the second writer sees the first's
 * committed slot and gets 23P01 at once. A deadlock (40P01) still means an overlapping writer won.
 */
const guardSlot = async <T>(tx: Queryable, assetId: string, write: () => Promise<T>): Promise<T> => {
  try {
    // The lock is awaited before the writes are sent: Drizzle's `execute` sends a few
    // microtasks later than a kept query, so sent together the writes went first.
    await lockAsset(tx, assetId)
    return await write()
  } catch (e) {
    throw slotError(e, assetId)
  }
}

/**
 * The advisory-lock key of an asset, from SQL text naming its id: every writer of the asset's
 * slots takes this one key (here, the create statement, the create batch, the scheduler batch),
 * so it is written once.
 */
export const assetLockKey = (assetIdSql: string): string => `hashtext(${assetIdSql})`

/** The asset's transaction-scoped lock that writers of its slots queue on (see guardSlot). */
const lockAsset = (tx: Queryable, assetId: string) =>
  tx.execute(sql`select pg_advisory_xact_lock(${sql.raw(assetLockKey("a.id"))}) from (select ${assetId}::text as id) as a`)

/**
 * Tries the same locks for the assets of several bookings, never waiting; answers the bookings
 * whose asset another transaction holds. A scheduler batch writes slots of many assets: taking
 * the locks write by write, two workers' batches took two assets in opposite orders and
 * deadlocked (PostgreSQL waits its deadlock timeout, 1 s, then aborts one), and waiting for one
 * while holding claimed ticks could deadlock with a user's change that deletes those ticks.
 */
export const tryLockAssetsOfBookings = async (tx: Queryable, bookingIds: ReadonlyArray<string>): Promise<ReadonlySet<string>> => {
  if (bookingIds.length === 0) return new Set()
  // Never waiting, the order is free; a second try of an asset already held answers true.
  const rows = await execute<{ id: string; got: boolean }>(
    tx,
    sql`select id, pg_try_advisory_xact_lock(${sql.raw(assetLockKey("asset_id"))}) as got from bookings
        where id in (${sql.join(bookingIds.map((id) => sql`${id}`), sql`, `)})`,
  )
  return new Set(rows.filter((r) => !r.got).map((r) => r.id))
}

/** An overlap refused by the exclusion index (or a deadlock against an overlapping writer). */
const slotError = (e: unknown, assetId: string): unknown => {
  const code = pgErrorOf(e)?.code
  return code === PG_EXCLUSION_VIOLATION || code === PG_DEADLOCK_DETECTED ? new SlotTaken({ assetId }) : e
}

export const historyValues = (
  newId: () => string,
  bookingId: string,
  history: HistoryEntry,
  data: Record<string, unknown> | undefined,
) => ({
  id: newId(),
  bookingId,
  action: history.action,
  at: new Date(history.at),
  by: history.by ?? null,
  data: data ?? null,
  // The service clock's instant of the change (never the database's clock).
  createdAt: new Date(history.at),
})

/**
 * Inserts a new booking, its slots, the create history and its events. The slot insert is
 * the double-booking guard: callers run this inside the create transaction.
 */
export const insertBooking = async (
  tx: Queryable,
  newId: () => string,
  created: Transitioned,
  occurrences: ReadonlyArray<Occurrence>,
  extras: BookingExtras,
  /** A statement that needs only the rows written here (the ticks): sent in the same batch. */
  after?: Sendable<unknown>,
): Promise<StoredBooking & { readonly histories: HistoryRow[] }> => {
  const b = created.booking
  const bookingInsert = tx
    .insert(bookingsTable)
    .values(newBookingRecord(b, extras))
    .returning()
  const slotInsert = tx.insert(bookingSlotsTable).values(newSlotRecords(newId, b, occurrences)).returning()
  const historyInsert = tx.insert(bookingHistoriesTable).values(historyValues(newId, b.id, created.history, undefined)).returning()
  const events = outboxInsert(tx, newId, { projectId: b.projectId, bookingId: b.id, assetKind: b.assetKind }, created.events)
  // One round trip: the asset's lock first (writers of one asset queue before the exclusion
  // check, see guardSlot), then the rows; what the inserts return is the answer's data.
  let written
  try {
    const rest = [...(events ? [events] : []), ...(after ? [after] : [])]
    written = await pipeline(lockAsset(tx, b.assetId), bookingInsert, slotInsert, historyInsert, ...rest)
  } catch (e) {
    throw slotError(e, b.assetId)
  }
  const [, [row], slots, histories] = written
  return { row: row!, slots: slots.sort((a, b) => a.occurrenceIndex - b.occurrenceIndex), histories }
}

export const bookingById = keptQuery((q) => q.select().from(bookingsTable).where(eq(bookingsTable.id, param("id"))))
const bookingByIdForUpdate = keptQuery((q) =>
  q.select().from(bookingsTable).where(eq(bookingsTable.id, param("id"))).for("update"),
)
export const slotsOfBooking = keptQuery((q) =>
  q
    .select()
    .from(bookingSlotsTable)
    .where(eq(bookingSlotsTable.bookingId, param("id")))
    .orderBy(asc(bookingSlotsTable.occurrenceIndex)),
)

/** Loads a booking and its slots; `lock` takes a row lock for the rest of the transaction. */
export const loadBooking = async (
  q: Queryable,
  id: string,
  options: { lock?: boolean } = {},
): Promise<StoredBooking | undefined> => {
  const [row] = await (options.lock ? bookingByIdForUpdate : bookingById)(q, { id })
  if (!row) return undefined
  const slots = await slotsOfBooking(q, { id })
  return { row, slots }
}

/** The stored (undecoded) config of the booking's room or desk. */
export const assetConfigRaw = async (q: Queryable, booking: Pick<BookingRow, "assetKind" | "assetId">): Promise<unknown> => {
  const table = booking.assetKind === "desk" ? desksTable : roomsTable
  const [asset] = await q.select({ config: table.config }).from(table).where(eq(table.id, booking.assetId)).limit(1)
  return asset?.config
}

/** The stored config of a booking's room or desk, found by the booking's id. */
const assetConfigOfBooking = keptQuery((q) =>
  q
    .select({
      config: sql<unknown>`coalesce(
        (select ${roomsTable.config} from ${roomsTable} where ${roomsTable.id} = ${bookingsTable.assetId} and ${bookingsTable.assetKind} = 'room'),
        (select ${desksTable.config} from ${desksTable} where ${desksTable.id} = ${bookingsTable.assetId} and ${bookingsTable.assetKind} = 'desk'))`,
    })
    .from(bookingsTable)
    .where(eq(bookingsTable.id, param("id"))),
)

/**
 * The booking under its row lock, then its slots and its asset's stored config: sent together
 * (one round trip), run in order, so the reads start once the lock is held and see what a
 * transaction that held it committed, a manifest's new config included.
 */
export const loadLockedBooking = async (tx: Queryable, id: string): Promise<LockedBooking | undefined> => {
  const [[row], slots, [config]] = await inSendOrder([
    bookingByIdForUpdate(tx, { id }),
    slotsOfBooking(tx, { id }),
    assetConfigOfBooking(tx, { id }),
  ])
  return row === undefined ? undefined : { stored: { row, slots }, assetConfig: config?.config }
}

const updateSlotRow = keptQuery((q) =>
  q
    .update(bookingSlotsTable)
    .set({
      status: paramAs("status"),
      startAt: paramAs("startAt"),
      endAt: paramAs("endAt"),
      checkIns: paramAs("checkIns"),
      checkOutAt: paramAs("checkOutAt"),
      updatedAt: paramAs("updatedAt"),
    })
    .where(eq(bookingSlotsTable.id, param("id")))
    .returning(),
)

/** A column an update may leave as it is: written when `<key>Given` is true (see `given`). */
const optional = (column: AnyPgColumn, key: string) =>
  sql`case when ${param(`${key}Given`)}::boolean then ${param(key)}::text else ${column} end`

/** The values of an optional column: written when `value` is given (null included). */
const given = (key: string, value: string | null | undefined) => ({ [`${key}Given`]: value !== undefined, [key]: value ?? null })

const updateBookingRow = keptQuery((q) =>
  q
    .update(bookingsTable)
    .set({
      title: paramAs("title"),
      body: paramAs("body"),
      status: paramAs("status"),
      startAt: paramAs("startAt"),
      endAt: paramAs("endAt"),
      attendees: paramAs("attendees"),
      estimatedAttendance: paramAs("estimatedAttendance"),
      checkIns: paramAs("checkIns"),
      checkOutAt: paramAs("checkOutAt"),
      updatedAt: paramAs("updatedAt"),
      timePeriod: optional(bookingsTable.timePeriod, "timePeriod"),
      paymentChannel: optional(bookingsTable.paymentChannel, "paymentChannel"),
      discountCode: optional(bookingsTable.discountCode, "discountCode"),
      frontendRedirectUrl: optional(bookingsTable.frontendRedirectUrl, "frontendRedirectUrl"),
    })
    .where(eq(bookingsTable.id, param("id")))
    .returning(),
)

const insertHistoryRow = keptQuery((q) => q.insert(bookingHistoriesTable).values(paramsOf(bookingHistoriesTable)))

/**
 * Persists a transition of one occurrence: the slot (its own state), the booking row (shared
 * fields plus a mirror of the occurrence), a history entry and the domain events.
 */
export const saveTransition = async (
  tx: Queryable,
  newId: () => string,
  stored: StoredBooking,
  slot: SlotRow,
  result: Transitioned,
  options: {
    readonly historyData?: Record<string, unknown> | undefined
    readonly occurrenceEventId?: string | undefined
    readonly timePeriod?: string | null | undefined
    /** Payment hand-off fields an update may change. */
    readonly rowPatch?: Partial<Pick<BookingRow, "paymentChannel" | "discountCode" | "frontendRedirectUrl">>
  } = {},
): Promise<StoredBooking> => {
  const b = result.booking
  const slotSet = { id: slot.id, ...transitionedSlotFields(b) }
  const rowSet = transitionedRowFields(b)
  const data = {
    ...(options.occurrenceEventId === undefined ? {} : { occurrenceEventId: options.occurrenceEventId }),
    ...options.historyData,
  }
  // Only an update changes the period or the payment hand-off: each is written only when given.
  const patch = options.rowPatch ?? {}
  const rowWrite = () =>
    updateBookingRow(tx, {
      ...rowSet,
      id: stored.row.id,
      ...given("timePeriod", options.timePeriod),
      ...given("paymentChannel", patch.paymentChannel),
      ...given("discountCode", patch.discountCode),
      ...given("frontendRedirectUrl", patch.frontendRedirectUrl),
    })
  const source = { projectId: b.projectId, bookingId: b.id, assetKind: b.assetKind, occurrenceEventId: options.occurrenceEventId }
  const history = historyValues(newId, b.id, result.history, Object.keys(data).length > 0 ? data : undefined)
  // The asset's lock first (guardSlot), then the writes in one round trip: they need nothing
  // from each other, and a refused slot write rejects them all with its own error.
  const [[nextSlot], [row]] = await guardSlot(tx, b.assetId, () =>
    inSendOrder([updateSlotRow(tx, slotSet), rowWrite(), insertHistoryRow(tx, history), recordBookingEvents(tx, newId, source, result.events)]),
  )
  return {
    row: row!,
    slots: stored.slots.map((s) => (s.id === slot.id ? nextSlot! : s)),
  }
}

const historiesOfBookings = keptQuery((q) =>
  q
    .select()
    .from(bookingHistoriesTable)
    .where(sql`${bookingHistoriesTable.bookingId} = any(${param("ids")}::text[])`)
    .orderBy(asc(bookingHistoriesTable.at), asc(bookingHistoriesTable.id)),
)

/** Histories of several bookings, oldest first, grouped by booking id. */
export const historiesOf = async (
  q: Queryable,
  bookingIds: ReadonlyArray<string>,
): Promise<Map<string, HistoryRow[]>> =>
  bookingIds.length === 0 ? new Map() : byBooking(await historiesOfBookings(q, { ids: [...new Set(bookingIds)] }), (r) => r)

/** Rows of several bookings grouped by booking id, each as `as` maps it, in the rows' order. */
export const byBooking = <R extends { readonly bookingId: string }, T>(rows: ReadonlyArray<R>, as: (row: R) => T): Map<string, T[]> => {
  const out = new Map<string, T[]>()
  for (const r of rows) {
    const list = out.get(r.bookingId)
    if (list === undefined) out.set(r.bookingId, [as(r)])
    else list.push(as(r))
  }
  return out
}

const liveSlotsOfAssets = keptQuery((q) =>
  q
    .select()
    .from(bookingSlotsTable)
    .where(
      and(
        sql`${bookingSlotsTable.assetId} = any(${param("assetIds")}::text[])`,
        inArray(bookingSlotsTable.status, [...LIVE_STATUSES]),
        lt(bookingSlotsTable.startAt, sql`${param("end")}::timestamptz`),
        gt(bookingSlotsTable.endAt, sql`${param("start")}::timestamptz`),
      ),
    ),
)

/** Live slots of the given assets overlapping [start, end) (half-open, as the constraint). */
export const liveSlotsOverlapping = async (
  q: Queryable,
  assetIds: ReadonlyArray<string>,
  start: number,
  end: number,
): Promise<SlotRow[]> => {
  if (assetIds.length === 0) return []
  return liveSlotsOfAssets(q, { assetIds: [...assetIds], start: new Date(start).toISOString(), end: new Date(end).toISOString() })
}

/** Count of an organizer's unpaid bookings (the hold-hoarding cap). */
export const unpaidHoldsOf = async (tx: Queryable, organizerUserId: string): Promise<number> => {
  // Serializes concurrent creates of one organizer so the cap cannot be raced past.
  await tx.execute(sql`select pg_advisory_xact_lock(hashtext(${"unpaid:" + organizerUserId}))`)
  const [row] = await tx
    .select({ n: sql<number>`count(*)::int` })
    .from(bookingsTable)
    .where(and(eq(bookingsTable.organizerUserId, organizerUserId), eq(bookingsTable.status, "unpaid")))
  return Number(row?.n ?? 0)
}
