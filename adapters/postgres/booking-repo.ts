import { and, asc, eq, gt, inArray, lt, or, sql, type SQL } from "drizzle-orm"
import type { HistoryEntry, Transitioned } from "../../core/booking/transitions.ts"
import type { BookingExtras, StoredBooking } from "../../core/booking/meeting.ts"
import { LIVE_STATUSES, type AssetKind } from "../../core/booking/state.ts"
import { SlotTaken } from "../../core/booking/errors.ts"
import type { Occurrence } from "../../core/booking/recurrence.ts"
import {
  pgErrorOf,
  pipeline,
  PG_DEADLOCK_DETECTED,
  PG_EXCLUSION_VIOLATION,
  type Queryable,
  type Sendable,
} from "./database.ts"
import { outboxInsert, recordBookingEvents } from "./outbox.ts"
import { bookingHistoriesTable, bookingSlotsTable, bookingsTable } from "./tables/bookings.ts"

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
export const guardSlot = async <T>(tx: Queryable, assetId: string, write: () => Promise<T>): Promise<T> => {
  try {
    await lockAsset(tx, assetId)
    return await write()
  } catch (e) {
    throw slotError(e, assetId)
  }
}

/** The asset's transaction-scoped lock that writers of its slots queue on (see guardSlot). */
const lockAsset = (tx: Queryable, assetId: string) => tx.execute(sql`select pg_advisory_xact_lock(hashtext(${assetId}))`)

/** An overlap refused by the exclusion index (or a deadlock against an overlapping writer). */
const slotError = (e: unknown, assetId: string): unknown => {
  const code = pgErrorOf(e)?.code
  return code === PG_EXCLUSION_VIOLATION || code === PG_DEADLOCK_DETECTED ? new SlotTaken({ assetId }) : e
}

const historyValues = (
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
    .values({
      id: b.id,
      projectId: b.projectId,
      assetKind: b.assetKind,
      assetId: b.assetId,
      title: b.title,
      body: b.body ?? null,
      status: b.status,
      startAt: new Date(b.start),
      endAt: new Date(b.end),
      timePeriod: extras.timePeriod ?? null,
      organizer: b.organizer,
      organizerUserId: b.organizer.userId,
      attendees: [...b.attendees],
      estimatedAttendance: b.estimatedAttendance ?? null,
      pinCode: b.pinCode,
      checkIns: [],
      rrule: b.recurrence?.rrule ?? null,
      anchorStartAt: b.recurrence ? new Date(b.recurrence.anchorStart) : null,
      anchorEndAt: b.recurrence ? new Date(b.recurrence.anchorEnd) : null,
      paymentChannel: extras.paymentChannel ?? null,
      discountCode: extras.discountCode ?? null,
      frontendRedirectUrl: extras.frontendRedirectUrl ?? null,
      price: extras.price ?? null,
      createdByAppId: extras.createdByAppId,
      createdAt: new Date(b.createdAt),
      updatedAt: new Date(b.updatedAt),
    })
    .returning()
  const slotInsert = tx
      .insert(bookingSlotsTable)
      .values(
        occurrences.map((o) => ({
          id: newId(),
          bookingId: b.id,
          projectId: b.projectId,
          assetId: b.assetId,
          occurrenceIndex: o.index,
          startAt: new Date(o.start),
          endAt: new Date(o.end),
          status: b.status,
          createdAt: new Date(b.createdAt),
          updatedAt: new Date(b.updatedAt),
        })),
      )
      .returning()
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

/** Loads a booking and its slots; `lock` takes a row lock for the rest of the transaction. */
export const loadBooking = async (
  q: Queryable,
  id: string,
  options: { lock?: boolean } = {},
): Promise<StoredBooking | undefined> => {
  const base = q.select().from(bookingsTable).where(eq(bookingsTable.id, id))
  const [row] = options.lock ? await base.for("update") : await base
  if (!row) return undefined
  const slots = await q
    .select()
    .from(bookingSlotsTable)
    .where(eq(bookingSlotsTable.bookingId, id))
    .orderBy(asc(bookingSlotsTable.occurrenceIndex))
  return { row, slots }
}

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
  const updatedAt = new Date(b.updatedAt)
  const [nextSlot] = await guardSlot(tx, b.assetId, () =>
    tx
      .update(bookingSlotsTable)
      .set({
        status: b.status,
        startAt: new Date(b.start),
        endAt: new Date(b.end),
        checkIns: [...b.checkIns],
        checkOutAt: b.checkOutAt === undefined ? null : new Date(b.checkOutAt),
        updatedAt,
      })
      .where(eq(bookingSlotsTable.id, slot.id))
      .returning(),
  )
  const [row] = await tx
    .update(bookingsTable)
    .set({
      title: b.title,
      body: b.body ?? null,
      status: b.status,
      startAt: new Date(b.start),
      endAt: new Date(b.end),
      attendees: [...b.attendees],
      estimatedAttendance: b.estimatedAttendance ?? null,
      checkIns: [...b.checkIns],
      checkOutAt: b.checkOutAt === undefined ? null : new Date(b.checkOutAt),
      ...(options.timePeriod === undefined ? {} : { timePeriod: options.timePeriod }),
      ...options.rowPatch,
      updatedAt,
    })
    .where(eq(bookingsTable.id, stored.row.id))
    .returning()
  const data = {
    ...(options.occurrenceEventId === undefined ? {} : { occurrenceEventId: options.occurrenceEventId }),
    ...options.historyData,
  }
  await tx
    .insert(bookingHistoriesTable)
    .values(historyValues(newId, b.id, result.history, Object.keys(data).length > 0 ? data : undefined))
  await recordBookingEvents(
    tx,
    newId,
    {
      projectId: b.projectId,
      bookingId: b.id,
      assetKind: b.assetKind,
      occurrenceEventId: options.occurrenceEventId,
    },
    result.events,
  )
  return {
    row: row!,
    slots: stored.slots.map((s) => (s.id === slot.id ? nextSlot! : s)),
  }
}

