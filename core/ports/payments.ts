import { Context, type Effect } from "effect"
import type { PriceSummary } from "../booking/pricing.ts"

/**
 * The payment gateway port: whatever turns "this booking owes N THB" into an address and a QR
 * a person can pay at, and later tells the service how it went. The sandbox gateway of the
 * operator contract (section 4, adapters/payments/sandbox-gateway.ts) is one adapter; a real
 * gateway (Opn/Omise charges with a PromptPay source, Stripe Checkout sessions, ...) is another
 * adapter behind the same shape:
 *
 * - `open` creates the charge/session at the gateway and returns its hand-off (the hosted
 *   page and a QR image). The service stores the returned `gatewayRef`.
 * - the gateway's confirmation (its webhook, or the sandbox page's form post) calls
 *   `Payments.settle` (core/payment/payments.ts) with the paymentId; the booking side
 *   (unpaid -> active, events, ticks) never depends on which gateway ran.
 * - `void` cancels an open charge when the booking is cancelled or its window lapsed, so a
 *   late payer is refused by the gateway itself (the sandbox refuses on its own page).
 *
 * Money crosses the port both in THB (the API's numbers) and in satang (integer minor units),
 * so an adapter never has to round.
 */

/** Payment channels of the spec's CreateMeetingRequest.paymentChannel. */
export const PAYMENT_CHANNELS = [
  "prompt-pay",
  "credit-card",
  "alipay",
  "true-money",
  "we-chat",
] as const
export type PaymentChannel = (typeof PAYMENT_CHANNELS)[number]
export const DEFAULT_PAYMENT_CHANNEL: PaymentChannel = "prompt-pay"

/** Status of one payment. Only `pending` can change; every other status is final. */
export const PAYMENT_STATUSES = ["pending", "paid", "failed", "voided", "expired"] as const
export type PaymentStatus = (typeof PAYMENT_STATUSES)[number]

/** What a payment pays for: a new paid booking, or the extra time of a paid extension. */
export type PaymentKind = "create" | "extension"

/** What the service asks a gateway to collect. */
export interface PaymentOrder {
  readonly paymentId: string
  readonly invoiceNo: string
  readonly bookingId: string
  readonly projectId: string
  /** THB, e.g. 150.5; equals summary.total. */
  readonly amount: number
  /** The same amount in satang (integer). */
  readonly amountMinor: number
  readonly currency: "THB"
  readonly summary: PriceSummary
  readonly channel: PaymentChannel
  /** One line for the payer's statement, e.g. "Lotus 09:00-10:00". */
  readonly description: string
  /** End of the payment window (epoch ms): the gateway must not accept a payment after it. */
  readonly expiresAt: number
  /** Where the payer goes after paying (the client's frontendRedirectUrl), if any. */
  readonly returnUrl?: string | undefined
}

/** What the payer gets: the spec's Payment.webPaymentUrl and Payment.webPaymentQr. */
export interface PaymentHandoff {
  readonly webPaymentUrl: string
  /** An image as a data URI (`data:image/png;base64,...`). */
  readonly webPaymentQr: string
  /** The gateway's own id of the charge/session, stored for `void` and reconciliation. */
  readonly gatewayRef?: string | undefined
}

/**
 * Neither method has a typed failure: the sandbox cannot fail, and a real gateway that is down
 * while a booking is created is an infrastructure fault (a defect, 500) until the spec gives it
 * an answer of its own.
 */
export interface PaymentGatewayShape {
  /** Stored with each payment, e.g. "sandbox", "omise". */
  readonly name: string
  readonly open: (order: PaymentOrder) => Effect.Effect<PaymentHandoff>
  /** Best effort, never fails (the adapter logs its own trouble): the service's own record is what refuses a late payment. */
  readonly void: (payment: {
    readonly paymentId: string
    readonly gatewayRef?: string | undefined
  }) => Effect.Effect<void>
}

export class PaymentGateway extends Context.Service<PaymentGateway, PaymentGatewayShape>()(
  "keyspace/ports/PaymentGateway",
) {}
