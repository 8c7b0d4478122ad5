import { and, eq, sql } from "drizzle-orm"
import { Effect, Option, Result } from "effect"
import { TooManyUnpaidHolds } from "../../core/booking/errors.ts"
import {
  isPaymentChannel,
  needsPayment,
  paidExtensionOf as corePaidExtensionOf,
  type PaidExtension,
} from "../../core/payment/rules.ts"
import {
  completePaidExtension,
  type ExtensionOrigin,
} from "../../core/booking/paid-extension.ts"
import {
  toMinor,
  type ChargeRate,
  type Discount,
  type PriceSummary,
} from "../../core/booking/pricing.ts"
import type { AssetKind, Booking, BookingStatus } from "../../core/booking/state.ts"
import { transition, SYSTEM_ACTOR, type Transitioned } from "../../core/booking/transitions.ts"
import {
  DEFAULT_PAYMENT_CHANNEL,
  type PaymentKind,
  type PaymentStatus,
} from "../../core/ports/payments.ts"
import { StateConflict, ValidationFailed } from "../../core/shared/errors.ts"
import {
  formatHHmm,
  formatLocalDate,
  formatOffsetDateTime,
  localDateOf,
} from "../../core/shared/local-time.ts"
import { findAsset } from "../bookings/asset-queries.ts"
import { priceOf } from "../bookings/pricing-glue.ts"
import {
  loadBooking,
  saveTransition,
  toCoreBooking,
  unpaidHoldsOf,
  type StoredBooking,
} from "../postgres/booking-repo.ts"
import { execute, type Queryable } from "../postgres/database.ts"
import { paymentsTable, type PaymentRow } from "../postgres/tables/payments.ts"
import { discountsTable } from "../postgres/tables/tenancy.ts"
import type { Services } from "../wiring/services.ts"
import { lifecycleCommitted, scheduleStoredBooking } from "../scheduler/apply-tick.ts"
import {
  extensionOriginOf,
  lockPayment,
  paymentGateway,
  paymentMetrics,
  setPaymentStatus,
} from "./payment-records.ts"

/**
 * Payment use cases: opening a payment in the booking's transaction, settling it (the pay
 * page, or a real gateway's confirmation), voiding on cancel, the hold cap, and the pay
 * page's read model. Gateway-specific work stays behind core/ports/payments.ts; the lapse at
 * the window's end is payment-lapse.ts (the scheduler calls it).
 *
 * Lock order everywhere: the booking row first, then its payment rows, so a payer pressing
 * Pay while the window's tick fires serializes instead of deadlocking.
 */

// --- hold hoarding -------------------------------------------------------------------------

/**
 * Who holds the unpaid bookings: a person (a member, directly or through act_as) keeps the
 * anti-hoarding cap; an app token booking as itself is a backend booking for many people and
 * gets its own, much larger budget (KEYSPACE_MAX_UNPAID_HOLDS_PER_APP).
 */
export type HoldHolder = { readonly userId: string; readonly kind: "person" | "app" }

/**
 * Refuses a new unpaid hold once the holder has its limit of live unpaid bookings (429
 * SV040), counted under a per-holder advisory lock so concurrent creates cannot race past the
 * cap. Call it inside the create transaction.
 */
export const assertUnpaidHoldAllowed = async (
  tx: Queryable,
  s: Services,
  holder: HoldHolder,
): Promise<void> => {
  const organizerUserId = holder.userId
  const limit = holder.kind === "app" ? s.config.maxUnpaidHoldsPerApp : s.config.maxUnpaidHoldsPerOrganizer
  if ((await unpaidHoldsOf(tx, organizerUserId)) >= limit) {
    paymentMetrics(s).holdRefused()
    throw new TooManyUnpaidHolds({ limit })
  }
}

// --- opening a payment ---------------------------------------------------------------------

/** @deprecated bridge: core/payment/rules.ts */
export { isPaymentChannel, needsPayment }

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
  readonly origin?: ExtensionOrigin & { readonly timePeriod?: string | null | undefined }
  readonly now: number
}

const compactDate = (instant: number, timeZone: string): string =>
  formatLocalDate(localDateOf(instant, timeZone)).replace(/-/g, "")

const nextInvoiceNo = async (tx: Queryable, now: number, timeZone: string): Promise<string> => {
  const [row] = await execute<{ n: string | number }>(
    tx,
    sql`select nextval('payment_invoice_no_seq')::text as n`,
  )
  return `INV-${compactDate(now, timeZone)}-${String(row!.n).padStart(6, "0")}`
}

