import { PinAttempts } from "./pin-attempts.ts"
import { Context, Effect, Layer, Metric, Option, Result } from "effect"
import type { ResolvedMeetingConfig } from "./asset-config.ts"
import { actingUserId, canSeeProject, type Principal } from "../auth/principal.ts"
import { countHoldRefused } from "../payment/metrics.ts"
import { openPayment, paidTimesOf, unpaidWindowEnd, voidAtGateway, voidPendingPayments } from "../payment/booking-payments.ts"
import type { PaymentRecord } from "../payment/records.ts"
import {
  cancelPaymentIdCheck,
  cancelWhileExtendingCheck,
  extensionDiscountCode,
  holdLimitOf,
  needsPayment,
  paymentAmountViolations,
  originOf,
  paidExtensionOf,
  unknownDiscountCode,
  type HoldHolder,
} from "../payment/rules.ts"
import { AssetStore } from "../ports/asset-store.ts"
import { BookingSettings } from "../ports/booking-settings.ts"
import { BookingStore } from "../ports/booking-store.ts"
import { Clock } from "../ports/clock.ts"
import { Directory } from "../ports/directory.ts"
import { Discounts } from "../ports/discounts.ts"
import { Ids } from "../ports/ids.ts"
import { LifecycleSignals, type LifecycleSignal } from "../ports/lifecycle-signals.ts"
import type { LifecycleSnapshot } from "../ports/lifecycle-scheduler.ts"
import { PaymentStore } from "../ports/payment-store.ts"
import { PaymentGateway } from "../ports/payments.ts"
import { TickStore } from "../ports/tick-store.ts"
import { UnitOfWork } from "../ports/unit-of-work.ts"
import { Forbidden, NotFound, RateLimited, StateConflict, ValidationFailed } from "../shared/errors.ts"
import * as Interval from "../shared/interval.ts"
import { formatLocalDate, localDateOf, startOfLocalDay } from "../shared/local-time.ts"
import { assetEntity, timingsAsLocked, type Asset, type AssetRef } from "./asset.ts"
import { assetRuleViolations, assetStatusViolations, resolveTimePeriod, type TimePeriod } from "./asset-rules.ts"
import { laterOccurrenceViolations, seriesOf } from "./series-rules.ts"
import type { CreateMeeting, MeetingAction, UpdateMeeting } from "./commands.ts"
import { draftPreview, type DraftPreview } from "./draft-preview.ts"
import { liveSlotOf } from "./meeting-records.ts"
import { atOriginTimes, keepsPaidTimes, MOVE_FIRST } from "./paid-extension.ts"
import { createWindow, extensionWindow } from "./payment-window.ts"
import { BookingRuleViolated, IllegalTransition, SlotTaken, TooManyUnpaidHolds } from "./errors.ts"
import {
  currentSlot,
  newPinCode,
  occurrenceIdOf,
  showPinTo,
  timelineOf,
  toCoreBooking,
  type BookingRecord,
  type HistoryRecord,
  type SlotRecord,
  type StoredBooking,
} from "./meeting.ts"
import { statusChanged } from "./metrics.ts"
import { isPaid, priceOf, type Discount } from "./pricing.ts"
import {
  createBooking,
  pinMatches,
  transition,
  type Actor,
  type BookingChanges,
  type BookingCommand,
} from "./transitions.ts"

/** A meeting with everything its view shows, in hand (no re-query to render it). */
export interface MeetingDetails {
  readonly row: BookingRecord
  /** The occurrence shown: the current one of a series, the one slot otherwise. */
  readonly slot: SlotRecord
  readonly timeZone: string
  readonly assetName: string | undefined
  readonly histories: ReadonlyArray<HistoryRecord>
  readonly payments: ReadonlyArray<PaymentRecord>
  readonly showPin: boolean
}

export type Created = { readonly _tag: "Created"; readonly meeting: MeetingDetails }
export type Updated = { readonly _tag: "Updated"; readonly meeting: MeetingDetails }
export type Previewed = { readonly _tag: "Preview"; readonly preview: DraftPreview }

