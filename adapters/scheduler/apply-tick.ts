import { meetingTimingsOf, type ResolvedMeetingConfig } from "../../core/booking/asset-config.ts"
import type { BookingTick, LifecycleSnapshot, TickOutcome } from "../../core/ports/lifecycle-scheduler.ts"
import { assetConfigRaw, loadBooking, toCoreBooking, type BookingRow, type SlotRow, type StoredBooking } from "../postgres/booking-repo.ts"
import type { Queryable } from "../postgres/database.ts"
import { pendingPaymentExpiry } from "../postgres/tick-queries.ts"
import { markTickFired, timelineBookingOf } from "../postgres/tick-store.ts"
import { DEFERRED, type ApplyTick } from "./embedded.ts"
import type { SchedulerDeps } from "./scheduler-deps.ts"

/**
 * The scheduler's side of a tick outside the embedded loop: one tick in its own transaction
 * with the fired ledger (Temporal activities, tests), and a booking's lifecycle snapshots for
 * the Temporal workflow. Applying the tick itself is the core's `BookingLifecycle.applyTick`.
 */

/**
 * The lifecycle view of one occurrence (a single booking has one slot). `paymentExpiresAt` is
 * the pending payment's expiredAt (billingSummaries[].expiredAt), the unpaid-timeout's time.
 */
export const snapshotOf = (
  row: BookingRow,
  slot: SlotRow,
  config: ResolvedMeetingConfig,
  paymentExpiresAt: number | undefined,
): LifecycleSnapshot => ({
  booking: timelineBookingOf(toCoreBooking(row, slot), { paymentExpiresAt }),
  config,
  occurrenceIndex: slot.occurrenceIndex,
})

/**
 * When an unpaid booking's payment window ends: its pending payment's expiredAt. Without a
 * payment row (not opened yet in this transaction), the window opened when the booking became
 * unpaid, which is its last update: nothing else writes an unpaid slot before payment, cancel
 * or lapse.
 */
const paymentExpiryOf = async (
  s: SchedulerDeps,
  q: Queryable,
  stored: StoredBooking,
): Promise<number | undefined> => {
  const unpaid = stored.slots.find((x) => x.status === "unpaid")
  if (unpaid === undefined) return undefined
  const pending = await pendingPaymentExpiry(q, stored.row.id)
  return pending ?? unpaid.updatedAt.getTime() + s.config.paymentWindowSeconds * 1000
}

/** The asset's resolved meetingConfig (defaults 15/10/15/15, -1 disables). */
export const meetingConfigOf = async (q: Queryable, stored: StoredBooking): Promise<ResolvedMeetingConfig> =>
  meetingTimingsOf(await assetConfigRaw(q, stored.row))

/**
 * One tick in its own transaction with the fired ledger (Temporal activities, tests): a tick
 * that already fired does nothing; a booking locked by a user transaction is retried.
 */
export const applyTickNow = async (
  s: SchedulerDeps,
  apply: ApplyTick,
  tick: BookingTick,
  at: number,
): Promise<TickOutcome> => {
  for (let attempt = 0; ; attempt++) {
    const outcome = await s.database.db.transaction(async (tx) => {
      if (!(await markTickFired(tx, tick, at))) return { _tag: "AlreadyFired" } as const
      const result = await apply(tx, tick, at)
      if (result._tag === "Deferred") tx.rollback()
      return result
    }).catch((e: unknown) => {
      if (isRollback(e)) return DEFERRED
      throw e
    })
    if (outcome._tag !== "Deferred") return outcome
    if (attempt > 100) throw new Error(`booking ${tick.bookingId} stayed locked`)
    await new Promise((r) => setTimeout(r, 20))
  }
}

const isRollback = (e: unknown): boolean =>
  e instanceof Error && e.constructor.name === "TransactionRollbackError"

/** Lifecycle snapshots of a booking (all occurrences), for the Temporal workflow. */
export const loadSnapshots = async (
  s: SchedulerDeps,
  bookingId: string,
): Promise<ReadonlyArray<LifecycleSnapshot>> => {
  const stored = await loadBooking(s.database.db, bookingId)
  if (stored === undefined) return []
  const config = await meetingConfigOf(s.database.db, stored)
  const expiry = await paymentExpiryOf(s, s.database.db, stored)
  return stored.slots.map((slot) => snapshotOf(stored.row, slot, config, expiry))
}