/**
 * Opens a payment for an unpaid booking, inside the caller's transaction: a pending row with
 * an invoice number, the window's end (now + KEYSPACE_PAYMENT_WINDOW) and the gateway's
 * hand-off. Returns the row; its expiredAt is the unpaid-timeout tick's due time.
 */
export const openPayment = async (
  tx: Queryable,
  s: Services,
  input: OpenPaymentInput,
): Promise<PaymentRow> => {
  const b = input.booking
  const gateway = paymentGateway(s)
  const paymentId = s.newId()
  const invoiceNo = await nextInvoiceNo(tx, input.now, input.timeZone)
  const expiresAt = input.now + s.config.paymentWindowSeconds * 1000
  const channel = isPaymentChannel(input.channel) ? input.channel : DEFAULT_PAYMENT_CHANNEL
  const amountMinor = toMinor(input.summary.total)
  const tz = input.timeZone
  const extension = input.kind === "extension"
  const day = formatLocalDate(localDateOf(b.start, tz))
  const when = `${day} ${formatHHmm(b.start, tz)}-${formatHHmm(b.end, tz)}`
  const handoff = await Effect.runPromise(gateway.open({
    paymentId,
    invoiceNo,
    bookingId: b.id,
    projectId: b.projectId,
    amount: input.summary.total,
    amountMinor,
    currency: "THB",
    summary: input.summary,
    channel,
    description: `${input.assetName ?? b.title} ${when}${extension ? " (extension)" : ""}`,
    expiresAt,
    returnUrl: input.frontendRedirectUrl ?? undefined,
  }))
  const origin = input.origin
  const [row] = await tx
    .insert(paymentsTable)
    .values({
      id: paymentId,
      bookingId: b.id,
      projectId: b.projectId,
      invoiceNo,
      kind: input.kind,
      amountMinor,
      summary: input.summary,
      discountCode: input.discountCode ?? null,
      channel,
      status: "pending",
      expiredAt: new Date(expiresAt),
      frontendRedirectUrl: input.frontendRedirectUrl ?? null,
      gateway: gateway.name,
      gatewayRef: handoff.gatewayRef ?? null,
      webPaymentUrl: handoff.webPaymentUrl,
      webPaymentQr: handoff.webPaymentQr,
      previousStartAt: origin ? new Date(origin.start) : null,
      previousEndAt: origin ? new Date(origin.end) : null,
      previousStatus: origin ? origin.status : null,
      previousTimePeriod: origin?.timePeriod ?? null,
      newEndAt: origin ? new Date(b.end) : null,
      createdAt: new Date(input.now),
      updatedAt: new Date(input.now),
    })
    .returning()
  paymentMetrics(s).payment("opened")
  return row!
}

// --- paid extension (PATCH) ----------------------------------------------------------------

/** A discount of the project by code, case-insensitively; undefined when unknown or inactive. */
export const findDiscount = async (
  q: Queryable,
  projectId: string,
  code: string,
): Promise<Discount | undefined> => {
  const [d] = await q
    .select()
    .from(discountsTable)
    .where(
      and(
        eq(discountsTable.projectId, projectId),
        sql`upper(${discountsTable.code}) = ${code.trim().toUpperCase()}`,
        eq(discountsTable.active, true),
      ),
    )
  return d
    ? {
        code: d.code,
        name: d.name,
        percentOff: d.percentOff ?? undefined,
        amountOff: d.amountOff ?? undefined,
      }
    : undefined
}

/**
 * The discounts an extension is priced with: the PATCH's discountCode (unknown -> 400 SV001),
 * else the code the booking was made with, if it still exists (a code retired since does not
 * make the PATCH fail).
 */
export const extensionDiscounts = async (
  q: Queryable,
  projectId: string,
  requested: string | undefined,
  stored: string | null,
): Promise<Discount[]> => {
  if (requested !== undefined && requested !== "") {
    const d = await findDiscount(q, projectId, requested)
    if (!d) {
      throw new ValidationFailed({ messages: ["discountCode: unknown or inactive discount code"] })
    }
    return [d]
  }
  const d = stored ? await findDiscount(q, projectId, stored) : undefined
  return d ? [d] : []
}

export type { PaidExtension }

