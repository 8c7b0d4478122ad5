import { Option, Result } from "effect"
import {
  beginPaidExtension,
  completePaidExtension,
  lapsePaidExtension,
  priceDifference,
  priceSum,
} from "../booking/paid-extension.ts"
import { isPaid, toMinor, type ChargeRate, type PriceSummary } from "../booking/pricing.ts"
import type { Booking } from "../booking/state.ts"
import { SYSTEM_ACTOR, transition, type Transitioned } from "../booking/transitions.ts"
import {
  DEFAULT_PAYMENT_CHANNEL,
  PAYMENT_CHANNELS,
  type PaymentChannel,
  type PaymentStatus,
} from "../ports/payments.ts"
import { StateConflict, ValidationFailed } from "../shared/errors.ts"
import { formatHHmm, formatLocalDate, localDateOf } from "../shared/local-time.ts"
import type { PaidTimes, PaymentOrigin, PaymentRecord } from "./records.ts"

/** The pure payment rules: whether to pay, with what, how a payment ends. */

/**
 * The most one payment carries: 21,474,836.47 THB, 2^31 - 1 satang (the width the payment's
 * amount is stored in). A price above it is refused before anything is written.
 */
export const MAX_PAYMENT_MINOR = 2_147_483_647

/** The violation of a price one payment cannot carry, if it is one. */
export const paymentAmountViolations = (summary: PriceSummary): string[] =>
  toMinor(summary.total) > MAX_PAYMENT_MINOR || !Number.isFinite(summary.total)
    ? [`the price (${summary.total} THB) is more than one payment can carry (${MAX_PAYMENT_MINOR / 100} THB)`]
    : []

/** Whether a price needs a payment at all: a 100% discount confirms the booking at once. */
export const needsPayment = (summary: PriceSummary): boolean => toMinor(summary.total) > 0

export const isPaymentChannel = (text: string | null | undefined): text is PaymentChannel =>
  (PAYMENT_CHANNELS as ReadonlyArray<string>).includes(text ?? "")

/** The channel a payment is opened with: the requested one, else the spec's default. */
export const channelOf = (text: string | null | undefined): PaymentChannel =>
  isPaymentChannel(text) ? text : DEFAULT_PAYMENT_CHANNEL

/** `INV-<project-local yyyymmdd>-<sequence, 6 digits>`. */
export const invoiceNoOf = (sequence: number | string, at: number, timeZone: string): string =>
  `INV-${formatLocalDate(localDateOf(at, timeZone)).replace(/-/g, "")}-${String(sequence).padStart(6, "0")}`

/** The payer's statement line, e.g. "Lotus 2030-01-07 09:00-10:00 (extension)". */
export const paymentDescription = (
  booking: Booking,
  timeZone: string,
  assetName: string | undefined,
  extension: boolean,
): string => {
  const day = formatLocalDate(localDateOf(booking.start, timeZone))
  const when = `${day} ${formatHHmm(booking.start, timeZone)}-${formatHHmm(booking.end, timeZone)}`
  return `${assetName ?? booking.title} ${when}${extension ? " (extension)" : ""}`
}

// --- hold hoarding -------------------------------------------------------------------------

/**
 * Who holds the unpaid bookings: a person (a member, directly or through act_as) keeps the
 * anti-hoarding cap; an app token booking as itself is a backend booking for many people and
 * gets its own, much larger budget (KEYSPACE_MAX_UNPAID_HOLDS_PER_APP).
 */
export type HoldHolder = { readonly userId: string; readonly kind: "person" | "app" }

/** The cap of live unpaid bookings for a holder. */
export const holdLimitOf = (
  holder: HoldHolder,
  limits: { readonly maxUnpaidHoldsPerOrganizer: number; readonly maxUnpaidHoldsPerApp: number },
): number => (holder.kind === "app" ? limits.maxUnpaidHoldsPerApp : limits.maxUnpaidHoldsPerOrganizer)

// --- paid extension (PATCH) ----------------------------------------------------------------

export interface PaidExtension {
  /** The update turned unpaid (core beginPaidExtension). */
  readonly result: Transitioned
  /** What the payer owes: new price - the price of the times already paid for, under the same discounts. */
  readonly summary: PriceSummary
}

