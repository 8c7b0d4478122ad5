import { Context, Effect, Layer, Result } from "effect"
import { unpaidWindowEnd } from "../payment/booking-payments.ts"
import { lapseUnpaid } from "../payment/lapse.ts"
import { BookingSettings } from "../ports/booking-settings.ts"
import { BookingStore } from "../ports/booking-store.ts"
import type { BookingTick, LifecycleSnapshot, TickOutcome } from "../ports/lifecycle-scheduler.ts"
import { Outbox } from "../ports/outbox.ts"
import { PaymentStore } from "../ports/payment-store.ts"
import { TickStore } from "../ports/tick-store.ts"
import { meetingTimingsOf, type ResolvedMeetingConfig } from "./asset-config.ts"
import { timelineOf, toCoreBooking, type SlotRecord, type StoredBooking } from "./meeting.ts"
import { occurrenceEventId } from "./recurrence.ts"
import type { AssetKind } from "./state.ts"
import { applicableTick, type TransitionCommand } from "./timeline.ts"
import { SYSTEM_ACTOR, transition, type BookingCommand } from "./transitions.ts"

/** What applying a tick did, or that the booking was busy (the scheduler retries it later). */
export type AppliedTick = TickOutcome | { readonly _tag: "Deferred" }

const commandFor = (command: TransitionCommand, config: ResolvedMeetingConfig): BookingCommand =>
  command === "NoShowExpire"
    ? { _tag: "NoShowExpire", postStartExpireMinutes: config.postStartExpireMinutes }
    : { _tag: command }

/**
 * A booking's timed lifecycle (spec "Scheduler ticks"): applying one due tick in the caller's
 * unit of work. The embedded scheduler runs it in its batch transaction, the Temporal
 * activities in one of their own; both fire the same core rules (timeline, applicableTick,
 * transitions, the payment lapse).
 */
export class BookingLifecycle extends Context.Service<
  BookingLifecycle,
  {
    /** In tx: applies `tick` at `at` (the fired ledger is the caller's). */
    readonly applyTick: (tick: BookingTick, at: number) => Effect.Effect<AppliedTick>
    /**
     * In tx: plans the pending ticks of every live booking of these assets again, by their
     * stored configs (a manifest changed their meetingConfig); the bookings re-planned.
     */
    readonly replanAssets: (assetIds: ReadonlyArray<string>, at: number) => Effect.Effect<ReadonlyArray<string>>
  }
