import { and, eq, sql } from "drizzle-orm"
import { Effect, type ManagedRuntime, Metric, Option, Result } from "effect"
import { TooManyUnpaidHolds } from "../../core/booking/errors.ts"
import type { ExtensionOrigin } from "../../core/booking/paid-extension.ts"
import {
  normalizeDiscountCode,
  priceOf,
  type ChargeRate,
  type Discount,
  type PriceSummary,
} from "../../core/booking/pricing.ts"
import type { Booking } from "../../core/booking/state.ts"
import type { Transitioned } from "../../core/booking/transitions.ts"
import { openPayment as openPaymentEffect, voidAtGateway } from "../../core/payment/booking-payments.ts"
import { paymentOutcome, unpaidHoldRefusals } from "../../core/payment/metrics.ts"
import type { PaymentRecord } from "../../core/payment/records.ts"
import {
  cancelPaymentIdCheck,
  extensionDiscountCode,
  holdLimitOf,
  isPaymentChannel,
  needsPayment,
  paidExtensionOf as corePaidExtensionOf,
  unknownDiscountCode,
  type HoldHolder,
  type PaidExtension,
} from "../../core/payment/rules.ts"
import { Ids } from "../../core/ports/ids.ts"
import { PaymentStore } from "../../core/ports/payment-store.ts"
import { PaymentGateway, type PaymentKind } from "../../core/ports/payments.ts"
import { unpaidHoldsOf } from "../postgres/booking-repo.ts"
import type { Queryable, Tx } from "../postgres/database.ts"
import { paymentRowById, toPaymentRecord, voidPendingRows } from "../postgres/payment-store.ts"
import type { PaymentRow } from "../postgres/tables/payments.ts"
import { discountsTable } from "../postgres/tables/tenancy.ts"
import { provideTx } from "../postgres/unit-of-work.ts"

/**
 * @deprecated bridge: the Promise entry points of the payment steps that the legacy
 * adapters/bookings/booking-service.ts (stream S1a) still calls inside its Drizzle
 * transactions. Every rule is core/payment's; the writes go through the runtime's
 * PaymentStore/PaymentGateway on the caller's transaction (`provideTx`). Deleted once
 * Bookings runs on the ports (core/payment/booking-payments.ts is what it calls).
 */

export type { HoldHolder, PaidExtension }

/**
 * What the bridges use of the legacy `Services` (structurally: payments does not import the
 * wiring, which imports payments' layers).
 */
export interface LegacyPaymentDeps {
  readonly runtime: ManagedRuntime.ManagedRuntime<PaymentStore | PaymentGateway | Ids, never>
  readonly config: {
    readonly paymentWindowSeconds: number
    readonly maxUnpaidHoldsPerOrganizer: number
    readonly maxUnpaidHoldsPerApp: number
  }
}
export { isPaymentChannel, needsPayment }

/** @deprecated bridge. 429 SV040 once the holder has its limit of live unpaid bookings (per-holder lock in the count). */
export const assertUnpaidHoldAllowed = async (tx: Queryable, s: LegacyPaymentDeps, holder: HoldHolder): Promise<void> => {
  const limit = holdLimitOf(holder, s.config)
  if ((await unpaidHoldsOf(tx, holder.userId)) >= limit) {
    s.runtime.runSync(Metric.update(unpaidHoldRefusals, 1))
    throw new TooManyUnpaidHolds({ limit })
  }
}

export interface OpenPaymentInput {
  readonly booking: Booking
  readonly kind: PaymentKind
  readonly summary: PriceSummary
  readonly discountCode?: string | null | undefined
  readonly channel?: string | null | undefined
  readonly frontendRedirectUrl?: string | null | undefined
  readonly timeZone: string
  readonly assetName?: string | undefined
  readonly origin?: ExtensionOrigin & { readonly timePeriod?: string | null | undefined }
  readonly now: number
}

/** @deprecated bridge: core/payment/booking-payments.ts openPayment on the caller's transaction. */
export const openPayment = (tx: Queryable, s: LegacyPaymentDeps, input: OpenPaymentInput): Promise<PaymentRecord> =>
  s.runtime.runPromise(
    provideTx(
      tx as Tx,
      Effect.gen(function* () {
        const deps = { store: yield* PaymentStore, gateway: yield* PaymentGateway, newId: (yield* Ids).newId }
        return yield* openPaymentEffect(deps, {
          ...input,
          origin: input.origin && { ...input.origin, timePeriod: input.origin.timePeriod ?? null },
          windowSeconds: s.config.paymentWindowSeconds,
        })
      }),
    ),
  )

/** A discount of the project by code (normalised as everywhere); undefined when unknown or inactive. */
const findDiscount = async (q: Queryable, projectId: string, code: string): Promise<Discount | undefined> => {
  const [d] = await q
    .select()
    .from(discountsTable)
    .where(
      and(
        eq(discountsTable.projectId, projectId),
        sql`upper(${discountsTable.code}) = ${normalizeDiscountCode(code)}`,
        eq(discountsTable.active, true),
      ),
    )
  return d ? { code: d.code, name: d.name, percentOff: d.percentOff ?? undefined, amountOff: d.amountOff ?? undefined } : undefined
}

/** @deprecated bridge: the discounts an extension is priced with (rules.ts extensionDiscountCode). */
export const extensionDiscounts = async (
  q: Queryable,
  projectId: string,
  requested: string | undefined,
  stored: string | null,
): Promise<Discount[]> => {
  const choice = extensionDiscountCode(requested, stored)
  if (Option.isNone(choice)) return []
  const d = await findDiscount(q, projectId, choice.value.code)
  if (!d && choice.value.required) throw unknownDiscountCode()
  return d ? [d] : []
}

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

/** @deprecated bridge: rules.ts cancelPaymentIdCheck (400 SV001 / 409 SV006 before anything changes). */
export const checkCancelPaymentId = async (
  q: Queryable,
  bookingId: string,
  bookingStatus: string,
  paymentId: string | undefined,
): Promise<void> => {
  if (paymentId === undefined) return
  const p = await paymentRowById(q, paymentId)
  const r = cancelPaymentIdCheck(paymentId, Option.map(Option.fromNullishOr(p), toPaymentRecord), bookingId, bookingStatus)
  if (Result.isFailure(r)) throw r.failure
}

/** @deprecated bridge: voids the booking's pending payments in the cancel's transaction; returns the rows. */
export const voidPendingPayments = async (tx: Queryable, s: LegacyPaymentDeps, bookingId: string, at: number): Promise<PaymentRow[]> => {
  const rows = await voidPendingRows(tx, bookingId, at)
  if (rows.length > 0) s.runtime.runSync(Metric.update(paymentOutcome("voided"), rows.length))
  return rows
}

/** @deprecated bridge: after the cancel committed, tell the gateway (best effort; our record already refuses). */
export const notifyGatewayVoided = (s: LegacyPaymentDeps, voided: ReadonlyArray<PaymentRow>): Promise<void> =>
  voided.length === 0
    ? Promise.resolve()
    : s.runtime.runPromise(PaymentGateway.use((gateway) => voidAtGateway(gateway, voided.map(toPaymentRecord))))