/**
 * The booking write use cases: create (and its draft), update (and its draft, and the paid
 * extension), and the actions cancel / check-in / check-out / reject. Rules come from the
 * core (status machine, asset rules, recurrence, pricing, payment rules); the stores write in
 * one unit of work; the scheduler is told after the commit.
 */
export class Bookings extends Context.Service<
  Bookings,
  {
    readonly create: (
      p: Principal,
      c: CreateMeeting,
    ) => Effect.Effect<
      Created | Previewed,
      ValidationFailed | BookingRuleViolated | NotFound | Forbidden | IllegalTransition | SlotTaken | TooManyUnpaidHolds
    >
    readonly update: (
      p: Principal,
      id: string,
      c: UpdateMeeting,
    ) => Effect.Effect<
      Updated | Previewed,
      | ValidationFailed
      | BookingRuleViolated
      | NotFound
      | Forbidden
      | IllegalTransition
      | SlotTaken
      | TooManyUnpaidHolds
      | StateConflict
      | RateLimited
    >
    readonly act: (
      actor: Principal | "operator",
      id: string,
      a: MeetingAction,
    ) => Effect.Effect<
      MeetingDetails,
      NotFound | IllegalTransition | Forbidden | ValidationFailed | StateConflict | SlotTaken | BookingRuleViolated | RateLimited
    >
  }
