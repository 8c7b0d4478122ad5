import { desc, eq } from "drizzle-orm"
import { Result } from "effect"
import { lapsePaidExtension } from "../../core/booking/paid-extension.ts"
import type { BookingStatus } from "../../core/booking/state.ts"
import { SYSTEM_ACTOR, transition } from "../../core/booking/transitions.ts"
import {
  loadBooking,
  saveTransition,
  toCoreBooking,
  type StoredBooking,
} from "../postgres/booking-repo.ts"
import type { Queryable } from "../postgres/database.ts"
import { paymentsTable } from "../postgres/tables/payments.ts"
import type { Services } from "../wiring/services.ts"
import { extensionOriginOf, paymentMetrics, setPaymentStatus } from "./payment-records.ts"

/**
 * What the scheduler's unpaid-timeout tick does when a payment window ends unpaid. Kept apart
 * from payment-service.ts so the scheduler can call it without an import cycle: the caller
 * passes how to re-plan the booking's ticks.
 */

export type LapseResult =
  | { readonly _tag: "Skipped"; readonly reason: string }
  /** A paid create that was never paid: cancelled with the payment-lapse reason. */
  | { readonly _tag: "Cancelled"; readonly to: "cancelled" }
  /** A paid extension that was never paid: the booking is back as it was before the PATCH. */
  | { readonly _tag: "Restored"; readonly to: BookingStatus }

/**
 * Inside the scheduler's transaction, at `at` (the tick's due time): the pending payment
 * becomes `expired`, and the booking is either cancelled (core PaymentLapsed: CANCEL with the
 * reason payment-lapsed, no ticks left) or, for a paid extension, restored to its times and
 * status before the PATCH, with no event (none was sent for the PATCH) and its ticks re-planned.
 * A booking that is no longer unpaid, or whose pending payment's window is still open, is left
 * alone (a stale tick).
 */
export const lapseUnpaidBooking = async (
  tx: Queryable,
  s: Services,
  bookingId: string,
  at: number,
  reschedule: (tx: Queryable, saved: StoredBooking) => Promise<void>,
): Promise<LapseResult> => {
  const stored = await loadBooking(tx, bookingId, { lock: true })
  if (!stored) return { _tag: "Skipped", reason: "no such booking" }
  const slot = stored.slots[0]!
  const booking = toCoreBooking(stored.row, slot)
  if (booking.status !== "unpaid") {
    return { _tag: "Skipped", reason: `booking is ${booking.status}` }
  }
  const [latest] = await tx
    .select()
    .from(paymentsTable)
    .where(eq(paymentsTable.bookingId, bookingId))
    .orderBy(desc(paymentsTable.createdAt), desc(paymentsTable.id))
    .limit(1)
    .for("update")
  if (latest?.status === "pending") {
    if (at < latest.expiredAt.getTime()) return { _tag: "Skipped", reason: "window still open" }
    await setPaymentStatus(tx, latest.id, "expired", at)
    paymentMetrics(s).payment("expired")
  }
  const origin = latest ? extensionOriginOf(latest) : undefined
  if (latest && origin) {
    const restored = lapsePaidExtension(booking, origin, at)
    const saved = await saveTransition(tx, s.newId, stored, slot, restored, {
      timePeriod: latest.previousTimePeriod,
      historyData: { paymentId: latest.id, invoiceNo: latest.invoiceNo, restored: true },
    })
    await reschedule(tx, saved)
    s.metrics.bookingStatusChanged("unpaid", restored.booking.status)
    return { _tag: "Restored", to: restored.booking.status }
  }
  const r = transition(booking, { _tag: "PaymentLapsed" }, at, SYSTEM_ACTOR)
  if (Result.isFailure(r)) return { _tag: "Skipped", reason: r.failure._tag }
  const saved = await saveTransition(tx, s.newId, stored, slot, r.success, {
    ...(latest ? { historyData: { paymentId: latest.id, invoiceNo: latest.invoiceNo } } : {}),
  })
  await reschedule(tx, saved)
  s.metrics.bookingStatusChanged("unpaid", "cancelled")
  return { _tag: "Cancelled", to: "cancelled" }
}
