import { sql } from "drizzle-orm"
import { index, integer, jsonb, pgSequence, pgTable, text, uniqueIndex } from "drizzle-orm/pg-core"
import type { PriceSummary } from "../../../core/booking/pricing.ts"
import { instant, oid, timestamps } from "./columns.ts"
import { bookingsTable } from "./bookings.ts"

/**
 * Invoice numbers come from one sequence, so they are unique across every server sharing the
 * database and gap-tolerant but ordered, as accountants expect of invoice numbering.
 */
export const invoiceNoSequence = pgSequence("payment_invoice_no_seq", { startWith: 1 })

/**
 * One payment asked of a payer: the whole price of a paid booking (`kind` create) or the
 * extra price of a paid extension (`kind` extension). `id` is the spec's paymentId.
 *
 * Status: `pending` until the payer pays (`paid`), declines (`failed`), the booking is
 * cancelled (`voided`) or the window ends (`expired`); every status but pending is final.
 */
export const paymentsTable = pgTable(
  "payments",
  {
    id: oid("id").primaryKey(),
    bookingId: oid("booking_id")
      .notNull()
      .references(() => bookingsTable.id),
    projectId: oid("project_id").notNull(),
    /** INV-YYYYMMDD-NNNNNN, the date being the project's local date at creation. */
    invoiceNo: text("invoice_no").notNull(),
    kind: text("kind").notNull(),
    /** The total in satang; `summary` holds the THB numbers the API shows. */
    amountMinor: integer("amount_minor").notNull(),
    summary: jsonb("summary").$type<PriceSummary>().notNull(),
    discountCode: text("discount_code"),
    channel: text("channel").notNull(),
    status: text("status").notNull(),
    /** End of the payment window (billingSummaries[].expiredAt). */
    expiredAt: instant("expired_at").notNull(),
    /** When the status left pending. */
    settledAt: instant("settled_at"),
    frontendRedirectUrl: text("frontend_redirect_url"),
    gateway: text("gateway").notNull(),
    gatewayRef: text("gateway_ref"),
    webPaymentUrl: text("web_payment_url").notNull(),
    /** The QR as a data URI, kept so every read shows the same image without re-rendering. */
    webPaymentQr: text("web_payment_qr").notNull(),
    /**
     * A paid extension: the booking's state before it went unpaid, restored when the window
     * lapses (start, end, status, desk timePeriod).
     */
    previousStartAt: instant("previous_start_at"),
    previousEndAt: instant("previous_end_at"),
    previousStatus: text("previous_status"),
    previousTimePeriod: text("previous_time_period"),
    /** The times paid for: a create's, or an extension's new times (null before migration 0018). */
    newStartAt: instant("new_start_at"),
    newEndAt: instant("new_end_at"),
    ...timestamps,
  },
  (t) => [
    uniqueIndex("payments_invoice_no_uq").on(t.invoiceNo),
    index("payments_booking_idx").on(t.bookingId, t.createdAt),
    // A booking has at most one payment awaiting its payer.
    uniqueIndex("payments_one_pending_per_booking_uq")
      .on(t.bookingId)
      .where(sql`status = 'pending'`),
  ],
)

export type PaymentRow = typeof paymentsTable.$inferSelect
