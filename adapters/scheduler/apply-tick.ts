import { Result } from "effect"
import { decodeAssetConfig, resolveMeetingConfig, type ResolvedMeetingConfig } from "../../core/booking/asset-config.ts"
import type { AssetKind } from "../../core/booking/state.ts"
import { occurrenceEventId } from "../../core/booking/recurrence.ts"
import { applicableTick, type TransitionCommand } from "../../core/booking/timeline.ts"
import { SYSTEM_ACTOR, transition, type BookingCommand } from "../../core/booking/transitions.ts"
import type {
  BookingTick,
  LifecycleSnapshot,
  TickOutcome,
} from "../../core/ports/lifecycle-scheduler.ts"
import {
  loadBooking,
  recordBookingEvents,
  saveTransition,
  toCoreBooking,
  type BookingRow,
  type SlotRow,
  type StoredBooking,
} from "../postgres/booking-repo.ts"
import type { Queryable, Tx } from "../postgres/database.ts"
import { assetConfigRaw, lockBookingForTick, pendingPaymentExpiry } from "../postgres/tick-queries.ts"
import type { SchedulerDeps } from "./scheduler-deps.ts"
import { DEFERRED, type ApplyTick } from "./embedded.ts"
import {
  markTickFired,
  replaceOccurrenceTicks,
  scheduleNewTicks,
  scheduleTicks,
  timelineBookingOf,
} from "../postgres/tick-store.ts"

/**
 * The bridge between stored bookings and the scheduler: what the booking use cases call in
 * their transactions, and how a due tick is applied (through the same repository functions
 * the HTTP actions use: loadBooking, core transition, saveTransition, the outbox).
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
export const meetingConfigOf = async (
  q: Queryable,
  stored: StoredBooking,
): Promise<ResolvedMeetingConfig> => {
  const decoded = decodeAssetConfig((await assetConfigRaw(q, stored)) ?? {})
  return resolveMeetingConfig(Result.isSuccess(decoded) ? decoded.success : undefined)
}

/**
 * Call inside the booking's transaction after any write (create, update, payment, check-in,
 * cancel, check-out, reject): replaces the pending ticks of the booking, or of the occurrences
 * given, with those of its new state. Terminal states simply leave none.
 */
export const scheduleStoredBooking = async (
  s: SchedulerDeps,
  tx: Queryable,
  stored: StoredBooking,
  options: {
    readonly meetingConfig?: ResolvedMeetingConfig
    /** Only these occurrences changed (a series action); default: the whole booking. */
    readonly occurrenceIndexes?: ReadonlyArray<number>
    /** The booking was created in this transaction: it has no ticks to replace yet. */
    readonly created?: boolean
  } = {},
): Promise<void> => {
  const config = options.meetingConfig ?? (await meetingConfigOf(tx, stored))
  const only = options.occurrenceIndexes
  const slots = only === undefined ? stored.slots : stored.slots.filter((x) => only.includes(x.occurrenceIndex))
  const expiry = await paymentExpiryOf(s, tx, stored)
  const snapshots = slots.map((slot) => snapshotOf(stored.row, slot, config, expiry))
  if (options.created) await scheduleNewTicks(tx, stored.row.id, snapshots, s.clock.now())
  else if (only === undefined) await scheduleTicks(tx, stored.row.id, snapshots, s.clock.now())
  else await replaceOccurrenceTicks(tx, stored.row.id, snapshots, s.clock.now())
}

const commandFor = (command: TransitionCommand, config: ResolvedMeetingConfig): BookingCommand =>
  command === "NoShowExpire"
    ? { _tag: "NoShowExpire", postStartExpireMinutes: config.postStartExpireMinutes }
    : { _tag: command }

/**
 * Applies one due tick at `at` inside `tx` (the ledger row is the caller's business). The
 * booking row is locked with SKIP LOCKED: a user transaction holding it (and waiting for this
 * very tick row to replace it) would otherwise deadlock with us; we step aside instead.
 */