/** Histories of several bookings, oldest first, grouped by booking id. */
export const historiesOf = async (
  q: Queryable,
  bookingIds: ReadonlyArray<string>,
): Promise<Map<string, HistoryRow[]>> => {
  const out = new Map<string, HistoryRow[]>()
  if (bookingIds.length === 0) return out
  const rows = await q
    .select()
    .from(bookingHistoriesTable)
    .where(inArray(bookingHistoriesTable.bookingId, [...new Set(bookingIds)]))
    .orderBy(asc(bookingHistoriesTable.at), asc(bookingHistoriesTable.id))
  for (const r of rows) {
    const list = out.get(r.bookingId) ?? []
    list.push(r)
    out.set(r.bookingId, list)
  }
  return out
}

const liveStatus = () => inArray(bookingSlotsTable.status, [...LIVE_STATUSES])

/** Live slots of the given assets overlapping [start, end) (half-open, as the constraint). */
export const liveSlotsOverlapping = async (
  q: Queryable,
  assetIds: ReadonlyArray<string>,
  start: number,
  end: number,
): Promise<SlotRow[]> => {
  if (assetIds.length === 0) return []
  return q
    .select()
    .from(bookingSlotsTable)
    .where(
      and(
        inArray(bookingSlotsTable.assetId, [...assetIds]),
        liveStatus(),
        lt(bookingSlotsTable.startAt, new Date(end)),
        gt(bookingSlotsTable.endAt, new Date(start)),
      ),
    )
}

/** Slots of one asset overlapping a window, in start order (the asset's booking calendar). */
export const assetCalendar = async (
  q: Queryable,
  assetId: string,
  start: number,
  end: number,
  limit: number,
): Promise<SlotRow[]> =>
  q
    .select()
    .from(bookingSlotsTable)
    .where(
      and(
        eq(bookingSlotsTable.assetId, assetId),
        liveStatus(),
        lt(bookingSlotsTable.startAt, new Date(end)),
        gt(bookingSlotsTable.endAt, new Date(start)),
      ),
    )
    .orderBy(asc(bookingSlotsTable.startAt))
    .limit(limit)

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

export interface MeetingFilter {
  readonly projectIds: ReadonlyArray<string>
  readonly from: number
  readonly to: number
  /** Asset filters are a union: a row matches when its asset is any of the given ones. */
  readonly roomIds?: ReadonlyArray<string> | undefined
  readonly deskIds?: ReadonlyArray<string> | undefined
  readonly organizerId?: string | undefined
  readonly organizerEmails?: ReadonlyArray<string> | undefined
  readonly attendeeEmails?: ReadonlyArray<string> | undefined
  readonly statuses?: ReadonlyArray<string> | undefined
  readonly assetType?: AssetKind | undefined
  readonly limit: number
  readonly offset: number
}

const textList = (values: ReadonlyArray<string>) =>
  sql.join(
    values.map((v) => sql`${v}`),
    sql`, `,
  )

/**
 * One row per occupied interval overlapping [from, to): a single booking once, a series once
 * per occurrence (spec Meetings rule 7), with the total for the page meta.
 */