/** @deprecated bridge: core/payment/rules.ts paidExtensionOf (prices with a function). */
export const paidExtensionOf = (input: {
  readonly chargeRate: ChargeRate
  readonly timeZone: string
  readonly discounts: ReadonlyArray<Discount>
  readonly before: Booking
  readonly updated: Transitioned
}): PaidExtension | undefined =>
  Option.getOrUndefined(
    corePaidExtensionOf({
      chargeRate: input.chargeRate,
      price: (b) => priceOf(input.chargeRate, b.start, b.end, input.timeZone, input.discounts),
      before: input.before,
      updated: input.updated,
    }),
  )

// --- settling (pay page, gateway callback) ---------------------------------------------------

export type PaymentOutcome = "paid" | "failed"

export type SettleResult =
  | { readonly _tag: "NotFound" }
  /** Nothing changed: the payment is not pending, or its window has ended. */
  | {
      readonly _tag: "Refused"
      readonly reason: "expired" | PaymentStatus
      readonly payment: PaymentRow
    }
  | { readonly _tag: "Declined"; readonly payment: PaymentRow }
  | { readonly _tag: "Paid"; readonly payment: PaymentRow; readonly bookingStatus: BookingStatus }

/**
 * Records the payer's outcome for a payment (the sandbox page's form post; a real gateway's
 * confirmation would call the same). `paid` within the window: payment paid, booking unpaid ->
 * active (or back to its status, for an extension), BOOK (or MODIFY) into the outbox, ticks
 * rescheduled, all in one transaction. `failed`: payment failed, nothing else. A payment that
 * is not pending, or whose window has ended on the service clock, is refused unchanged.
 */
export const settlePayment = async (
  s: Services,
  paymentId: string,
  outcome: PaymentOutcome,
): Promise<SettleResult> => {
  const db = s.database.db
  const [peek] = await db.select().from(paymentsTable).where(eq(paymentsTable.id, paymentId))
  if (!peek) return { _tag: "NotFound" }
  let changed: BookingStatus | undefined
  const result = await db.transaction(async (tx): Promise<SettleResult> => {
    const stored = await loadBooking(tx, peek.bookingId, { lock: true })
    const payment = await lockPayment(tx, paymentId)
    if (!stored || !payment) return { _tag: "NotFound" }
    const now = s.clock.now()
    if (payment.status !== "pending") {
      return { _tag: "Refused", reason: payment.status as PaymentStatus, payment }
    }
    // The window is [opened, expiredAt): at expiredAt the lapse tick owns the booking.
    if (now >= payment.expiredAt.getTime()) return { _tag: "Refused", reason: "expired", payment }
    if (outcome === "failed") {
      return { _tag: "Declined", payment: await setPaymentStatus(tx, paymentId, "failed", now) }
    }
    const slot = stored.slots[0]!
    const booking = toCoreBooking(stored.row, slot)
    if (booking.status !== "unpaid") {
      // Cannot happen while the payment is pending (cancel voids, lapse expires); refuse.
      return { _tag: "Refused", reason: "voided", payment }
    }
    const origin = extensionOriginOf(payment)
    let next: Transitioned
    if (origin) {
      next = completePaidExtension(booking, origin, now)
    } else {
      const r = transition(booking, { _tag: "PaymentCompleted" }, now, SYSTEM_ACTOR)
      if (Result.isFailure(r)) return { _tag: "Refused", reason: "voided", payment }
      next = r.success
    }
    const saved = await saveTransition(tx, s.newId, stored, slot, next, {
      historyData: { paymentId, invoiceNo: payment.invoiceNo, amount: payment.summary.total },
    })
    await scheduleStoredBooking(s, tx, saved)
    changed = next.booking.status
    return {
      _tag: "Paid",
      payment: await setPaymentStatus(tx, paymentId, "paid", now),
      bookingStatus: next.booking.status,
    }
  })
  if (result._tag === "Paid" || result._tag === "Declined") {
    paymentMetrics(s).payment(result._tag === "Paid" ? "paid" : "failed")
  }
  if (changed !== undefined) {
    s.metrics.bookingStatusChanged("unpaid", changed)
    await lifecycleCommitted(s, peek.bookingId, "payment")
  }
  return result
}

// --- cancel: voiding -----------------------------------------------------------------------

