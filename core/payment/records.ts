import type { ExtensionOrigin } from "../booking/paid-extension.ts"
import type { PriceSummary } from "../booking/pricing.ts"
import type { PaymentKind, PaymentStatus } from "../ports/payments.ts"

/**
 * One payment asked of a payer, as the core sees it (stores map their rows to this; no row
 * type crosses a port). Instants are epoch milliseconds.
 */
export interface PaymentRecord {
  /** The spec's paymentId. */
  readonly id: string
  readonly bookingId: string
  readonly projectId: string
  /** INV-YYYYMMDD-NNNNNN (the project's local date at opening). */
  readonly invoiceNo: string
  readonly kind: PaymentKind
  /** The total in satang; `summary` holds the THB numbers the API shows. */
  readonly amountMinor: number
  readonly summary: PriceSummary
  readonly discountCode: string | null
  readonly channel: string
  readonly status: PaymentStatus
  /** End of the payment window (billingSummaries[].expiredAt). */
  readonly expiresAt: number
  /** When the status left pending. */
  readonly settledAt: number | null
  readonly frontendRedirectUrl: string | null
  readonly gateway: string
  readonly gatewayRef: string | null
  readonly webPaymentUrl: string
  readonly webPaymentQr: string
  /** A paid extension: the booking before the PATCH, restored if the window lapses. */
  readonly origin: PaymentOrigin | undefined
  /**
   * The booking's times this payment pays for: a create's times, or a paid extension's new
   * times. Null on payments opened before they were recorded (migration 0018: a create's).
   */
  readonly newStartAt: number | null
  readonly newEndAt: number | null
  readonly createdAt: number
  readonly updatedAt: number
}

/** The times a payment paid for (`newStartAt`, `newEndAt`). */
export interface PaidTimes {
  readonly start: number
  readonly end: number
}

/** What a lapsed extension restores: times, status and (desks) the time period before the PATCH. */
export interface PaymentOrigin extends ExtensionOrigin {
  readonly timePeriod: string | null
}

/** Everything a new pending payment is written with (`PaymentStore.open`). */
export type NewPayment = Omit<PaymentRecord, "status" | "settledAt" | "createdAt" | "updatedAt"> & {
  /** Opening time: createdAt and updatedAt. */
  readonly at: number
}

/** The record `PaymentStore.open` writes (so no store reads it back). */
export const openedRecord = (p: NewPayment): PaymentRecord => {
  const { at, ...rest } = p
  return { ...rest, status: "pending", settledAt: null, createdAt: at, updatedAt: at }
}

/** The record after a status change (so no store reads it back). */
export const withStatus = (p: PaymentRecord, status: PaymentStatus, at: number): PaymentRecord => ({
  ...p,
  status,
  settledAt: at,
  updatedAt: at,
})