/**
 * Whether an update of a paid asset's booking is a paid extension: the booking is active or
 * checked-in, its times change and the new times cost more. None = a plain update (a shorter
 * or cheaper change is not refunded; the sandbox has no refunds). `price` prices a booking's
 * times with the extension's discounts (core/booking/pricing.ts priceOf in the project's zone).
 *
 * The base (what is already paid for) is the price of the new times that are the booking's own
 * or that the latest payment paid for (`paid`), but no more than the larger of the own times'
 * price and the paid times' price (each was paid for in full; a move at the same price turned
 * one into the other), and never less than the own times' price. So time paid for and given up
 * by a shorter PATCH is not sold again when the booking grows back into it, and no time is
 * counted twice. All of it is priced like the new times (today's rate and discounts), so a
 * discount given now never makes time free. A paid extension keeps the booking's own times
 * (keepsPaidTimes), so what is covered is the own times and at most one more interval.
 */
export const paidExtensionOf = (input: {
  readonly chargeRate: ChargeRate
  readonly price: (b: Booking) => PriceSummary
  readonly paid: PaidTimes | undefined
  readonly before: Booking
  readonly updated: Transitioned
}): Option.Option<PaidExtension> => {
  const { before, updated } = input
  const after = updated.booking
  if (!isPaid(input.chargeRate)) return Option.none()
  if (before.status !== "active" && before.status !== "checked-in") return Option.none()
  if (after.start === before.start && after.end === before.end) return Option.none()
  const summary = priceDifference(alreadyPaidFor(input.price, before, after, input.paid), input.price(after))
  if (!needsPayment(summary)) return Option.none()
  return Option.some({ result: beginPaidExtension(before, updated), summary })
}

/** The base of paidExtensionOf: the price of what the new times `after` hold already paid for. */
const alreadyPaidFor = (price: (b: Booking) => PriceSummary, before: Booking, after: Booking, paid: PaidTimes | undefined) => {
  const own = price(before)
  if (paid === undefined) return own
  const start = Math.max(after.start, paid.start)
  const end = Math.min(after.end, paid.end)
  if (start >= end) return own
  const covered =
    end < before.start || start > before.end
      ? priceSum(own, price({ ...after, start, end }))
      : price({ ...after, start: Math.min(start, before.start), end: Math.max(end, before.end) })
  const entitled = larger(own, price({ ...after, start: paid.start, end: paid.end }))
  return larger(own, covered.total <= entitled.total ? covered : entitled)
}

const larger = (a: PriceSummary, b: PriceSummary): PriceSummary => (b.total > a.total ? b : a)

// --- extension discounts -------------------------------------------------------------------

/**
 * Which discount code an extension is priced with: the PATCH's discountCode (an unknown one
 * is a 400: `required`), else the code the booking was made with, if it still exists (a code
 * retired since does not make the PATCH fail: not `required`). None: no discount.
 */
export const extensionDiscountCode = (
  requested: string | undefined,
  stored: string | null | undefined,
): Option.Option<{ readonly code: string; readonly required: boolean }> =>
  requested !== undefined && requested !== ""
    ? Option.some({ code: requested, required: true })
    : stored
      ? Option.some({ code: stored, required: false })
      : Option.none()

export const unknownDiscountCode = () =>
  new ValidationFailed({ messages: ["discountCode: unknown or inactive discount code"] })

// --- cancel --------------------------------------------------------------------------------

/**
 * The cancel body's `paymentId` (spec: "payment to void for an unpaid booking"), checked
 * before anything changes: it must name a payment of this booking (else 400 SV001), and for
 * an unpaid booking it must be the pending one (else 409 SV006: it was paid, declined or has
 * lapsed meanwhile, and the caller's view is stale).
 */
export const cancelPaymentIdCheck = (
  paymentId: string,
  payment: Option.Option<PaymentRecord>,
  bookingId: string,
  bookingStatus: string,
): Result.Result<void, ValidationFailed | StateConflict> => {
  if (Option.isNone(payment) || payment.value.bookingId !== bookingId)
    return Result.fail(new ValidationFailed({ messages: ["paymentId: is not a payment of this meeting"] }))
  if (bookingStatus === "unpaid" && payment.value.status !== "pending")
    return Result.fail(new StateConflict({ reason: `payment ${paymentId} is ${payment.value.status}, not pending` }))
  return Result.void
}

/**
 * A checked-in booking cannot be cancelled (spec), also while an extension of it awaits payment
 * (it reads `unpaid` then): the person is in the room, and the lapse restores it checked in.
 */
export const cancelWhileExtendingCheck = (pending: Option.Option<PaymentRecord>): Result.Result<void, StateConflict> =>
  Option.isSome(pending) && pending.value.kind === "extension" && pending.value.origin?.status === "checked-in"
    ? Result.fail(new StateConflict({ reason: "a checked-in booking cannot be cancelled (its extension awaits payment)" }))
    : Result.void