/**
 * The cancel body's `paymentId` (spec: "payment to void for an unpaid booking"), checked
 * before anything changes: it must name a payment of this booking (else 400 SV001), and for
 * an unpaid booking it must be the pending one (else 409 SV006: it was paid, declined or has
 * lapsed meanwhile, and the caller's view is stale).
 */
export const checkCancelPaymentId = async (
  q: Queryable,
  bookingId: string,
  bookingStatus: string,
  paymentId: string | undefined,
): Promise<void> => {
  if (paymentId === undefined) return
  const [p] = await q
    .select()
    .from(paymentsTable)
    .where(and(eq(paymentsTable.id, paymentId), eq(paymentsTable.bookingId, bookingId)))
  if (!p) throw new ValidationFailed({ messages: ["paymentId: is not a payment of this meeting"] })
  if (bookingStatus === "unpaid" && p.status !== "pending")
    throw new StateConflict({ reason: `payment ${paymentId} is ${p.status}, not pending` })
}

/**
 * Voids the booking's pending payments (spec: cancel -> "pending payments voided"), in the
 * cancel's transaction; the gateway is told after the commit. Returns the voided rows.
 */
export const voidPendingPayments = async (
  tx: Queryable,
  s: Services,
  bookingId: string,
  at: number,
): Promise<PaymentRow[]> => {
  const rows = await tx
    .update(paymentsTable)
    .set({ status: "voided", settledAt: new Date(at), updatedAt: new Date(at) })
    .where(and(eq(paymentsTable.bookingId, bookingId), eq(paymentsTable.status, "pending")))
    .returning()
  for (const _ of rows) paymentMetrics(s).payment("voided")
  return rows
}

/** After the cancel committed: tell the gateway (best effort; our record already refuses). */
export const notifyGatewayVoided = async (
  s: Services,
  voided: ReadonlyArray<PaymentRow>,
): Promise<void> => {
  const gateway = paymentGateway(s)
  for (const p of voided) {
    try {
      await Effect.runPromise(gateway.void({ paymentId: p.id, gatewayRef: p.gatewayRef ?? undefined }))
    } catch (e) {
      s.logger.log("warn", "gateway void failed", {
        paymentId: p.id,
        error: e instanceof Error ? e.message : String(e),
      })
    }
  }
}

// --- the pay page's read model ---------------------------------------------------------------

export interface PayPageModel {
  readonly payment: PaymentRow
  readonly bookingTitle: string
  readonly bookingStatus: string
  readonly assetKind: AssetKind
  readonly assetName: string
  readonly startDateTime: string
  readonly endDateTime: string
  /** e.g. "Mon 2030-01-07 10:00-11:00 (Asia/Bangkok)". */
  readonly when: string
  /** The window has ended on the service clock (even if the tick has not run yet). */
  readonly lapsed: boolean
}

/** Everything the pay page shows for a payment; undefined when the id is unknown. */
export const payPageModel = async (
  s: Services,
  paymentId: string,
): Promise<PayPageModel | undefined> => {
  const db = s.database.db
  const [payment] = await db.select().from(paymentsTable).where(eq(paymentsTable.id, paymentId))
  if (!payment) return undefined
  const stored: StoredBooking | undefined = await loadBooking(db, payment.bookingId)
  if (!stored) return undefined
  const slot = stored.slots[0]!
  const kind = stored.row.assetKind as AssetKind
  const asset = await findAsset(db, undefined, kind, stored.row.assetId)
  const tz = asset.project.timezone
  const start = slot.startAt.getTime()
  const end = slot.endAt.getTime()
  const weekday = new Intl.DateTimeFormat("en-US", { weekday: "short", timeZone: tz }).format(start)
  // A booking over several days shows the end's date too.
  const endDay = formatLocalDate(localDateOf(end - 1, tz))
  const sameDay = endDay === formatLocalDate(localDateOf(start, tz))
  const range = `${formatHHmm(start, tz)}-${sameDay ? "" : `${endDay} `}${formatHHmm(end, tz)}`
  return {
    payment,
    bookingTitle: stored.row.title,
    bookingStatus: slot.status,
    assetKind: kind,
    assetName: asset.row.name,
    startDateTime: formatOffsetDateTime(start, tz),
    endDateTime: formatOffsetDateTime(end, tz),
    when: `${weekday} ${formatLocalDate(localDateOf(start, tz))} ${range} (${tz})`,
    lapsed: s.clock.now() >= payment.expiredAt.getTime(),
  }
}
