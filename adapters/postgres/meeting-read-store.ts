import { and, asc, eq, inArray, or, sql, type SQL } from "drizzle-orm"
import { Effect, Layer, Option } from "effect"
import type { HistoryRecord, MeetingRecord, PaymentRecord, SlotRecord } from "../../core/booking/meeting-records.ts"
import { MeetingReadStore, type MeetingFilter, type MeetingListRow } from "../../core/ports/meeting-read-store.ts"
import type { Queryable } from "./database.ts"
import { bookingHistoriesTable, bookingSlotsTable, bookingsTable } from "./tables/bookings.ts"
import { bookingById, historiesOf, slotsOfBooking } from "./booking-repo.ts"
import { keptQuery, param } from "./kept-query.ts"
import { paymentRecordsOf } from "./payment-store.ts"
import { paymentsTable } from "./tables/payments.ts"
import { EpochCaches, readBySnapshot } from "./cache-epoch.ts"
import { LONG, overlapParts, SHORT, windowPage, type SlotPart } from "./slot-window.ts"
import { read, SqlDatabase } from "./unit-of-work.ts"

/**
 * The window over the slots alone: projects, [from, to) as one part of slot-window.ts's split
 * (SHORT or LONG), optionally statuses. One project is `project_id = $1`, not `= any($1)`: only
 * the equality lets the planner read the page from booking_slots_project_start_idx in start
 * order (with an array it sorts the whole window).
 */
interface WindowShape {
  readonly manyProjects: boolean
  readonly withStatuses: boolean
}

const slotWindow = ({ manyProjects, withStatuses }: WindowShape, part: SlotPart) =>
  and(
    manyProjects
      ? sql`${bookingSlotsTable.projectId} = any(${param("projectIds")})`
      : eq(bookingSlotsTable.projectId, param("projectId")),
    overlapParts(param("from"), param("to"))[part],
    withStatuses ? sql`${bookingSlotsTable.status} = any(${param("statuses")})` : undefined,
  )

/** The window's SHORT and LONG slots counted in one statement (index-only scans). */
const slotCounts = (w: WindowShape) =>
  keptQuery((q) => {
    const partOf = (part: SlotPart) =>
      q.select({ part: sql<number>`${sql.raw(String(part))}`.as("part") }).from(bookingSlotsTable).where(slotWindow(w, part))
    return q
      .select({
        short: sql<number>`(count(*) filter (where part = ${sql.raw(String(SHORT))}))::int`,
        long: sql<number>`(count(*) filter (where part = ${sql.raw(String(LONG))}))::int`,
      })
      .from(partOf(SHORT).unionAll(partOf(LONG)).as("w"))
  })

const SLOT_ORDER = [asc(bookingSlotsTable.startAt), asc(bookingSlotsTable.bookingId), asc(bookingSlotsTable.occurrenceIndex)]

// What a Meeting shows of its booking and slot (MeetingRecord, SlotRecord): the page reads
// these columns only, not the booking's 29 (row decoding was the top of the listing's profile).
const BOOKING_SHOWN = {
  id: bookingsTable.id,
  projectId: bookingsTable.projectId,
  assetKind: bookingsTable.assetKind,
  assetId: bookingsTable.assetId,
  title: bookingsTable.title,
  body: bookingsTable.body,
  timePeriod: bookingsTable.timePeriod,
  organizer: bookingsTable.organizer,
  organizerUserId: bookingsTable.organizerUserId,
  attendees: bookingsTable.attendees,
  estimatedAttendance: bookingsTable.estimatedAttendance,
  pinCode: bookingsTable.pinCode,
  rrule: bookingsTable.rrule,
  anchorStartAt: bookingsTable.anchorStartAt,
  anchorEndAt: bookingsTable.anchorEndAt,
  createdByAppId: bookingsTable.createdByAppId,
  createdAt: bookingsTable.createdAt,
  updatedAt: bookingsTable.updatedAt,
}
const SLOT_SHOWN = {
  bookingId: bookingSlotsTable.bookingId,
  startAt: bookingSlotsTable.startAt,
  endAt: bookingSlotsTable.endAt,
  status: bookingSlotsTable.status,
  checkIns: bookingSlotsTable.checkIns,
  checkOutAt: bookingSlotsTable.checkOutAt,
  updatedAt: bookingSlotsTable.updatedAt,
}

/**
 * The page with what its Meetings show, in one statement: the window's slot ids first (index
 * order, stops after the page), then per row its slot, its booking, its histories as one JSON
 * array, and whether it has payments (bookings mostly have none: those are read after, only
 * for the bookings that have any).
 */
