import { Effect } from "effect"
import type { BookingStore } from "../ports/booking-store.ts"
import { needsPayment, paymentAmountViolations } from "../payment/rules.ts"
import * as Interval from "../shared/interval.ts"
import { formatOffsetDateTime } from "../shared/local-time.ts"
import type { Asset } from "./asset.ts"
import { assetRuleViolations, isTooLong, TOO_LONG_MESSAGE, unavailableReason } from "./asset-rules.ts"
import { BookingRuleViolated } from "./errors.ts"
import { isPaid, priceOf, type Discount, type PriceSummary } from "./pricing.ts"
import type { Occurrence } from "./recurrence.ts"
import { laterOccurrenceViolations } from "./series-rules.ts"

/**
 * The draft answer (spec rule 3 leaves it open): what a create or update would do, with the
 * price, whether the slot is free now, and the same for each candidate end. Reads only.
 */

export interface Candidate {
  readonly endDateTime: string
  readonly available: boolean
  /** When not available: SLOT_TAKEN, or OPERATING_HOURS / BREAK_TIME / BOOKING_RULES. */
  readonly unavailableReason?: string
  /** The Payment.summary this end would cost; `price` is the same object (kept for clients). */
  readonly summary: PriceSummary
  readonly price: PriceSummary
  /** What would be paid (summary.total). */
  readonly amount: number
  readonly violations: string[]
}

export interface PreviewInput {
  readonly asset: Asset
  readonly start: number
  readonly end: number
  readonly occurrences: ReadonlyArray<Occurrence>
  readonly discounts: ReadonlyArray<Discount>
  readonly draftEnds: ReadonlyArray<number>
  readonly now: number
  readonly exceptBookingId?: string | undefined
  readonly startUnchanged?: boolean
}

export const draftPreview = (store: BookingStore["Service"], p: PreviewInput) =>
  Effect.gen(function* () {
    const { asset, now } = p
    const tz = asset.timeZone
    // A candidate no booking could be is refused, not priced day by day (MAX_BOOKING_DAYS).
    const tooLong = p.draftEnds.flatMap((end, i) => (isTooLong(p.start, end) ? [`draftEndDateTimes.${i}: ${TOO_LONG_MESSAGE}`] : []))
    if (tooLong.length > 0) return yield* new BookingRuleViolated({ messages: tooLong })
    const kind = asset.kind
    const candidates: Candidate[] = []
    for (const end of p.draftEnds) {
      // A series' candidate end lengthens or shortens every occurrence alike: each is judged.
      const occurrences =
        p.occurrences.length > 1 ? p.occurrences.map((o) => Interval.make(o.start, o.start + (end - p.start))) : [Interval.make(p.start, end)]
      const price =
        end > p.start ? priceOf(asset.chargeRate, p.start, end, tz, p.discounts) : priceOf(asset.chargeRate, 0, 0, tz)
      const violations = [
        ...assetRuleViolations(asset.config, tz, p.start, end, now, kind, { startUnchanged: p.startUnchanged ?? false }),
        ...(end > p.start ? laterOccurrenceViolations(asset.config, tz, occurrences, now, kind) : []),
        // A create pays the whole price in one payment. An update's draft prices the new times in
        // full while its PATCH pays only the difference, so its candidates are not judged by the
        // cap (the PATCH itself is).
        ...(p.exceptBookingId === undefined && isPaid(asset.chargeRate) ? paymentAmountViolations(price) : []),
      ]
      // The asset's own rules first (as create reports them), then other bookings.
      const unavailable =
        violations.length > 0
          ? (unavailableReason(asset.config, tz, p.start, end) ?? "BOOKING_RULES")
          : (yield* store.anyLiveOverlap(asset.id, occurrences, p.exceptBookingId))
            ? "SLOT_TAKEN"
            : undefined
      candidates.push({
        endDateTime: formatOffsetDateTime(end, tz),
        available: unavailable === undefined,
        ...(unavailable === undefined ? {} : { unavailableReason: unavailable }),
        summary: price,
        price,
        amount: price.total,
        violations,
      })
    }
    const price = priceOf(asset.chargeRate, p.start, p.end, tz, p.discounts)
    const available = !(yield* store.anyLiveOverlap(asset.id, p.occurrences, p.exceptBookingId))
    return {
      draft: true as const,
      ...(kind === "room" ? { meetingRoomId: asset.id, meetingRoomName: asset.name } : { deskId: asset.id }),
      startDateTime: formatOffsetDateTime(p.start, tz),
      endDateTime: formatOffsetDateTime(p.end, tz),
      // A 100% discount leaves nothing to pay: such a create is active at once.
      status: isPaid(asset.chargeRate) && needsPayment(price) ? "unpaid" : "active",
      available,
      ...(available ? {} : { unavailableReason: "SLOT_TAKEN" }),
      summary: price,
      price,
      amount: price.total,
      ...(p.occurrences.length > 1 ? { occurrences: p.occurrences.length } : {}),
      ...(p.draftEnds.length > 0 ? { draftEndDateTimes: candidates } : {}),
    }
  })

export type DraftPreview = Effect.Success<ReturnType<typeof draftPreview>>
