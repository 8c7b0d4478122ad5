import { Context, Effect, Layer, Metric, Option } from "effect"
import { roomRef, deskRef, timingsAsLocked, type Asset } from "../booking/asset.ts"
import { type StoredBooking, toCoreBooking } from "../booking/meeting.ts"
import { statusChanged } from "../booking/metrics.ts"
import type { AssetKind, Booking } from "../booking/state.ts"
import type { MeetingConfig, TimelineBooking } from "../booking/timeline.ts"
import type { LifecycleSnapshot } from "../ports/lifecycle-scheduler.ts"
import { AssetStore } from "../ports/asset-store.ts"
import { BookingStore } from "../ports/booking-store.ts"
import { Clock } from "../ports/clock.ts"
import { LifecycleSignals } from "../ports/lifecycle-signals.ts"
import { PaymentStore } from "../ports/payment-store.ts"
import type { PaymentStatus } from "../ports/payments.ts"
import { TickStore } from "../ports/tick-store.ts"
import { UnitOfWork } from "../ports/unit-of-work.ts"
import { formatHHmm, formatLocalDate, formatOffsetDateTime, localDateOf } from "../shared/local-time.ts"
import { paymentOutcome } from "./metrics.ts"
import type { PaymentRecord } from "./records.ts"
import { paidHistoryData, settleDecision, type PaymentOutcome, type RefusalReason } from "./rules.ts"

/**
 * The payer's side of a payment: settling it (the sandbox page's form post; a real gateway's
 * confirmation would call the same) and the pay page's read model. Opening and voiding run
 * inside the booking use cases (booking-payments.ts); the lapse is the scheduler's tick
 * (rules.ts `lapseDecision`).
 */

export type SettleResult =
  | { readonly _tag: "NotFound" }
  /** Nothing changed: the payment is not pending, or its window has ended. */
  | { readonly _tag: "Refused"; readonly reason: RefusalReason; readonly payment: PaymentRecord }
  | { readonly _tag: "Declined"; readonly payment: PaymentRecord }
  | { readonly _tag: "Paid"; readonly payment: PaymentRecord; readonly bookingStatus: PaymentBookingStatus }

type PaymentBookingStatus = Booking["status"]

/** Everything the pay page shows for a payment. */
export interface PayPageModel {
  readonly payment: PaymentRecord
  readonly bookingTitle: string
  readonly bookingStatus: string
  readonly assetKind: AssetKind
  readonly assetName: string
  readonly startDateTime: string
  readonly endDateTime: string
  /** e.g. "Mon 2030-01-07 10:00-11:00 (Asia/Bangkok)". */
  readonly when: string
  /** The window's end in the booking's zone: ISO 8601 with its offset, and as the payer reads it. */
  readonly payBefore: { readonly dateTime: string; readonly text: string }
  /** The window has ended on the service clock (even if the tick has not run yet). */
  readonly lapsed: boolean
}

export class Payments extends Context.Service<
  Payments,
  {
    /**
     * `paid` within the window: payment paid, booking unpaid -> active (or back to its status,
     * for an extension), BOOK (or MODIFY) into the outbox, ticks re-planned, in one unit of
     * work. `failed`: payment failed, nothing else. A payment that is not pending, or whose
     * window has ended on the service clock, is refused unchanged.
     */
    readonly settle: (paymentId: string, outcome: PaymentOutcome) => Effect.Effect<SettleResult>
    /** None when the payment (or its booking) is unknown. */
    readonly payPage: (paymentId: string) => Effect.Effect<Option.Option<PayPageModel>>
    /** Settle, then the page after it, in one runtime entry (the pay page's form post). */
    readonly settleForPage: (
      paymentId: string,
      outcome: PaymentOutcome,
    ) => Effect.Effect<{ readonly result: SettleResult; readonly page: Option.Option<PayPageModel> }>
  }