// --- settling ------------------------------------------------------------------------------

export type PaymentOutcome = "paid" | "failed"

/** Why a settle changed nothing: the payment is final, or its window has ended. */
export type RefusalReason = "expired" | PaymentStatus

export type SettleDecision =
  | { readonly _tag: "Refuse"; readonly reason: RefusalReason }
  | { readonly _tag: "Decline" }
  /** Paid: the booking's transition to save (PaymentCompleted, or a completed extension). */
  | { readonly _tag: "Complete"; readonly next: Transitioned }

/**
 * What the payer's outcome does, on the service clock. The window is [opened, expiresAt): at
 * expiresAt the lapse tick owns the booking. A booking that is not unpaid while its payment
 * is pending cannot happen (cancel voids, lapse expires): refused as voided.
 */
export const settleDecision = (
  payment: PaymentRecord,
  booking: Booking,
  outcome: PaymentOutcome,
  now: number,
): SettleDecision => {
  if (payment.status !== "pending") return { _tag: "Refuse", reason: payment.status }
  if (now >= payment.expiresAt) return { _tag: "Refuse", reason: "expired" }
  if (outcome === "failed") return { _tag: "Decline" }
  if (booking.status !== "unpaid") return { _tag: "Refuse", reason: "voided" }
  if (payment.origin) return { _tag: "Complete", next: completePaidExtension(booking, payment.origin, now) }
  const r = transition(booking, { _tag: "PaymentCompleted" }, now, SYSTEM_ACTOR)
  return Result.isFailure(r) ? { _tag: "Refuse", reason: "voided" } : { _tag: "Complete", next: r.success }
}

/** What the booking's history says about the payment that completed it. */
export const paidHistoryData = (p: PaymentRecord) => ({
  paymentId: p.id,
  invoiceNo: p.invoiceNo,
  amount: p.summary.total,
})

// --- the lapse at the window's end (the scheduler's unpaid-timeout tick) ---------------------

export type LapseDecision =
  /** A stale tick: the booking is no longer unpaid, or its pending payment's window is still open. */
  | { readonly _tag: "Skip"; readonly reason: string }
  /**
   * A paid extension never paid: the booking is back as it was before the PATCH (times,
   * status, desk time period), with no event (none was sent for the PATCH).
   */
  | {
      readonly _tag: "Restore"
      /** The pending payment to mark expired, if it still was pending. */
      readonly expire: PaymentRecord | undefined
      readonly next: Transitioned
      readonly timePeriod: string | null
      readonly historyData: Readonly<Record<string, unknown>>
    }
  /** A paid create never paid: cancelled with the payment-lapse reason (core PaymentLapsed). */
  | {
      readonly _tag: "Cancel"
      readonly expire: PaymentRecord | undefined
      readonly next: Transitioned
      readonly historyData: Readonly<Record<string, unknown>> | undefined
    }

/**
 * The lapse at `at` (the tick's due time) of an unpaid booking whose latest payment is
 * `latest` (row-locked by the caller, after the booking row).
 */
export const lapseDecision = (
  booking: Booking,
  latest: PaymentRecord | undefined,
  at: number,
): LapseDecision => {
  if (booking.status !== "unpaid") return { _tag: "Skip", reason: `booking is ${booking.status}` }
  let expire: PaymentRecord | undefined
  if (latest?.status === "pending") {
    if (at < latest.expiresAt) return { _tag: "Skip", reason: "window still open" }
    expire = latest
  }
  if (latest?.origin) {
    return {
      _tag: "Restore",
      expire,
      next: lapsePaidExtension(booking, latest.origin, at),
      timePeriod: latest.origin.timePeriod,
      historyData: { paymentId: latest.id, invoiceNo: latest.invoiceNo, restored: true },
    }
  }
  const r = transition(booking, { _tag: "PaymentLapsed" }, at, SYSTEM_ACTOR)
  if (Result.isFailure(r)) return { _tag: "Skip", reason: r.failure._tag }
  return {
    _tag: "Cancel",
    expire,
    next: r.success,
    historyData: latest ? { paymentId: latest.id, invoiceNo: latest.invoiceNo } : undefined,
  }
}

/** The origin a paid extension's payment stores (the booking before the PATCH). */
export const originOf = (before: Booking, timePeriod: string | null | undefined): PaymentOrigin => ({
  start: before.start,
  end: before.end,
  status: before.status,
  timePeriod: timePeriod ?? null,
})