const slotPage = (w: WindowShape, part: SlotPart) =>
  keptQuery((q) => {
    const page = q
      .select({ id: sql<string>`${bookingSlotsTable.id}`.as("page_slot_id") })
      .from(bookingSlotsTable)
      .where(slotWindow(w, part))
      .orderBy(...SLOT_ORDER)
      .limit(param("limit"))
      .offset(param("offset"))
      .as("page")
    return q
      .select({
        slot: SLOT_SHOWN,
        booking: BOOKING_SHOWN,
        histories: sql<string>`(select coalesce(json_agg(json_build_object('action', h.action, 'at', h.at, 'by', h.by, 'data', h.data) order by h.at, h.id), '[]')::text from ${bookingHistoriesTable} h where h.booking_id = ${bookingsTable.id})`,
        hasPayments: sql<number>`(exists (select 1 from ${paymentsTable} p where p.booking_id = ${bookingsTable.id}))::int`.mapWith(Number),
      })
      .from(page)
      .innerJoin(bookingSlotsTable, eq(bookingSlotsTable.id, page.id))
      .innerJoin(bookingsTable, eq(bookingsTable.id, bookingSlotsTable.bookingId))
      .orderBy(...SLOT_ORDER)
  })

/** Histories as the page statement aggregates them (JSON: `at` as an ISO 8601 string). */
const parseHistories = (json: string): HistoryRecord[] =>
  (JSON.parse(json) as Array<{ action: string; at: string; by: string | null; data: Record<string, unknown> | null }>).map(
    (h) => ({ action: h.action, at: new Date(h.at), by: h.by, data: h.data }),
  )

const windowOf = (w: WindowShape) => ({ counts: slotCounts(w), pages: [slotPage(w, SHORT), slotPage(w, LONG)] as const })

/**
 * The listing's statements, one per window shape (kept queries: written once, with constant
 * text and array parameters, so the driver prepares each once per connection).
 * Indexed by manyProjects * 2 + withStatuses.
 */
const windows = [
  windowOf({ manyProjects: false, withStatuses: false }),
  windowOf({ manyProjects: false, withStatuses: true }),
  windowOf({ manyProjects: true, withStatuses: false }),
  windowOf({ manyProjects: true, withStatuses: true }),
]

/** Histories and payments of the given bookings, oldest first, read side by side. */
const recordsOf = async (
  q: Queryable,
  bookingIds: ReadonlyArray<string>,
): Promise<{ histories: Map<string, HistoryRecord[]>; payments: Map<string, PaymentRecord[]> }> => {
  const [histories, payments] = await Promise.all([historiesOf(q, bookingIds), paymentRecordsOf(q, bookingIds)])
  return { histories, payments }
}

const textList = (values: ReadonlyArray<string>) =>
  sql.join(
    values.map((v) => sql`${v}`),
    sql`, `,
  )

const EMPTY: ReadonlyArray<never> = []

/**
 * One row per occupied interval overlapping [from, to): a single booking once, a series once
 * per occurrence (spec Meetings rule 7). With filters on the slot only (the usual listing): one
 * round trip, the total and the page with its bookings and histories side by side (payments
 * after, for the bookings that have any). Other filters: the page (with its total), then the
 * page's histories and payments together.
 */
