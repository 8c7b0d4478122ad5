import { Effect, Metric, Option } from "effect"
import { type StoredBooking, toCoreBooking } from "../booking/meeting.ts"
import { statusChanged } from "../booking/metrics.ts"
import type { BookingStatus } from "../booking/state.ts"
import type { BookingStore } from "../ports/booking-store.ts"
import type { PaymentStore } from "../ports/payment-store.ts"
import { paymentOutcome } from "./metrics.ts"
import { lapseDecision } from "./rules.ts"

/**
 * The scheduler's unpaid-timeout tick (BookingLifecycle.applyTick, command PaymentLapsed), in
 * its unit of work: the rule is rules.ts `lapseDecision`; this applies it through the ports.
 */

export type LapseResult =
  | { readonly _tag: "Skipped"; readonly reason: string }
  /** A paid create that was never paid: cancelled with the payment-lapse reason. */
  | { readonly _tag: "Cancelled"; readonly to: "cancelled" }
  /** A paid extension that was never paid: the booking is back as it was before the PATCH. */
  | { readonly _tag: "Restored"; readonly to: BookingStatus }

/**
 * `stored` is the booking as the caller loaded it under its row lock; its latest payment is
 * locked next (booking first, then payment: the order settle uses too). `reschedule` re-plans
 * the saved booking's ticks (the caller has the asset's meetingConfig in hand).
 */
export const lapseUnpaid = (
  deps: { readonly bookings: BookingStore["Service"]; readonly payments: PaymentStore["Service"] },
  stored: StoredBooking,
  at: number,
  reschedule: (saved: StoredBooking) => Effect.Effect<void>,
): Effect.Effect<LapseResult> =>
  Effect.gen(function* () {
    const slot = stored.slots[0]!
    const booking = toCoreBooking(stored.row, slot)
    if (booking.status !== "unpaid") return { _tag: "Skipped", reason: `booking is ${booking.status}` } as const
    const latest = Option.getOrUndefined(yield* deps.payments.lockOf(stored.row.id))
    let d = lapseDecision(booking, latest, at)
    if (d._tag === "Skip") return { _tag: "Skipped", reason: d.reason } as const
    // The times to restore are taken (a move that cost more, opened before such moves were
    // refused, freed them): the lapse of a paid create, a cancel, rather than a tick that fails
    // for ever and leaves the booking unpaid.
    if (d._tag === "Restore" && latest !== undefined) {
      const { start, end } = d.next.booking
      if (yield* deps.bookings.anyLiveOverlap(stored.row.assetId, [{ start, end }], stored.row.id))
        d = lapseDecision(booking, { ...latest, origin: undefined }, at)
      if (d._tag === "Skip") return { _tag: "Skipped", reason: d.reason } as const
    }
    if (d.expire) {
      yield* deps.payments.setStatus(d.expire, "expired", at)
      yield* Metric.update(paymentOutcome("expired"), 1)
    }
    // Taken between that read and this write: the tick fails (a defect, recorded) and is
    // retried, and the read then sees them taken.
    const saved = yield* Effect.orDie(
      deps.bookings.saveTransition(stored, slot, d.next, {
        ...(d._tag === "Restore" ? { timePeriod: d.timePeriod } : {}),
        ...(d.historyData ? { historyData: { ...d.historyData } } : {}),
      }),
    )
    yield* reschedule(saved)
    yield* Metric.update(statusChanged("unpaid", d.next.booking.status), 1)
    return d._tag === "Restore"
      ? ({ _tag: "Restored", to: d.next.booking.status } as const)
      : ({ _tag: "Cancelled", to: "cancelled" } as const)
  })
