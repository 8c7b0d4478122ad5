import type { BookingDomainEvent } from "../events/domain-events.ts"
import { fromMinor, toMinor, type PriceSummary } from "./pricing.ts"
import type { Booking, BookingStatus } from "./state.ts"
import { detailsChanged, type Transitioned } from "./transitions.ts"

/**
 * A paid extension (spec status table: "active or checked-in -> PATCH extending a paid booking
 * -> unpaid (with payment object), handled like a paid create").
 *
 * The rule chosen here: the booking was already paid for its original times, so only the
 * extra time is at stake.
 * - begin: the update is applied (the new times hold the slot, so nobody takes the extra time
 *   while the payer pays) and the booking becomes `unpaid`. Only the times await payment: a
 *   title, body, attendees or attendance the PATCH also changed stand at once, whatever the
 *   payment does, and are announced now by a MODIFY whose times are the booking's unchanged
 *   ones. Integrators hear of the new times only once they are paid for.
 * - complete (paid in the window): back to the status it had, with the new times; MODIFY
 *   (old times -> new times) is emitted now.
 * - lapse (window ended, not paid): back to the status and times it had before the PATCH, as if
 *   its new times had never been asked for. No event (none was sent for them), and never a
 *   cancel: the original booking was paid and stays.
 */

/** What the booking was before the PATCH; stored with the extension's payment. */
export interface ExtensionOrigin {
  readonly start: number
  readonly end: number
  /** `active` or `checked-in`. */
  readonly status: BookingStatus
}

/** The update result of a PATCH turned into an unpaid extension awaiting payment. */
export const beginPaidExtension = (before: Booking, updated: Transitioned): Transitioned => ({
  booking: { ...updated.booking, status: "unpaid" },
  events: detailsChanged(before, updated.booking)
    ? [
        {
          kind: "MODIFY",
          bookingId: before.id,
          at: updated.booking.updatedAt,
          oldStart: before.start,
          oldEnd: before.end,
          newStart: before.start,
          newEnd: before.end,
        },
      ]
    : [],
  history: updated.history,
})

/** Paid within the window: restore the status, keep the new times, announce the change. */
export const completePaidExtension = (
  booking: Booking,
  origin: ExtensionOrigin,
  now: number,
): Transitioned => {
  const timesChanged = booking.start !== origin.start || booking.end !== origin.end
  const events: ReadonlyArray<BookingDomainEvent> = timesChanged
    ? [
        {
          kind: "MODIFY",
          bookingId: booking.id,
          at: now,
          oldStart: origin.start,
          oldEnd: origin.end,
          newStart: booking.start,
          newEnd: booking.end,
        },
      ]
    : []
  return {
    booking: { ...booking, status: origin.status, updatedAt: now },
    events,
    history: { action: "payment", at: now },
  }
}

/** The booking with the times it had before the extension's PATCH (the lapse, a cancel, a reject). */
const originTimes = (booking: Booking, origin: ExtensionOrigin): Booking => ({ ...booking, start: origin.start, end: origin.end })

/** The window lapsed unpaid: the booking is exactly as it was before the PATCH. */
export const lapsePaidExtension = (
  booking: Booking,
  origin: ExtensionOrigin,
  now: number,
): Transitioned => ({
  booking: { ...originTimes(booking, origin), status: origin.status, updatedAt: now },
  events: [],
  history: { action: "payment-lapsed", at: now },
})

/**
 * Cancelled or rejected while the extension awaits payment: the booking ends with the times it
 * had paid for (its new times were never bought; a lapse would have restored them too).
 */
export const atOriginTimes = (ended: Transitioned, origin: ExtensionOrigin): Transitioned => ({
  ...ended,
  booking: originTimes(ended.booking, origin),
})

/**
 * What an extension costs: the price of the new times minus the price already charged for the
 * old ones, line by line in satang (subtotal, each discount, total), so the difference's lines
 * still add up (subtotal - discounts = total). Discounts whose value did not grow drop out.
 * A total <= 0 means nothing to pay (a shorter booking is not refunded here).
 */
export const priceDifference = (before: PriceSummary, after: PriceSummary): PriceSummary => {
  const beforeByCode = new Map(before.discounts.map((d) => [d.code, toMinor(d.value)]))
  const discounts = after.discounts
    .map((d) => ({ ...d, value: toMinor(d.value) - (beforeByCode.get(d.code) ?? 0) }))
    .filter((d) => d.value > 0)
  const subtotal = toMinor(after.subtotal) - toMinor(before.subtotal)
  const total = subtotal - discounts.reduce((sum, d) => sum + d.value, 0)
  return {
    subtotal: fromMinor(subtotal),
    total: fromMinor(total),
    discounts: discounts.map((d) => ({ ...d, value: fromMinor(d.value) })),
  }
}

/** Two prices of disjoint times added, line by line in satang (discounts by code). */
export const priceSum = (a: PriceSummary, b: PriceSummary): PriceSummary => {
  const byCode = new Map<string, { readonly d: PriceSummary["discounts"][number]; readonly minor: number }>()
  for (const d of [...a.discounts, ...b.discounts]) {
    const held = byCode.get(d.code)
    byCode.set(d.code, { d: held?.d ?? d, minor: (held?.minor ?? 0) + toMinor(d.value) })
  }
  return {
    subtotal: fromMinor(toMinor(a.subtotal) + toMinor(b.subtotal)),
    total: fromMinor(toMinor(a.total) + toMinor(b.total)),
    discounts: [...byCode.values()].map(({ d, minor }) => ({ ...d, value: fromMinor(minor) })),
  }
}

/**
 * Whether a paid extension keeps the times already paid for: while its payment is due the
 * booking holds only its new times, and a lapse restores the old ones, which must then still
 * be the booking's (a move that also cost more freed them for others: the lapse could not
 * put the booking back, and it stayed unpaid for ever).
 */
export const keepsPaidTimes = (before: Booking, after: Booking): boolean =>
  after.start <= before.start && after.end >= before.end

/** Why a paid extension that does not keep its paid times is refused (409 SV006). */
export const MOVE_FIRST =
  "a change that costs more must keep the booking's current times: move it first (at no more than its price), then lengthen it"