export const findMeetingRows = async (
  q: Queryable,
  f: MeetingFilter,
): Promise<{ rows: Array<{ booking: BookingRow; slot: SlotRow }>; total: number }> => {
  if (f.projectIds.length === 0) return { rows: [], total: 0 }
  // The slot carries its own project: filtering it (not the booking's) lets the window come
  // from booking_slots_project_start_idx in start order, so the page stops after a page.
  const slotConditions: SQL[] = [
    inArray(bookingSlotsTable.projectId, [...f.projectIds]),
    lt(bookingSlotsTable.startAt, new Date(f.to)),
    gt(bookingSlotsTable.endAt, new Date(f.from)),
  ]
  if (f.statuses && f.statuses.length > 0)
    slotConditions.push(inArray(bookingSlotsTable.status, [...f.statuses]))
  const bookingConditions: SQL[] = []
  if (f.roomIds !== undefined || f.deskIds !== undefined) {
    const assets: SQL[] = []
    if (f.roomIds && f.roomIds.length > 0)
      assets.push(and(eq(bookingsTable.assetKind, "room"), inArray(bookingsTable.assetId, [...f.roomIds]))!)
    if (f.deskIds && f.deskIds.length > 0)
      assets.push(and(eq(bookingsTable.assetKind, "desk"), inArray(bookingsTable.assetId, [...f.deskIds]))!)
    bookingConditions.push(assets.length > 0 ? or(...assets)! : sql`false`)
  }
  if (f.organizerId !== undefined)
    bookingConditions.push(eq(bookingsTable.organizerUserId, f.organizerId))
  if (f.organizerEmails && f.organizerEmails.length > 0)
    bookingConditions.push(
      sql`lower(${bookingsTable.organizer}->>'email') in (${textList(f.organizerEmails.map((e) => e.toLowerCase()))})`,
    )
  if (f.attendeeEmails && f.attendeeEmails.length > 0)
    bookingConditions.push(
      sql`exists (select 1 from jsonb_array_elements(${bookingsTable.attendees}) as a(item) where lower(a.item->>'email') in (${textList(
        f.attendeeEmails.map((e) => e.toLowerCase()),
      )}))`,
    )
  if (f.assetType !== undefined) bookingConditions.push(eq(bookingsTable.assetKind, f.assetType))
  const order = [
    asc(bookingSlotsTable.startAt),
    asc(bookingSlotsTable.bookingId),
    asc(bookingSlotsTable.occurrenceIndex),
  ]
  if (bookingConditions.length === 0) {
    // Every filter is on the slot (every slot has its booking, by foreign key): count and page
    // the slots alone, then fetch only the page's bookings instead of joining the whole window.
    const where = and(...slotConditions)
    const [[count], slots] = await Promise.all([
      q.select({ n: sql<number>`count(*)::int` }).from(bookingSlotsTable).where(where),
      f.limit === 0
        ? Promise.resolve([] as SlotRow[])
        : q
            .select()
            .from(bookingSlotsTable)
            .where(where)
            .orderBy(...order)
            .limit(f.limit)
            .offset(f.offset),
    ])
    const bookings =
      slots.length === 0
        ? []
        : await q
            .select()
            .from(bookingsTable)
            .where(inArray(bookingsTable.id, [...new Set(slots.map((slot) => slot.bookingId))]))
    const byId = new Map(bookings.map((b) => [b.id, b]))
    return {
      rows: slots.flatMap((slot) => {
        const booking = byId.get(slot.bookingId)
        return booking === undefined ? [] : [{ booking, slot }]
      }),
      total: Number(count?.n ?? 0),
    }
  }
  const where = and(...slotConditions, ...bookingConditions)
  const [[count], rows] = await Promise.all([
    q
      .select({ n: sql<number>`count(*)::int` })
      .from(bookingSlotsTable)
      .innerJoin(bookingsTable, eq(bookingsTable.id, bookingSlotsTable.bookingId))
      .where(where),
    f.limit === 0
      ? Promise.resolve([] as Array<{ booking: BookingRow; slot: SlotRow }>)
      : q
          .select({ booking: bookingsTable, slot: bookingSlotsTable })
          .from(bookingSlotsTable)
          .innerJoin(bookingsTable, eq(bookingsTable.id, bookingSlotsTable.bookingId))
          .where(where)
          .orderBy(...order)
          .limit(f.limit)
          .offset(f.offset),
  ])
  return { rows, total: Number(count?.n ?? 0) }
}
