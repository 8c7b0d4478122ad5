import type { PriceSummary } from "../booking/pricing.ts"
import type { PaymentRecord } from "./records.ts"

/** What the Meeting shows of a payment (a PaymentRecord, or any read model with these fields). */
export interface BillablePayment
  extends Pick<PaymentRecord, "id" | "invoiceNo" | "amountMinor" | "summary" | "channel" | "expiresAt" | "webPaymentUrl" | "webPaymentQr"> {
  readonly kind: string
  readonly status: string
}

/** The Meeting's payment fields (spec: Payment, billingSummaries), from the records in hand. */

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

export const paymentView = (p: BillablePayment): PaymentView => ({
  paymentId: p.id,
  invoiceNo: p.invoiceNo,
  amount: p.summary.total,
  summary: p.summary,
  webPaymentUrl: p.webPaymentUrl,
  webPaymentQr: p.webPaymentQr,
})

/**
 * `payment` only while the booking is unpaid and a payment is pending (spec: "only on unpaid
 * responses"), and every payment (oldest first) as a billing summary.
 */
export const paymentFields = (
  payments: ReadonlyArray<BillablePayment>,
  status: string,
  /**
   * Whether the viewer is the payer's side (sees the pinCode): only they get the pay hand-off
   * and the billing lines, whose payment ids open the (unauthenticated) pay page.
   */
  payer: boolean,
): { payment?: PaymentView; billingSummaries: BillingSummary[] } => {
  if (!payer) return { billingSummaries: [] }
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
      expiredAt: new Date(p.expiresAt).toISOString(),
      kind: p.kind,
      paymentChannel: p.channel,
    }
  })
  const pending = status === "unpaid" ? payments.find((p) => p.status === "pending") : undefined
  return { ...(pending ? { payment: paymentView(pending) } : {}), billingSummaries }
}