>()("keyspace/core/Payments") {
  static readonly layer = Layer.effect(
    Payments,
    Effect.gen(function* () {
      const uow = yield* UnitOfWork
      const payments = yield* PaymentStore
      const bookings = yield* BookingStore
      const assets = yield* AssetStore
      const ticks = yield* TickStore
      const signals = yield* LifecycleSignals
      const clock = yield* Clock

      const assetOf = (stored: StoredBooking) =>
        assets.find(stored.row.assetKind === "desk" ? deskRef(stored.row.assetId) : roomRef(stored.row.assetId))

      const settle = Effect.fn("Payments.settle")(function* (paymentId: string, outcome: PaymentOutcome) {
        // Lock order: the booking row first, then its payment (as the lapse tick does).
        const peek = yield* payments.byId(paymentId)
        if (Option.isNone(peek)) return { _tag: "NotFound" } as SettleResult
        const result = yield* uow.transaction(
          Effect.gen(function* (): Effect.fn.Return<SettleResult> {
            const booking = yield* bookings.loadForUpdate(peek.value.bookingId)
            const locked = yield* payments.lockById(paymentId)
            if (Option.isNone(booking) || Option.isNone(locked)) return { _tag: "NotFound" }
            const { stored, assetConfig } = booking.value
            const payment = locked.value
            const now = clock.now()
            const slot = stored.slots[0]!
            const d = settleDecision(payment, toCoreBooking(stored.row, slot), outcome, now)
            if (d._tag === "Refuse") return { _tag: "Refused", reason: d.reason, payment }
            if (d._tag === "Decline") return { _tag: "Declined", payment: yield* payments.setStatus(payment, "failed", now) }
            // Same times, only the status moves: no overlap can appear.
            const saved = yield* Effect.orDie(
              bookings.saveTransition(stored, slot, d.next, { historyData: paidHistoryData(payment) }),
            )
            const asset = yield* Effect.orDie(assetOf(saved))
            yield* ticks.replace(saved.row.id, snapshotsOf(saved, timingsAsLocked(asset, assetConfig)), now)
            return {
              _tag: "Paid",
              payment: yield* payments.setStatus(payment, "paid", now),
              bookingStatus: d.next.booking.status,
            }
          }),
        )
        if (result._tag === "Paid" || result._tag === "Declined") yield* Metric.update(paymentOutcome(result.payment.status), 1)
        if (result._tag === "Paid") {
          yield* Metric.update(statusChanged("unpaid", result.bookingStatus), 1)
          yield* signals.bookingCommitted(peek.value.bookingId, "payment")
        }
        return result
      })

      const pageOf = (paymentId: string) =>
        Effect.gen(function* () {
          const payment = yield* payments.byId(paymentId)
          if (Option.isNone(payment)) return Option.none<PayPageModel>()
          const stored = yield* bookings.load(payment.value.bookingId)
          if (Option.isNone(stored)) return Option.none<PayPageModel>()
          const asset = yield* Effect.option(assetOf(stored.value))
          if (Option.isNone(asset)) return Option.none<PayPageModel>()
          return Option.some(payPageModel(payment.value, stored.value, asset.value, clock.now()))
        })

      const payPage = Effect.fn("Payments.payPage")(pageOf)

      const settleForPage = Effect.fn("Payments.settleForPage")(function* (paymentId: string, outcome: PaymentOutcome) {
        const result = yield* settle(paymentId, outcome)
        return { result, page: result._tag === "NotFound" ? Option.none<PayPageModel>() : yield* pageOf(paymentId) }
      })

      return Payments.of({ settle, payPage, settleForPage })
    }),
  )
}

/** The lifecycle view of each occurrence after a payment (no pending payment left: no expiry). */
const snapshotsOf = (stored: StoredBooking, config: MeetingConfig): ReadonlyArray<LifecycleSnapshot> =>
  stored.slots.map((slot) => ({
    booking: timelineOf(toCoreBooking(stored.row, slot)),
    config,
    occurrenceIndex: slot.occurrenceIndex,
  }))

const timelineOf = (b: Booking): TimelineBooking => ({
  id: b.id,
  status: b.status,
  start: b.start,
  end: b.end,
  createdAt: b.createdAt,
  paymentExpiresAt: undefined,
  checkedIn: b.checkIns.length > 0,
})

/** The pay page's read model (pure: everything is in hand). */
export const payPageModel = (
  payment: PaymentRecord,
  stored: StoredBooking,
  asset: Asset,
  now: number,
): PayPageModel => {
  const slot = stored.slots[0]!
  const tz = asset.timeZone
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
    assetKind: stored.row.assetKind as AssetKind,
    assetName: asset.name,
    startDateTime: formatOffsetDateTime(start, tz),
    endDateTime: formatOffsetDateTime(end, tz),
    when: `${weekday} ${formatLocalDate(localDateOf(start, tz))} ${range} (${tz})`,
    payBefore: {
      dateTime: formatOffsetDateTime(payment.expiresAt, tz),
      text: `${new Intl.DateTimeFormat("en-GB", { hour: "2-digit", minute: "2-digit", second: "2-digit", hourCycle: "h23", timeZone: tz }).format(payment.expiresAt)} (${tz})`,
    },
    lapsed: now >= payment.expiresAt,
  }
}

export type { PaymentOutcome, PaymentStatus }
