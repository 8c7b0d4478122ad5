import { Result } from "effect"
import type { AssetConfig } from "../../../core/booking/asset-config.ts"
import { assetRuleViolations } from "../../../core/booking/asset-rules.ts"
import { BookingRuleViolated, SlotTaken } from "../../../core/booking/errors.ts"
import { isLive, type Booking } from "../../../core/booking/state.ts"
import {
  createBooking,
  transition,
  type Actor,
  type BookingCommand,
  type CreateBookingInput,
  type HistoryEntry,
  type TransitionError,
} from "../../../core/booking/transitions.ts"
import type { BookingDomainEvent } from "../../../core/events/domain-events.ts"
import * as Interval from "../../../core/shared/interval.ts"

export type StoreError = TransitionError | SlotTaken

/**
 * A booking store built only from the pure core: what the Bookings service does around a
 * repository, minus I/O. The model-based test drives it against a much simpler model.
 */
export class InMemoryBookingStore {
  readonly bookings = new Map<string, Booking>()
  readonly events: Array<BookingDomainEvent> = []
  readonly history: Array<HistoryEntry & { bookingId: string }> = []

  constructor(
    readonly timeZone: string,
    readonly config: AssetConfig | undefined = undefined,
  ) {}

  /** Live bookings of the asset overlapping [start, end), other than `exceptId`. */
  conflicts(assetId: string, slot: Interval.Interval, exceptId?: string): ReadonlyArray<Booking> {
    return [...this.bookings.values()].filter(
      (b) =>
        b.assetId === assetId &&
        b.id !== exceptId &&
        isLive(b.status) &&
        Interval.overlaps(b, slot),
    )
  }

  create(input: CreateBookingInput, now: number): Result.Result<Booking, StoreError> {
    const messages = assetRuleViolations(
      this.config,
      this.timeZone,
      input.start,
      input.end,
      now,
      input.assetKind,
    )
    if (messages.length > 0) return Result.fail(new BookingRuleViolated({ messages }))
    if (this.conflicts(input.assetId, input).length > 0) {
      return Result.fail(new SlotTaken({ assetId: input.assetId }))
    }
    return Result.map(createBooking(input, now), (r) => this.commit(r.booking, r.events, r.history))
  }

  apply(
    id: string,
    command: BookingCommand,
    now: number,
    actor: Actor,
  ): Result.Result<Booking, StoreError> {
    const current = this.bookings.get(id)
    if (current === undefined) throw new Error(`unknown booking ${id}`)
    const r = transition(current, command, now, actor)
    if (Result.isFailure(r)) return Result.fail(r.failure)
    const next = r.success.booking
    if (next.start !== current.start || next.end !== current.end) {
      const messages = assetRuleViolations(
        this.config,
        this.timeZone,
        next.start,
        next.end,
        now,
        next.assetKind,
        { startUnchanged: next.start === current.start },
      )
      if (messages.length > 0) return Result.fail(new BookingRuleViolated({ messages }))
      if (this.conflicts(next.assetId, next, next.id).length > 0) {
        return Result.fail(new SlotTaken({ assetId: next.assetId }))
      }
    }
    return Result.succeed(this.commit(next, r.success.events, r.success.history))
  }

  private commit(
    booking: Booking,
    events: ReadonlyArray<BookingDomainEvent>,
    history: HistoryEntry,
  ): Booking {
    this.bookings.set(booking.id, booking)
    this.events.push(...events)
    this.history.push({ ...history, bookingId: booking.id })
    return booking
  }
}
