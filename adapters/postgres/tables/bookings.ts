import { sql } from "drizzle-orm"
import { index, integer, jsonb, pgTable, text } from "drizzle-orm/pg-core"
import type { Attendee, CheckIn, Organizer } from "../../../core/booking/state.ts"
import type { PriceSummary } from "../../../core/booking/pricing.ts"
import { instant, oid, timestamps } from "./columns.ts"

/**
 * A room or desk booking ("Meeting"). For a recurring series this row is the series master:
 * its status/start/end/check-ins mirror the occurrence that was current at the last write,
 * while each occurrence's own state lives in booking_slots.
 */
export const bookingsTable = pgTable(
  "bookings",
  {
    id: oid("id").primaryKey(),
    /**
     * The project and the app that booked are not foreign keys (migration 0015): each would make
     * every create take a KEY SHARE lock on the same parent row, and concurrent creates then share
     * it through a MultiXact (measured: 10% of PostgreSQL's CPU per create at 64 clients). The
     * service never deletes projects or apps (the manifest only upserts them) and a create
     * resolves both before it writes.
     */
    projectId: oid("project_id").notNull(),
    /** `room` or `desk`. */
    assetKind: text("asset_kind").notNull(),
    assetId: oid("asset_id").notNull(),
    title: text("title").notNull(),
    body: text("body"),
    status: text("status").notNull(),
    startAt: instant("start_at").notNull(),
    endAt: instant("end_at").notNull(),
    /** Desk bookings made with a timePeriod keep it, so a PATCH can re-resolve it. */
    timePeriod: text("time_period"),
    organizer: jsonb("organizer").$type<Organizer>().notNull(),
    organizerUserId: oid("organizer_user_id").notNull(),
    attendees: jsonb("attendees").$type<Attendee[]>().notNull().default([]),
    estimatedAttendance: integer("estimated_attendance"),
    /** Shown to the organizer (the spec returns it), so stored in clear like a room PIN. */
    pinCode: text("pin_code").notNull(),
    checkIns: jsonb("check_ins").$type<CheckIn[]>().notNull().default([]),
    checkOutAt: instant("check_out_at"),
    /** RRULE text (core/booking/recurrence.ts subset); null for a single booking. */
    rrule: text("rrule"),
    anchorStartAt: instant("anchor_start_at"),
    anchorEndAt: instant("anchor_end_at"),
    paymentChannel: text("payment_channel"),
    discountCode: text("discount_code"),
    frontendRedirectUrl: text("frontend_redirect_url"),
    /** Price at create (THB), for the payments hand-off; null for free assets. */
    price: jsonb("price").$type<PriceSummary>(),
    createdByAppId: oid("created_by_app_id").notNull(),
    ...timestamps,
  },
  (t) => [
    index("bookings_project_start_idx").on(t.projectId, t.startAt),
    index("bookings_asset_idx").on(t.assetId),
    index("bookings_organizer_idx").on(t.organizerUserId, t.status),
  ],
)

/**
 * Every occupied interval: one row for a single booking, one per occurrence of a series.
 * The EXCLUDE constraint `booking_slots_no_overlap` (custom migration) makes two live slots
 * of one asset overlapping impossible, whatever the code above it does.
 */
export const bookingSlotsTable = pgTable(
  "booking_slots",
  {
    id: oid("id").primaryKey(),
    bookingId: oid("booking_id")
      .notNull()
      .references(() => bookingsTable.id),
    projectId: oid("project_id").notNull(),
    assetId: oid("asset_id").notNull(),
    occurrenceIndex: integer("occurrence_index").notNull().default(0),
    startAt: instant("start_at").notNull(),
    endAt: instant("end_at").notNull(),
    /** Per-occurrence status; only unpaid, active and checked-in hold the slot. */
    status: text("status").notNull(),
    checkIns: jsonb("check_ins").$type<CheckIn[]>().notNull().default([]),
    checkOutAt: instant("check_out_at"),
    ...timestamps,
  },
  (t) => [
    index("booking_slots_booking_idx").on(t.bookingId, t.occurrenceIndex),
    // Both also INCLUDE (end_at, status, asset_id) (migration 0017: Drizzle cannot say it), for
    // the index-only window reads of slot-window.ts.
    index("booking_slots_project_start_idx").on(t.projectId, t.startAt),
    index("booking_slots_project_long_idx").on(t.projectId, t.startAt).where(sql`${t.endAt} - ${t.startAt} > interval '24 hours'`),
  ],
)

/** The histories of a booking (create, update, cancel, check-in, check-out, payment, ...). */
export const bookingHistoriesTable = pgTable(
  "booking_histories",
  {
    id: oid("id").primaryKey(),
    bookingId: oid("booking_id")
      .notNull()
      .references(() => bookingsTable.id),
    action: text("action").notNull(),
    at: instant("at").notNull(),
    /** The acting user; null for automatic changes (scheduler, payment). */
    by: text("by"),
    /** Extra facts: occurrenceEventId for a series, a reject reason, changed fields. */
    data: jsonb("data").$type<Record<string, unknown>>(),
    createdAt: instant("created_at").notNull(),
  },
  (t) => [index("booking_histories_booking_idx").on(t.bookingId, t.at)],
)

/**
 * Domain events of booking changes, written in the same transaction as the change
 * (transactional outbox); the lifecycle and webhook workers consume them.
 */
export const outboxEventsTable = pgTable(
  "outbox_events",
  {
    id: oid("id").primaryKey(),
    projectId: oid("project_id").notNull(),
    bookingId: oid("booking_id"),
    /** Webhook type, e.g. ROOM_BOOK or DESK_CANCEL. */
    type: text("type").notNull(),
    /** The core domain event (core/events/domain-events.ts) plus context. */
    payload: jsonb("payload").$type<Record<string, unknown>>().notNull(),
    occurredAt: instant("occurred_at").notNull(),
    createdAt: instant("created_at").notNull(),
  },
  (t) => [index("outbox_events_created_idx").on(t.createdAt)],
)
