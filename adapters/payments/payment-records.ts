import { paymentFields as paymentFieldsOf, type BillingSummary, type PaymentView } from "../../core/payment/billing.ts"
import { paymentRowsOf, toPaymentRecord } from "../postgres/payment-store.ts"
import type { PaymentRow } from "../postgres/tables/payments.ts"

/**
 * @deprecated bridge: what the legacy booking read/write code (streams S1a, S1b) still takes
 * from payments as rows. The Meeting's payment fields are core/payment/billing.ts; payments of
 * bookings are PaymentStore.byBookings. Deleted once those callers use the records.
 */

export type { BillingSummary, PaymentView }

/** @deprecated bridge: PaymentStore.byBookings. */
export const paymentsOf = paymentRowsOf

/** @deprecated bridge: core/payment/billing.ts paymentFields over records. */
export const paymentFields = (
  payments: ReadonlyArray<PaymentRow>,
  status: string,
): { payment?: PaymentView; billingSummaries: BillingSummary[] } => paymentFieldsOf(payments.map(toPaymentRecord), status)