>()("keyspace/core/BookingLifecycle") {
  static readonly layer = Layer.effect(
    BookingLifecycle,
    Effect.gen(function* () {
      const bookings = yield* BookingStore
      const payments = yield* PaymentStore
      const ticks = yield* TickStore
      const outbox = yield* Outbox
      const settings = yield* BookingSettings

      // The tick's transaction reads the asset's config afresh; what is kept is only its decoding,
      // keyed by the config's text, so a manifest change (on any process) is the next tick's
      // config. A few seconds' memory per asset fired a no-show its new config had disabled.
      const configs = new Map<string, ResolvedMeetingConfig>()
      const configOf = (raw: unknown): ResolvedMeetingConfig => {
        const key = JSON.stringify(raw ?? {})
        const hit = configs.get(key)
        if (hit !== undefined) return hit
        const config = meetingTimingsOf(raw)
        if (configs.size > 10_000) configs.clear()
        configs.set(key, config)
        return config
      }

      /** The unpaid window's end (core/payment/booking-payments.ts unpaidWindowEnd). */
      const paymentExpiryOf = (stored: StoredBooking) =>
        Effect.gen(function* () {
          const unpaid = stored.slots.find((x) => x.status === "unpaid")
          if (unpaid === undefined) return undefined
          return yield* unpaidWindowEnd(payments, stored.row.id, unpaid.updatedAt.getTime(), settings.paymentWindowSeconds * 1000)
        })

      const snapshotOf = (stored: StoredBooking, slot: SlotRecord, config: ResolvedMeetingConfig, expiry: number | undefined): LifecycleSnapshot => ({
        booking: timelineOf(toCoreBooking(stored.row, slot), expiry),
        config,
        occurrenceIndex: slot.occurrenceIndex,
      })

      /**
       * Re-plans the ticks of the saved booking (of the occurrences given, or all), as planned at
       * `at`, the applied tick's time: a tick already due then happens no earlier (the scheduler
       * stamps a replayed tick at its due time, never before it was planned).
       */
      const reschedule = (saved: StoredBooking, config: ResolvedMeetingConfig, at: number, only?: ReadonlyArray<number>) =>
        Effect.gen(function* () {
          const expiry = yield* paymentExpiryOf(saved)
          const slots = only === undefined ? saved.slots : saved.slots.filter((x) => only.includes(x.occurrenceIndex))
          yield* ticks.replace(saved.row.id, slots.map((slot) => snapshotOf(saved, slot, config, expiry)), at, only)
        })

      const applyTick = Effect.fn("BookingLifecycle.applyTick")(function* (tick: BookingTick, at: number) {
        const locked = yield* bookings.lockForTick(tick.bookingId)
        if (locked === "busy") return { _tag: "Deferred" } as const
        if (locked === "gone") return { _tag: "Skipped" } as const
        const { stored } = locked
        const slot = stored.slots.find((x) => x.occurrenceIndex === tick.occurrenceIndex)
        if (slot === undefined) return { _tag: "Skipped" } as const
        const config = configOf(locked.assetConfig)
        const snapshot = snapshotOf(stored, slot, config, yield* paymentExpiryOf(stored))
        const effect = applicableTick(snapshot.booking, config, tick, at)
        const occurrence = stored.row.rrule === null ? undefined : occurrenceEventId(stored.row.id, slot.startAt.getTime())
        switch (effect.kind) {
          case "none":
            return { _tag: "Skipped" } as const
          case "emit":
            yield* outbox.record(
              {
                projectId: stored.row.projectId,
                bookingId: stored.row.id,
                assetKind: stored.row.assetKind as AssetKind,
                occurrenceEventId: occurrence,
              },
              [effect.event],
            )
            return { _tag: "Emitted", event: effect.event.kind } as const
          case "transition": {
            if (effect.command === "PaymentLapsed") {
              // Expires the payment, then cancels a paid create or restores a paid extension.
              const lapsed = yield* lapseUnpaid({ bookings, payments }, stored, at, (saved) => reschedule(saved, config, at))
              return lapsed._tag === "Skipped" ? ({ _tag: "Skipped" } as const) : ({ _tag: "Transitioned", to: lapsed.to } as const)
            }
            const result = transition(toCoreBooking(stored.row, slot), commandFor(effect.command, config), at, SYSTEM_ACTOR)
            // applicableTick already checked status and time; a refusal means the core rules
            // disagree with the timeline, which a test should catch, not a retry loop.
            if (Result.isFailure(result)) return { _tag: "Skipped" } as const
            // A system transition frees or keeps its slot; an overlap here is a broken invariant.
            const saved = yield* Effect.orDie(bookings.saveTransition(stored, slot, result.success, { occurrenceEventId: occurrence }))
            yield* reschedule(saved, config, at, [slot.occurrenceIndex])
            return { _tag: "Transitioned", to: result.success.booking.status } as const
          }
        }
      })

      const replanAssets = Effect.fn("BookingLifecycle.replanAssets")(function* (assetIds: ReadonlyArray<string>, at: number) {
        if (assetIds.length === 0) return []
        const live = yield* bookings.lockLiveOfAssets(assetIds, at)
        for (const { stored, assetConfig } of live) yield* reschedule(stored, configOf(assetConfig), at)
        return live.map(({ stored }) => stored.row.id)
      })

      return BookingLifecycle.of({ applyTick, replanAssets })
    }),
  )
}
