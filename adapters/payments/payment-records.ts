import { asc, eq, inArray } from "drizzle-orm"
import type { ExtensionOrigin } from "../../core/booking/paid-extension.ts"
import type { PriceSummary } from "../../core/booking/pricing.ts"
import type { BookingStatus } from "../../core/booking/state.ts"
import type { PaymentGatewayShape, PaymentStatus } from "../../core/ports/payments.ts"
import type { Queryable } from "../postgres/database.ts"
import { paymentsTable, type PaymentRow } from "../postgres/tables/payments.ts"
import type { Services } from "../wiring/services.ts"
import { makeSandboxGateway } from "./sandbox-gateway.ts"

/**
 * The low layer of payments, shared by the use cases (payment-service.ts) and the lapse the
 * scheduler applies (payment-lapse.ts): the gateway of this service, payment rows, the
 * Meeting's payment fields, and the payment metrics.
 */

// --- the gateway of this service instance ---------------------------------------------------

const gateways = new WeakMap<Services, PaymentGatewayShape>()

/** The configured gateway (KEYSPACE_PAYMENTS; only `sandbox` exists today). */
export const paymentGateway = (s: Services): PaymentGatewayShape => {
  let gateway = gateways.get(s)
  if (gateway === undefined) {
    gateway = makeSandboxGateway({
      publicUrl: s.config.publicUrl,
      promptPayId: s.config.promptPayId,
    })
    gateways.set(s, gateway)
  }
  return gateway
}

// --- metrics -------------------------------------------------------------------------------

export interface PaymentMetrics {
  readonly payment: (outcome: "opened" | PaymentStatus) => void
  readonly holdRefused: () => void
}

const metricsBySink = new WeakMap<Services["metrics"], PaymentMetrics>()

/** Payment counters, registered once per metrics registry. */
export const paymentMetrics = (s: Services): PaymentMetrics => {
  let m = metricsBySink.get(s.metrics)
  if (m === undefined) {
    const payments = s.metrics.registry.counter(
      "keyspace_payments_total",
      "Payments by outcome: opened, paid, failed (declined), voided (cancelled), expired (lapsed).",
      ["outcome"],
    )
    const holds = s.metrics.registry.counter(
      "keyspace_unpaid_hold_refusals_total",
      "Paid creates refused with 429 SV040: the organizer already holds the most unpaid bookings.",
      [],
    )
    m = { payment: (outcome) => payments.inc({ outcome }), holdRefused: () => holds.inc({}) }
    metricsBySink.set(s.metrics, m)
  }
  return m
}

// --- rows ----------------------------------------------------------------------------------

export const lockPayment = async (
  tx: Queryable,
  paymentId: string,
): Promise<PaymentRow | undefined> => {
  const [row] = await tx
    .select()
    .from(paymentsTable)
    .where(eq(paymentsTable.id, paymentId))
    .for("update")
  return row
}

/** Moves a payment out of pending (every other status is final). */
export const setPaymentStatus = async (
  tx: Queryable,
  paymentId: string,
  status: PaymentStatus,
  at: number,
): Promise<PaymentRow> => {
  const [row] = await tx
    .update(paymentsTable)
    .set({ status, settledAt: new Date(at), updatedAt: new Date(at) })
    .where(eq(paymentsTable.id, paymentId))
    .returning()
  return row!
}

/** A paid extension's booking before the PATCH; undefined for a create payment. */
export const extensionOriginOf = (p: PaymentRow): ExtensionOrigin | undefined =>
  p.kind === "extension" && p.previousStartAt && p.previousEndAt && p.previousStatus
    ? {
        start: p.previousStartAt.getTime(),
        end: p.previousEndAt.getTime(),
        status: p.previousStatus as BookingStatus,
      }
    : undefined

/** Payments of several bookings, oldest first, grouped by booking id. */
export const paymentsOf = async (
  q: Queryable,
  bookingIds: ReadonlyArray<string>,
): Promise<Map<string, PaymentRow[]>> => {
  const out = new Map<string, PaymentRow[]>()
  if (bookingIds.length === 0) return out
  const rows = await q
    .select()
    .from(paymentsTable)
    .where(inArray(paymentsTable.bookingId, [...new Set(bookingIds)]))
    .orderBy(asc(paymentsTable.createdAt), asc(paymentsTable.id))
  for (const r of rows) {
    const list = out.get(r.bookingId) ?? []
    list.push(r)
    out.set(r.bookingId, list)
  }
  return out
}

// --- the Meeting's payment fields -------------------------------------------------------------

/** The spec's Payment object. */
export interface PaymentView {
  readonly paymentId: string
  readonly invoiceNo: string
  readonly amount: number
  readonly summary: PriceSummary
  readonly webPaymentUrl: string
  readonly webPaymentQr: string
}

/** One billingSummaries item (field names as the spec spells them). */
export interface BillingSummary {
  readonly payment_id: string
  /** What this payment collects (THB). */
  readonly amount: number
  /** What the booking costs in all once this payment is paid: earlier paid payments + amount. */
  readonly total: number
  readonly invoice_no: string
  /** pending, paid, failed, voided or expired. */
  readonly status: string
  /** End of the payment window (UTC ISO 8601). */
  readonly expiredAt: string
  /** Beyond the spec: `create` (the booking's price) or `extension` (an extension's difference). */
  readonly kind: string
  readonly paymentChannel: string
}

export const paymentView = (p: PaymentRow): PaymentView => ({
  paymentId: p.id,
  invoiceNo: p.invoiceNo,
  amount: p.summary.total,
  summary: p.summary,
  webPaymentUrl: p.webPaymentUrl,
  webPaymentQr: p.webPaymentQr,
})

/**
 * The Meeting's payment fields: `payment` only while the booking is unpaid and a payment is
 * pending (spec: "only on unpaid responses"), and every payment as a billing summary.
 */
export const paymentFields = (
  payments: ReadonlyArray<PaymentRow>,
  status: string,
): { payment?: PaymentView; billingSummaries: BillingSummary[] } => {
  let paidMinor = 0
  const billingSummaries = payments.map((p): BillingSummary => {
    const total = paidMinor + p.amountMinor
    if (p.status === "paid") paidMinor += p.amountMinor
    return {
      payment_id: p.id,
      amount: p.summary.total,
      total: total / 100,
      invoice_no: p.invoiceNo,
      status: p.status,
      expiredAt: p.expiredAt.toISOString(),
      kind: p.kind,
      paymentChannel: p.channel,
    }
  })
  const pending = status === "unpaid" ? payments.find((p) => p.status === "pending") : undefined
  return { ...(pending ? { payment: paymentView(pending) } : {}), billingSummaries }
}