/**
 * The payment lapse (owned by the payments adapter: expires the payment, then cancels a paid
 * create or restores a paid extension), handed in by the wiring so the scheduler does not
 * import payments.
 */
export type LapseUnpaid = (
  tx: Queryable,
  s: SchedulerDeps,
  bookingId: string,
  at: number,
  reschedule: (tx: Queryable, saved: StoredBooking) => Promise<void>,
) => Promise<{ readonly _tag: "Skipped" } | { readonly _tag: "Cancelled" | "Restored"; readonly to: string }>

export const makeApplyTick = (s: SchedulerDeps, lapseUnpaidBooking: LapseUnpaid): ApplyTick => {
  // Asset configs change only through the manifest: a few seconds' cache saves two queries a
  // tick; a tick fired with a config a few seconds stale still passes applicableTick's check.
  const configs = new Map<string, { config: ResolvedMeetingConfig; until: number }>()
  const configOf = async (q: Queryable, stored: StoredBooking): Promise<ResolvedMeetingConfig> => {
    const hit = configs.get(stored.row.assetId)
    const now = Date.now()
    if (hit !== undefined && hit.until > now) return hit.config
    const config = await meetingConfigOf(q, stored)
    if (configs.size > 10_000) configs.clear()
    configs.set(stored.row.assetId, { config, until: now + 5_000 })
    return config
  }
  return async (tx: Tx, tick: BookingTick, at: number) => {
    const stored = await lockBookingForTick(tx, tick.bookingId)
    if (stored === "busy") return DEFERRED
    if (stored === "gone") return { _tag: "Skipped" }
    const slots = stored.slots
    const slot = slots.find((x) => x.occurrenceIndex === tick.occurrenceIndex)
    if (slot === undefined) return { _tag: "Skipped" }
    const config = await configOf(tx, stored)
    const snapshot = snapshotOf(stored.row, slot, config, await paymentExpiryOf(s, tx, stored))
    const effect = applicableTick(snapshot.booking, config, tick, at)
    const occurrence =
      stored.row.rrule === null ? undefined : occurrenceEventId(stored.row.id, slot.startAt.getTime())
    switch (effect.kind) {
      case "none":
        return { _tag: "Skipped" }
      case "emit":
        await recordBookingEvents(
          tx,
          s.newId,
          {
            projectId: stored.row.projectId,
            bookingId: stored.row.id,
            assetKind: stored.row.assetKind as AssetKind,
            occurrenceEventId: occurrence,
          },
          [effect.event],
        )
        return { _tag: "Emitted", event: effect.event.kind }
      case "transition": {
        if (effect.command === "PaymentLapsed") {
          // The payments adapter owns the lapse: it expires the payment, then cancels a paid
          // create (CANCEL, payment-lapsed) or restores a paid extension to its former state.
          const lapsed = await lapseUnpaidBooking(tx, s, stored.row.id, at, (t, saved) =>
            scheduleStoredBooking(s, t, saved, { meetingConfig: config }),
          )
          return lapsed._tag === "Skipped" ? { _tag: "Skipped" } : { _tag: "Transitioned", to: lapsed.to }
        }
        const core = toCoreBooking(stored.row, slot)
        const result = transition(core, commandFor(effect.command, config), at, SYSTEM_ACTOR)
        // applicableTick already checked status and time; a refusal here means the core rules
        // disagree with the timeline, which a test should catch, not a retry loop.
        if (Result.isFailure(result)) return { _tag: "Skipped" }
        const saved = await saveTransition(tx, s.newId, stored, slot, result.success, {
          occurrenceEventId: occurrence,
        })
        await scheduleStoredBooking(s, tx, saved, {
          meetingConfig: config,
          occurrenceIndexes: [slot.occurrenceIndex],
        })
        return { _tag: "Transitioned", to: result.success.booking.status }
      }
    }
  }
}

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
