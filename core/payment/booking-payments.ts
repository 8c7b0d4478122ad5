import { Effect, Metric } from "effect"
import type { PriceSummary } from "../booking/pricing.ts"
import { toMinor } from "../booking/pricing.ts"
import type { Booking } from "../booking/state.ts"
import type { PaymentStore } from "../ports/payment-store.ts"
import type { PaymentGateway, PaymentKind } from "../ports/payments.ts"
import { paymentOutcome } from "./metrics.ts"
import type { PaidTimes, PaymentOrigin, PaymentRecord } from "./records.ts"
import { channelOf, paymentDescription } from "./rules.ts"

/**
 * The payment steps the booking use cases run. Opening a payment for an unpaid booking, inside the caller's unit of work (Bookings.create
 * and Bookings.update's paid extension): an invoice number, the gateway's hand-off, a pending
 * record whose `expiresAt` (now + KEYSPACE_PAYMENT_WINDOW) is the unpaid-timeout tick's due time.
 */

export interface OpenPaymentInput {
  /** The booking as saved (status unpaid), with its new times for an extension. */
  readonly booking: Booking
  readonly kind: PaymentKind
  /** What this payment collects: the whole price, or the extension's difference. */
  readonly summary: PriceSummary
  readonly discountCode?: string | null | undefined
  readonly channel?: string | null | undefined
  readonly frontendRedirectUrl?: string | null | undefined
  readonly timeZone: string
  readonly assetName?: string | undefined
  /** For an extension: the booking before the PATCH, restored if the window lapses. */
  readonly origin?: PaymentOrigin | undefined
  readonly now: number
  /** KEYSPACE_PAYMENT_WINDOW. */
  readonly windowSeconds: number
}

/** The ports opening needs, resolved once at the caller's layer build. */
export interface PaymentOpening {
  readonly store: PaymentStore["Service"]
  readonly gateway: PaymentGateway["Service"]
  readonly newId: () => string
}

/** Two statements in the caller's transaction: the invoice sequence, the insert (no read-back). */
export const openPayment = (deps: PaymentOpening, input: OpenPaymentInput): Effect.Effect<PaymentRecord> =>
  Effect.gen(function* () {
    const { booking: b, now } = input
    const paymentId = deps.newId()
    const invoiceNo = yield* deps.store.nextInvoiceNo(now, input.timeZone)
    const expiresAt = now + input.windowSeconds * 1000
    const channel = channelOf(input.channel)
    const amountMinor = toMinor(input.summary.total)
    const handoff = yield* deps.gateway.open({
      paymentId,
      invoiceNo,
      bookingId: b.id,
      projectId: b.projectId,
      amount: input.summary.total,
      amountMinor,
      currency: "THB",
      summary: input.summary,
      channel,
      description: paymentDescription(b, input.timeZone, input.assetName, input.kind === "extension"),
      expiresAt,
      returnUrl: input.frontendRedirectUrl ?? undefined,
    })
    const record = yield* deps.store.open({
      id: paymentId,
      bookingId: b.id,
      projectId: b.projectId,
      invoiceNo,
      kind: input.kind,
      amountMinor,
      summary: input.summary,
      discountCode: input.discountCode ?? null,
      channel,
      expiresAt,
      frontendRedirectUrl: input.frontendRedirectUrl ?? null,
      gateway: deps.gateway.name,
      gatewayRef: handoff.gatewayRef ?? null,
      webPaymentUrl: handoff.webPaymentUrl,
      webPaymentQr: handoff.webPaymentQr,
      origin: input.origin,
      newStartAt: b.start,
      newEndAt: b.end,
      at: now,
    })
    yield* Metric.update(paymentOutcome("opened"), 1)
    return record
  })

/** After the cancel committed: tell the gateway (best effort; our record already refuses). */
export const voidAtGateway = (
  gateway: PaymentGateway["Service"],
  voided: ReadonlyArray<PaymentRecord>,
): Effect.Effect<void> =>
  Effect.forEach(voided, (p) => gateway.void({ paymentId: p.id, gatewayRef: p.gatewayRef ?? undefined }), {
    discard: true,
  })

/** Spec: cancel (and a reject) voids the pending payments; in the caller's unit of work. */
export const voidPendingPayments = (
  store: PaymentStore["Service"],
  bookingId: string,
  at: number,
): Effect.Effect<ReadonlyArray<PaymentRecord>> =>
  Effect.gen(function* () {
    const voided = yield* store.voidPending(bookingId, at)
    if (voided.length > 0) yield* Metric.update(paymentOutcome("voided"), voided.length)
    return voided
  })

/**
 * When an unpaid booking's window ends: its latest payment's expiry, whatever became of that
 * payment (a declined one keeps the window it was opened with, which an extension may have cut
 * short of KEYSPACE_PAYMENT_WINDOW: extensionWindow); without any payment, `fallbackMs` after
 * the booking went unpaid. One rule for the lifecycle's ticks and a use case's re-planning.
 */
export const unpaidWindowEnd = (
  payments: PaymentStore["Service"],
  bookingId: string,
  unpaidSince: number,
  fallbackMs: number,
): Effect.Effect<number> =>
  Effect.map(payments.byBookings([bookingId]), (all) => all.get(bookingId)?.at(-1)?.expiresAt ?? unpaidSince + fallbackMs)

/**
 * The times the booking's latest settled payment paid for (records.ts `newStartAt`, `newEndAt`;
 * `payments` in opening order), if recorded: time a shorter PATCH gave up since is still paid
 * for (rules.ts paidExtensionOf). Every change since that payment cost no more than it.
 */
export const paidTimesOf = (payments: ReadonlyArray<PaymentRecord>): PaidTimes | undefined => {
  const latest = payments.findLast((x) => x.status === "paid")
  return latest === undefined || latest.newStartAt === null || latest.newEndAt === null
    ? undefined
    : { start: latest.newStartAt, end: latest.newEndAt }
}