>()("keyspace/core/Bookings") {
  static readonly layer = Layer.effect(
    Bookings,
    Effect.gen(function* () {
      const uow = yield* UnitOfWork
      const store = yield* BookingStore
      const assets = yield* AssetStore
      const directory = yield* Directory
      const discountStore = yield* Discounts
      const payments = yield* PaymentStore
      const gateway = yield* PaymentGateway
      const ticks = yield* TickStore
      const signals = yield* LifecycleSignals
      const clock = yield* Clock
      const ids = yield* Ids
      const settings = yield* BookingSettings
      const pins = yield* PinAttempts
      const opening = { store: payments, gateway, newId: ids.newId }

      const countStatus = (from: string, to: string) => Metric.update(statusChanged(from, to), 1)

      /** The unpaid-hold cap (429 SV040), counted under the store's per-holder lock; in tx. */
      const holdAllowed = (holder: HoldHolder) =>
        Effect.gen(function* () {
          const limit = holdLimitOf(holder, settings)
          if ((yield* store.unpaidHoldsOf(holder.userId)) >= limit) {
            yield* countHoldRefused
            return yield* new TooManyUnpaidHolds({ limit })
          }
        })

      /** The discount of a create: none without a code; an unknown code is a 400. */
      const createDiscounts = (projectId: string, code: string | undefined) =>
        Effect.gen(function* () {
          if (code === undefined || code === "") return [] as Discount[]
          const d = yield* discountStore.byCode(projectId, code)
          if (Option.isNone(d)) return yield* unknownDiscountCode()
          return [d.value]
        })

      /** An extension is priced with the PATCH's code, else the one the booking was made with (if it still exists). */
      const extensionDiscounts = (projectId: string, requested: string | undefined, stored: string | null) =>
        Effect.gen(function* () {
          const wanted = extensionDiscountCode(requested, stored)
          if (Option.isNone(wanted)) return [] as Discount[]
          const d = yield* discountStore.byCode(projectId, wanted.value.code)
          if (Option.isSome(d)) return [d.value]
          if (wanted.value.required) return yield* unknownDiscountCode()
          return [] as Discount[]
        })

      const periodInterval = (asset: Asset, start: number, period: TimePeriod) => {
        const r = resolveTimePeriod(asset.config, asset.timeZone, start, period)
        return Result.isFailure(r)
          ? Effect.fail(new BookingRuleViolated({ messages: [`timePeriod: ${r.failure}`] }))
          : Effect.succeed(r.success)
      }

      /** The booking as read, when the actor may see it; NotFound otherwise (a stranger learns nothing). */
      const visibleOrMissing = <T>(actor: Principal | "operator", id: string, found: Option.Option<T>, row: (t: T) => BookingRecord) =>
        Option.isSome(found) && (actor === "operator" || canSeeProject(actor, row(found.value).projectId))
          ? Effect.succeed(found.value)
          : Effect.fail(new NotFound({ entity: "meeting", id }))

      const loadVisible = (actor: Principal | "operator", id: string) =>
        Effect.flatMap(store.load(id), (o) => visibleOrMissing(actor, id, o, (s) => s.row))

      /**
       * The booking a change writes, read once, locked, inside the change's transaction: who may
       * act and how is decided on that row (a read before the transaction cost two statements more).
       */
      const lockedVisible = (actor: Principal | "operator", id: string) =>
        Effect.flatMap(store.loadForUpdate(id), (o) => visibleOrMissing(actor, id, o, (x) => x.stored.row))

      const assetOf = (row: BookingRecord) => {
        const ref: AssetRef = row.assetKind === "room" ? { _tag: "Room", id: row.assetId } : { _tag: "Desk", id: row.assetId }
        return assets.find(ref)
      }

      /**
       * The ticks follow the changed occurrence (a series keeps the others' ticks). An unpaid
       * booking's ticks need its payment window's end: the payment just opened, else the
       * pending one, else (none yet) its last update plus the window.
       */
      const reschedule = (
        timings: ResolvedMeetingConfig,
        stored: StoredBooking,
        slot: SlotRecord,
        now: number,
        opened: PaymentRecord | undefined,
      ) =>
        Effect.gen(function* () {
          const only = stored.row.rrule === null ? undefined : [slot.occurrenceIndex]
          const slots = only === undefined ? stored.slots : stored.slots.filter((x) => only.includes(x.occurrenceIndex))
          const unpaid = stored.slots.find((x) => x.status === "unpaid")
          let expiry: number | undefined
          if (unpaid !== undefined)
            expiry =
              opened?.expiresAt ??
              (yield* unpaidWindowEnd(payments, stored.row.id, unpaid.updatedAt.getTime(), settings.paymentWindowSeconds * 1000))
          const snapshots: LifecycleSnapshot[] = slots.map((s) => ({
            booking: timelineOf(toCoreBooking(stored.row, s), expiry),
            config: timings,
            occurrenceIndex: s.occurrenceIndex,
          }))
          yield* ticks.replace(stored.row.id, snapshots, now, only)
        })

      /**
       * What the view of a changed meeting needs: its histories and payments (two reads), and
       * the occurrence shown: the current one, or the one an action acted on (`actedStart`).
       * `pinCode` is the one the caller presented: a holder of the booking's pin sees what the
       * organizer sees (the pin it already has, the pay hand-off of an extension it made).
       */
      const detailsOf = (
        actor: Principal | "operator",
        asset: Asset,
        stored: StoredBooking,
        now: number,
        options: { readonly actedStart?: number | undefined; readonly pinCode?: string | undefined } = {},
      ) =>
        Effect.gen(function* () {
          const histories = yield* store.histories([stored.row.id])
          const paid = yield* payments.byBookings([stored.row.id])
          const { actedStart, pinCode } = options
          const acted = actedStart === undefined ? undefined : stored.slots.find((x) => x.startAt.getTime() === actedStart)
          return {
            row: stored.row,
            slot: acted ?? currentSlot(stored, asset.timeZone, now),
            timeZone: asset.timeZone,
            assetName: asset.kind === "room" ? asset.name : undefined,
            histories: histories.get(stored.row.id) ?? [],
            payments: paid.get(stored.row.id) ?? [],
            showPin: showPinTo(actor, stored.row) || pinMatches(pinCode, stored.row.pinCode),
          } satisfies MeetingDetails
        })

      const create = Effect.fn("Bookings.create")(function* (p: Principal, c: CreateMeeting) {
        const now = clock.now()
        const asset = yield* assets.find(c.asset)
        if (!canSeeProject(p, asset.projectId)) return yield* new NotFound({ entity: assetEntity(asset.kind), id: c.asset.id })
        const kind = asset.kind
        const tz = asset.timeZone
        const paid = isPaid(asset.chargeRate)
        const { start, end } =
          c.when._tag === "Period" ? yield* periodInterval(asset, c.when.start, c.when.period) : c.when

        const id = ids.newId()
        const { occurrences, rrule, violations: seriesViolations } = seriesOf({ masterId: id, recurrence: c.recurrence, start, end, timeZone: tz, paid })

        const violations = [
          ...assetStatusViolations(kind, asset.status),
          ...assetRuleViolations(asset.config, tz, start, end, now, kind),
          ...seriesViolations,
        ]
        violations.push(...laterOccurrenceViolations(asset.config, tz, occurrences, now, kind))
        // An unknown discount code is reported with the times' violations (one 400, a message each).
        const discountsRead = paid ? yield* Effect.result(createDiscounts(asset.projectId, c.payment.discountCode)) : Result.succeed([])
        if (Result.isFailure(discountsRead)) violations.push(...discountsRead.failure.messages)
        if (violations.length > 0) return yield* new BookingRuleViolated({ messages: [...new Set(violations)] })
        const discounts = Result.isSuccess(discountsRead) ? discountsRead.success : []
        const price = paid ? priceOf(asset.chargeRate, start, end, tz, discounts) : undefined
        const unpayable = price === undefined ? [] : paymentAmountViolations(price)
        if (unpayable.length > 0) return yield* new BookingRuleViolated({ messages: unpayable })
        // A 100% discount leaves nothing to pay: the booking is confirmed at once, like a free one.
        const payable = price !== undefined && needsPayment(price)
        const window = payable
          ? createWindow({ start, end, config: asset.meetingConfig, now, windowMs: settings.paymentWindowSeconds * 1000 })
          : undefined
        if (window?._tag === "Refused") return yield* new BookingRuleViolated({ messages: [window.reason] })
        if (Option.isSome(c.draft)) {
          const preview = yield* draftPreview(store, {
            asset,
            start,
            end,
            occurrences,
            discounts,
            draftEnds: c.draft.value.ends,
            now,
          })
          return { _tag: "Preview", preview } as const
        }

        const organizer = yield* directory.organizerOf(p)
        const attendees = yield* directory.resolveAttendees(asset.projectId, c.attendees)
        const created = yield* Effect.fromResult(createBooking(
          {
            id,
            projectId: asset.projectId,
            assetKind: kind,
            assetId: asset.id,
            title: c.title,
            ...(c.body === undefined ? {} : { body: c.body }),
            start,
            end,
            organizer,
            attendees,
            ...(c.estimatedAttendance === undefined ? {} : { estimatedAttendance: c.estimatedAttendance }),
            pinCode: newPinCode(),
            ...(rrule === undefined ? {} : { recurrence: { rrule, anchorStart: start, anchorEnd: end } }),
            paid: payable,
          },
          now,
        ))
        const booking = created.booking
        const snapshotsOf = (paymentExpiresAt: number | undefined): LifecycleSnapshot[] =>
          occurrences.map((o) => ({
            booking: timelineOf({ ...booking, start: o.start, end: o.end }, paymentExpiresAt),
            config: asset.meetingConfig,
            occurrenceIndex: o.index,
          }))
        const extras = {
          timePeriod: c.when._tag === "Period" ? c.when.period : undefined,
          // The spec's default channel applies to paid bookings; free ones never pay.
          paymentChannel: paid ? (c.payment.channel ?? "prompt-pay") : c.payment.channel,
          discountCode: c.payment.discountCode,
          frontendRedirectUrl: c.payment.returnUrl,
          price,
          createdByAppId: p.appId,
        }
        // A free booking's ticks go out with its rows and nothing else is written: a unit of
        // work of its own. One that pays later needs its payment's expiry for its ticks.
        const saved = !payable
          ? {
              inserted: yield* store.insertAlone(created, occurrences, extras, { snapshots: snapshotsOf(undefined), now }),
              payment: undefined,
            }
          : yield* uow.transaction(
              Effect.gen(function* () {
                yield* holdAllowed({ userId: organizer.userId, kind: organizer.userId === p.appId ? "app" : "person" })
                const inserted = yield* store.insert(created, occurrences, extras, undefined)
                // The payment first: its expiresAt is the unpaid-timeout tick's due time.
                const payment = yield* openPayment(opening, {
                  booking,
                  kind: "create",
                  summary: price,
                  discountCode: discounts[0]?.code,
                  channel: c.payment.channel,
                  frontendRedirectUrl: c.payment.returnUrl,
                  timeZone: tz,
                  assetName: asset.name,
                  now,
                  windowSeconds: (window?.windowMs ?? settings.paymentWindowSeconds * 1000) / 1000,
                })
                // A new booking has no ticks to replace (`only` = []).
                yield* ticks.replace(booking.id, snapshotsOf(payment.expiresAt), now, [])
                return { inserted, payment }
              }),
            )
        yield* signals.bookingCommitted(booking.id, "create")
        yield* countStatus("none", saved.inserted.row.status)
        // Rendered from what was just written: nothing is read back.
        return {
          _tag: "Created",
          meeting: {
            row: saved.inserted.row,
            slot: currentSlot(saved.inserted, tz, now),
            timeZone: tz,
            assetName: kind === "room" ? asset.name : undefined,
            histories: saved.inserted.histories,
            payments: saved.payment === undefined ? [] : [saved.payment],
            showPin: showPinTo(p, saved.inserted.row),
          },
        } as const
      })

      const update = Effect.fn("Bookings.update")(function* (p: Principal, id: string, c: UpdateMeeting) {
        const now = clock.now()
        const timesRequested = c.start !== undefined || c.end !== undefined || c.timePeriod !== undefined

        /** What the change needs besides the booking (its asset, the attendees, the discounts), and the checks before planning. */
        const context = (visible: StoredBooking) =>
          Effect.gen(function* () {
            const asset = yield* assetOf(visible.row)
            if (asset.kind === "room" && c.timePeriod !== undefined)
              return yield* new ValidationFailed({ messages: ["timePeriod: is only for desks"] })
            if (visible.row.rrule !== null && timesRequested)
              return yield* new ValidationFailed({
                messages: [
                  "startDateTime, endDateTime: the times of a recurring series cannot be changed; cancel an occurrence or book a new series",
                ],
              })
            const attendees = c.attendees === undefined ? undefined : yield* directory.resolveAttendees(asset.projectId, c.attendees)
            const discounts = isPaid(asset.chargeRate)
              ? yield* extensionDiscounts(asset.projectId, c.payment.discountCode, visible.row.discountCode)
              : []
            const paid = isPaid(asset.chargeRate)
              ? paidTimesOf((yield* payments.byBookings([visible.row.id])).get(visible.row.id) ?? [])
              : undefined
            return { asset, attendees, discounts, paid }
          })

        const plan = (stored: StoredBooking, { asset, attendees }: Effect.Success<ReturnType<typeof context>>) =>
          Effect.gen(function* () {
            const kind = asset.kind
            const tz = asset.timeZone
            const slot = liveSlotOf(stored, tz, now)
            const current = toCoreBooking(stored.row, slot)
            let start = c.start
            let end = c.end
            let timePeriod: string | null | undefined
            if (c.timePeriod !== undefined) {
              // Without a new start the period is taken on the booking's current local day; a
              // checked-in booking keeps its start (it cannot move), so it gets the rest of the
              // period from there, as a create starting inside a period does.
              const base =
                start ?? (current.status === "checked-in" ? current.start : startOfLocalDay(localDateOf(current.start, tz), tz))
              const period = yield* periodInterval(asset, base, c.timePeriod)
              start = period.start
              end = period.end
              timePeriod = c.timePeriod
            } else if (start !== undefined || end !== undefined) {
              timePeriod = null
            }
            const changes: BookingChanges = {
              ...(c.title === undefined ? {} : { title: c.title }),
              ...(c.body === undefined ? {} : { body: c.body }),
              ...(start === undefined ? {} : { start }),
              ...(end === undefined ? {} : { end }),
              ...(attendees === undefined ? {} : { attendees }),
              ...(c.estimatedAttendance === undefined ? {} : { estimatedAttendance: c.estimatedAttendance }),
            }
            const actor: Actor = {
              userId: actingUserId(p),
              isProjectAdmin: false,
              ...(c.pinCode === undefined ? {} : { pinCode: c.pinCode }),
            }
            const nextStart = changes.start ?? current.start
            const nextEnd = changes.end ?? current.end
            const startUnchanged = nextStart === current.start
            const violations =
              !startUnchanged || nextEnd !== current.end
                ? assetRuleViolations(asset.config, tz, nextStart, nextEnd, now, kind, { startUnchanged })
                : []
            const attempted = transition(current, { _tag: "Update", changes }, now, actor)
            // A rule the transition names (an end already past) is reported with the asset's rules
            // the same times break: one 400, a message each.
            if (Result.isFailure(attempted) && attempted.failure._tag === "BookingRuleViolated" && violations.length > 0)
              return yield* new BookingRuleViolated({ messages: [...new Set([...attempted.failure.messages, ...violations])] })
            const result = yield* Effect.fromResult(attempted)
            if (violations.length > 0) return yield* new BookingRuleViolated({ messages: [...violations] })
            return { slot, current, result, timePeriod, startUnchanged }
          })

        /**
         * Spec: extending a paid booking makes it unpaid, with a payment for the difference. The
         * extension (none for a plain update) and its payment window, or the refusal a PATCH
         * would meet: one rule for the PATCH and its draft.
         */
        const extensionOf = (needs: Effect.Success<ReturnType<typeof context>>, planned: Effect.Success<ReturnType<typeof plan>>) =>
          Effect.gen(function* () {
            const { asset, discounts } = needs
            const before = planned.current
            const extension = paidExtensionOf({
              chargeRate: asset.chargeRate,
              price: (b) => priceOf(asset.chargeRate, b.start, b.end, asset.timeZone, discounts),
              paid: needs.paid,
              before,
              updated: planned.result,
            })
            if (Option.isNone(extension)) return undefined
            if (!keepsPaidTimes(before, extension.value.result.booking)) return yield* new StateConflict({ reason: MOVE_FIRST })
            const unpayable = paymentAmountViolations(extension.value.summary)
            if (unpayable.length > 0) return yield* new BookingRuleViolated({ messages: unpayable })
            const window = extensionWindow({
              before,
              after: extension.value.result.booking,
              config: asset.meetingConfig,
              now,
              windowMs: settings.paymentWindowSeconds * 1000,
            })
            if (window._tag === "Refused") return yield* new StateConflict({ reason: window.reason })
            return { ...extension.value, windowMs: window.windowMs }
          })

        if (Option.isSome(c.draft)) {
          const visible = yield* loadVisible(p, id)
          const needs = yield* context(visible)
          const { asset, discounts } = needs
          const planned = yield* plan(visible, needs)
          yield* extensionOf(needs, planned)
          const b = planned.result.booking
          const preview = yield* draftPreview(store, {
            asset,
            start: b.start,
            end: b.end,
            occurrences: [{ seriesMasterId: id, occurrenceEventId: "", index: 0, start: b.start, end: b.end }],
            discounts,
            draftEnds: c.draft.value.ends,
            now,
            exceptBookingId: id,
            startUnchanged: planned.startUnchanged,
          })
          return { _tag: "Preview", preview } as const
        }

        const saved = yield* uow.transaction(
          Effect.gen(function* () {
            const { stored, assetConfig } = yield* lockedVisible(p, id)
            const needs = yield* context(stored)
            const { asset, discounts } = needs
            const tz = asset.timeZone
            const planned = yield* plan(stored, needs)
            const before = planned.current
            const extension = yield* extensionOf(needs, planned)
            if (extension !== undefined)
              yield* holdAllowed({
                userId: stored.row.organizerUserId,
                // An app organizes only the bookings it made as itself.
                kind: stored.row.organizerUserId === stored.row.createdByAppId ? "app" : "person",
              })
            const result = extension !== undefined ? extension.result : planned.result
            const rowPatch = {
              ...(c.payment.channel === undefined ? {} : { paymentChannel: c.payment.channel }),
              ...(c.payment.discountCode === undefined ? {} : { discountCode: c.payment.discountCode }),
              ...(c.payment.returnUrl === undefined ? {} : { frontendRedirectUrl: c.payment.returnUrl }),
            }
            // A PATCH that changes nothing (no event: the MODIFY rule of transitions.ts, and no
            // stored setting) writes nothing: no history entry, no new updatedAt.
            const unchanged =
              extension === undefined &&
              result.events.length === 0 &&
              (planned.timePeriod === undefined || planned.timePeriod === stored.row.timePeriod) &&
              Object.entries(rowPatch).every(([key, value]) => stored.row[key as keyof typeof rowPatch] === value)
            if (unchanged) return { asset, next: stored, from: planned.slot.status, to: planned.slot.status }
            const next = yield* store.saveTransition(stored, planned.slot, result, {
              occurrenceEventId: occurrenceIdOf(stored, planned.slot),
              timePeriod: planned.timePeriod,
              historyData: { fields: c.fields },
              rowPatch,
            })
            const payment =
              extension !== undefined
              ? yield* openPayment(opening, {
                  booking: extension.result.booking,
                  kind: "extension",
                  summary: extension.summary,
                  discountCode: discounts[0]?.code,
                  channel: c.payment.channel ?? stored.row.paymentChannel,
                  frontendRedirectUrl: c.payment.returnUrl ?? stored.row.frontendRedirectUrl,
                  timeZone: tz,
                  assetName: asset.name,
                  origin: originOf(before, stored.row.timePeriod),
                  now,
                  windowSeconds: extension.windowMs / 1000,
                })
              : undefined
            yield* reschedule(timingsAsLocked(asset, assetConfig), next, planned.slot, now, payment)
            return { asset, next, from: planned.slot.status, to: result.booking.status }
          }),
        )
        yield* signals.bookingCommitted(id, "update")
        if (saved.from !== saved.to) yield* countStatus(saved.from, saved.to)
        return { _tag: "Updated", meeting: yield* detailsOf(p, saved.asset, saved.next, now, { pinCode: c.pinCode }) } as const
      })

      /**
       * The occurrence an action names (spec rule 7 extended: actions take the master id, and may
       * name one of its occurrences): one not yet ended. A cancel of next week's occurrence today;
       * a retried cancel naming the same occurrence is then a 409, not a cancel of another one.
       */
      const slotNamed = (stored: StoredBooking, occurrence: string, now: number) =>
        Effect.gen(function* () {
          const slot = stored.slots.find((x) => occurrenceIdOf(stored, x) === occurrence)
          if (slot === undefined)
            return yield* new ValidationFailed({ messages: ["occurrenceEventId: is not an occurrence of this meeting"] })
          if (slot.endAt.getTime() <= now) return yield* new StateConflict({ reason: "the occurrence has ended" })
          return slot
        })

      const LIFECYCLE_SIGNAL = {
        Cancel: "cancel",
        CheckIn: "check-in",
        CheckOut: "check-out",
        // A reject ends the booking like a cancel: its pending ticks go.
        Reject: "cancel",
      } as const satisfies Record<MeetingAction["_tag"], LifecycleSignal>

      const act = Effect.fn("Bookings.act")(function* (actor: Principal | "operator", id: string, a: MeetingAction) {
        const now = clock.now()
        const saved = yield* uow.transaction(
          Effect.gen(function* () {
            const { stored, assetConfig } = yield* lockedVisible(actor, id)
            const asset = yield* assetOf(stored.row)
            const who: Actor =
              actor === "operator"
                ? { userId: "operator", isProjectAdmin: true }
                : {
                    userId: actingUserId(actor),
                    isProjectAdmin: a._tag === "Cancel" ? yield* directory.isProjectAdmin(actor, stored.row.projectId) : false,
                    ...(a._tag !== "Reject" && a.pinCode !== undefined ? { pinCode: a.pinCode } : {}),
                  }
            const command: BookingCommand =
              a._tag === "CheckIn" ? { _tag: "CheckIn", preStartMinutes: asset.meetingConfig.preStartMinutes } : { _tag: a._tag }
            const slot = a.occurrenceEventId === undefined ? currentSlot(stored, asset.timeZone, now) : yield* slotNamed(stored, a.occurrenceEventId, now)
            const result = yield* Effect.fromResult(transition(toCoreBooking(stored.row, slot), command, now, who))
            const ending = a._tag === "Cancel" || a._tag === "Reject"
            const pending = ending && slot.status === "unpaid" ? yield* payments.pendingOf(id) : Option.none()
            if (a._tag === "Cancel") yield* Effect.fromResult(cancelWhileExtendingCheck(pending))
            // Ended while its extension awaits payment: the record keeps the times paid for.
            const origin = Option.isSome(pending) && pending.value.kind === "extension" ? pending.value.origin : undefined
            // Checked after authorization and state, so a stranger learns nothing about payments.
            if (a._tag === "Cancel" && a.paymentId !== undefined) {
              const payment = yield* payments.byId(a.paymentId)
              yield* Effect.fromResult(cancelPaymentIdCheck(a.paymentId, payment, id, slot.status))
            }
            const next = yield* store.saveTransition(stored, slot, origin === undefined ? result : atOriginTimes(result, origin), {
              occurrenceEventId: occurrenceIdOf(stored, slot),
              historyData: a._tag === "Reject" && a.reason !== undefined ? { reason: a.reason } : undefined,
              ...(origin === undefined ? {} : { timePeriod: origin.timePeriod }),
            })
            // Spec: cancel (and a reject) voids the pending payments.
            const voided = ending ? yield* voidPendingPayments(payments, id, now) : []
            yield* reschedule(timingsAsLocked(asset, assetConfig), next, slot, now, undefined)
            return { asset, next, voided, from: slot.status, to: result.booking.status, actedStart: slot.startAt.getTime() }
          }),
        )
        yield* voidAtGateway(gateway, saved.voided)
        yield* signals.bookingCommitted(id, LIFECYCLE_SIGNAL[a._tag])
        yield* countStatus(saved.from, saved.to)
        // The answer shows the occurrence acted on (spec: "202 data = Meeting with status cancelled"),
        // though the series now points at its next live occurrence.
        return yield* detailsOf(actor, saved.asset, saved.next, now, {
          actedStart: saved.actedStart,
          pinCode: a._tag === "Reject" ? undefined : a.pinCode,
        })
      })

      /** A call presenting a pinCode, throttled per booking: a wrong one (Forbidden) counts (pin-attempts.ts). */
      const pinGuarded = <A, E extends { readonly _tag: string }>(id: string, pinCode: string | undefined, effect: Effect.Effect<A, E>) =>
        pinCode === undefined
          ? effect
          : pins.check(id).pipe(
              Effect.andThen(effect),
              Effect.tapError((e) => (e._tag === "Forbidden" ? pins.miss(id) : Effect.void)),
            )

      return Bookings.of({
        create,
        update: (p, id, c) => pinGuarded(id, c.pinCode, update(p, id, c)),
        act: (actor, id, a) => pinGuarded(id, a._tag === "Reject" ? undefined : a.pinCode, act(actor, id, a)),
      })
    }),
  )
}