const list = async (q: Queryable, f: MeetingFilter): Promise<{ rows: MeetingListRow[]; total: number }> => {
  if (f.projectIds.length === 0) return { rows: [], total: 0 }
  // The slot carries its own project: filtering it (not the booking's) lets the window come
  // from booking_slots_project_start_idx in start order, so the page stops after a page.
  const slotScope: SQL[] = [inArray(bookingSlotsTable.projectId, [...f.projectIds])]
  if (f.statuses && f.statuses.length > 0) slotScope.push(inArray(bookingSlotsTable.status, [...f.statuses]))
  const bookingConditions: SQL[] = []
  if (f.roomIds !== undefined || f.deskIds !== undefined) {
    const assets: SQL[] = []
    if (f.roomIds && f.roomIds.length > 0)
      assets.push(and(eq(bookingsTable.assetKind, "room"), inArray(bookingsTable.assetId, [...f.roomIds]))!)
    if (f.deskIds && f.deskIds.length > 0)
      assets.push(and(eq(bookingsTable.assetKind, "desk"), inArray(bookingsTable.assetId, [...f.deskIds]))!)
    bookingConditions.push(assets.length > 0 ? or(...assets)! : sql`false`)
  }
  if (f.organizerId !== undefined) bookingConditions.push(eq(bookingsTable.organizerUserId, f.organizerId))
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
  const order = SLOT_ORDER

  let pairs: ReadonlyArray<{ booking: MeetingRecord; slot: SlotRecord }>
  let total: number
  let records: Awaited<ReturnType<typeof recordsOf>>
  if (bookingConditions.length === 0) {
    // Every filter is on the slot (every slot has its booking, by foreign key): count and page
    // the slots alone, then fetch only the page's bookings instead of joining the whole window.
    const withStatuses = f.statuses !== undefined && f.statuses.length > 0
    const manyProjects = f.projectIds.length > 1
    const shaped = windows[(manyProjects ? 2 : 0) + (withStatuses ? 1 : 0)]!
    const window = {
      ...(manyProjects ? { projectIds: [...f.projectIds] } : { projectId: f.projectIds[0]! }),
      from: new Date(f.from).toISOString(),
      to: new Date(f.to).toISOString(),
      ...(withStatuses ? { statuses: [...f.statuses!] } : {}),
    }
    const { rows: page, total: all } = await windowPage(
      shaped.counts(q, window).then(([c]) => ({ short: Number(c?.short ?? 0), long: Number(c?.long ?? 0) })),
      (part, limit, offset) => shaped.pages[part](q, { ...window, limit, offset }),
      f.limit,
      f.offset,
    )
    const paying = [...new Set(page.filter((r) => r.hasPayments === 1).map((r) => r.booking.id))]
    const payments = await paymentRecordsOf(q, paying)
    // Rows of one series share its histories: parsed once per booking.
    const histories = new Map<string, HistoryRecord[]>()
    for (const r of page) if (!histories.has(r.booking.id)) histories.set(r.booking.id, parseHistories(r.histories))
    pairs = page.map(({ booking, slot }) => ({ booking, slot }))
    total = all
    records = { histories, payments }
  } else {
    const parts = overlapParts(sql`${new Date(f.from).toISOString()}`, sql`${new Date(f.to).toISOString()}`)
    const where = (part: SlotPart) => and(...slotScope, parts[part], ...bookingConditions)
    const countOf = (part: SlotPart) =>
      q
        .select({ n: sql<number>`count(*)::int` })
        .from(bookingSlotsTable)
        .innerJoin(bookingsTable, eq(bookingsTable.id, bookingSlotsTable.bookingId))
        .where(where(part))
        .then(([c]) => Number(c?.n ?? 0))
    const { rows, total: all } = await windowPage(
      Promise.all([countOf(SHORT), countOf(LONG)]).then(([short, long]) => ({ short, long })),
      (part, limit, offset) =>
        q
          .select({ booking: bookingsTable, slot: bookingSlotsTable })
          .from(bookingSlotsTable)
          .innerJoin(bookingsTable, eq(bookingsTable.id, bookingSlotsTable.bookingId))
          .where(where(part))
          .orderBy(...order)
          .limit(limit)
          .offset(offset),
      f.limit,
      f.offset,
    )
    pairs = rows
    total = all
    records = await recordsOf(
      q,
      rows.map((r) => r.booking.id),
    )
  }
  return {
    rows: pairs.map(({ booking, slot }) => ({
      booking,
      slot,
      histories: records.histories.get(booking.id) ?? EMPTY,
      payments: records.payments.get(booking.id) ?? EMPTY,
    })),
    total,
  }
}

const get = async (q: Queryable, id: string) => {
  const [[row], slots, recs] = await Promise.all([bookingById(q, { id }), slotsOfBooking(q, { id }), recordsOf(q, [id])])
  if (row === undefined) return Option.none()
  return Option.some({
    stored: { row, slots },
    histories: recs.histories.get(id) ?? EMPTY,
    payments: recs.payments.get(id) ?? EMPTY,
  })
}

/** GET /meetings and GET /meetings/{id} over PostgreSQL/PGlite: the reads run side by side. */
export const MeetingReadStorePostgres = Layer.effect(
  MeetingReadStore,
  Effect.gen(function* () {
    const db = yield* SqlDatabase
    const caches = yield* EpochCaches
    const provideDb = Effect.provideService(SqlDatabase, db)
    // A listing repeated between commits (a dashboard's poll, a building's screens) is answered
    // from the memo: the same rows, exactly, as the statements would return (SnapshotMemo).
    const pages = caches.bySnapshot<{ rows: MeetingListRow[]; total: number }>("meeting-pages", 32)
    const listNow = (filter: MeetingFilter) => provideDb(read((q) => list(q, filter)))
    return MeetingReadStore.of({
      get: (id) => provideDb(read((q) => get(q, id))),
      list: (filter) => readBySnapshot(pages, JSON.stringify(filter), listNow(filter)),
    })
  }),
)
