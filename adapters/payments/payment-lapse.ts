import { Metric } from "effect"
import type { BookingStatus } from "../../core/booking/state.ts"
import { paymentOutcome } from "../../core/payment/metrics.ts"
import { lapseDecision } from "../../core/payment/rules.ts"
import {
  loadBooking,
  saveTransition,
  toCoreBooking,
  type StoredBooking,
} from "../postgres/booking-repo.ts"
import type { Queryable } from "../postgres/database.ts"
import { latestPaymentRowForUpdate, toPaymentRecord, updatePaymentStatus } from "../postgres/payment-store.ts"
import type { LegacyPaymentDeps } from "./payment-service.ts"

/**
 * What the scheduler's unpaid-timeout tick does when a payment window ends unpaid: the rule is
 * core/payment/rules.ts `lapseDecision`; this applies it in the scheduler's transaction.
 * @deprecated bridge until the scheduler's applyTick runs on the ports (stream S2).
 */

export type LapseResult =
  | { readonly _tag: "Skipped"; readonly reason: string }
  /** A paid create that was never paid: cancelled with the payment-lapse reason. */
  | { readonly _tag: "Cancelled"; readonly to: "cancelled" }
  /** A paid extension that was never paid: the booking is back as it was before the PATCH. */
  | { readonly _tag: "Restored"; readonly to: BookingStatus }

/**
 * Inside the scheduler's transaction, at `at` (the tick's due time). Lock order: the booking
 * row, then its latest payment.
 * @deprecated bridge (see above).
 */
export const lapseUnpaidBooking = async (
  tx: Queryable,
  s: Pick<LegacyPaymentDeps, "runtime"> & {
    readonly newId: () => string
    readonly metrics: { readonly bookingStatusChanged: (from: string, to: string) => void }
  },
  bookingId: string,
  at: number,
  reschedule: (tx: Queryable, saved: StoredBooking) => Promise<void>,
): Promise<LapseResult> => {
  const stored = await loadBooking(tx, bookingId, { lock: true })
  if (!stored) return { _tag: "Skipped", reason: "no such booking" }
  const slot = stored.slots[0]!
  const booking = toCoreBooking(stored.row, slot)
  if (booking.status !== "unpaid") return { _tag: "Skipped", reason: `booking is ${booking.status}` }
  const latest = await latestPaymentRowForUpdate(tx, bookingId)
  const d = lapseDecision(booking, latest ? toPaymentRecord(latest) : undefined, at)
  if (d._tag === "Skip") return { _tag: "Skipped", reason: d.reason }
  if (d.expire) {
    await updatePaymentStatus(tx, d.expire.id, "expired", at)
    s.runtime.runSync(Metric.update(paymentOutcome("expired"), 1))
  }
  const saved = await saveTransition(tx, s.newId, stored, slot, d.next, {
    ...(d._tag === "Restore" ? { timePeriod: d.timePeriod } : {}),
    ...(d.historyData ? { historyData: { ...d.historyData } } : {}),
  })
  await reschedule(tx, saved)
  s.metrics.bookingStatusChanged("unpaid", d.next.booking.status)
  return d._tag === "Restore" ? { _tag: "Restored", to: d.next.booking.status } : { _tag: "Cancelled", to: "cancelled" }
}
