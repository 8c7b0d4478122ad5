import type { PaymentRecord as MeetingPayment } from "../../core/booking/meeting-records.ts"
import { paymentFields as billingFields, type BillingSummary, type PaymentView } from "../../core/payment/billing.ts"

/**
 * @deprecated bridge: the meeting read view (adapters/bookings/meeting-view.ts, stream S1b)
 * hands its payment rows (Date-valued `expiredAt`) here; the rule is core/payment/billing.ts.
 * Deleted once that view calls billing.ts itself.
 */

export type { BillingSummary, PaymentView }

/** @deprecated bridge: core/payment/billing.ts paymentFields. */
export const paymentFields = (
  payments: ReadonlyArray<MeetingPayment>,
  status: string,
): { payment?: PaymentView; billingSummaries: BillingSummary[] } =>
  billingFields(
    payments.map((p) => ({ ...p, expiresAt: p.expiredAt.getTime() })),
    status,
  )
