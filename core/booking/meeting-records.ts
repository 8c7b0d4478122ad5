import { Result } from "effect"
import { actingUserId, type Principal } from "../auth/principal.ts"
import * as Interval from "../shared/interval.ts"
import type { PriceSummary } from "./pricing.ts"
import { currentOccurrence, parseRecurrenceRule } from "./recurrence.ts"
import { isTerminal, type Attendee, type BookingStatus, type CheckIn, type Organizer } from "./state.ts"

/**
 * A booking as the read side holds it: the stored fields a Meeting shows (times as Date, as
 * stored). Structural: a store's records satisfy it without a copy, and no driver type leaks.
 */
export interface MeetingRecord {
  readonly id: string
  readonly projectId: string
  readonly assetKind: string
  readonly assetId: string
  readonly title: string
  readonly body: string | null
  readonly timePeriod: string | null
  readonly organizer: Organizer
  readonly organizerUserId: string
  readonly attendees: ReadonlyArray<Attendee>
  readonly estimatedAttendance: number | null
  readonly pinCode: string
  readonly rrule: string | null
  readonly anchorStartAt: Date | null
  readonly anchorEndAt: Date | null
  readonly createdByAppId: string
  readonly createdAt: Date
  readonly updatedAt: Date
}

/** One occupied interval of a booking (its occurrence's own state). */
export interface SlotRecord {
  readonly bookingId: string
  readonly startAt: Date
  readonly endAt: Date
  readonly status: string
  readonly checkIns: ReadonlyArray<CheckIn>
  readonly checkOutAt: Date | null
  readonly updatedAt: Date
}

export interface HistoryRecord {
  readonly action: string
  readonly at: Date
  readonly by: string | null
  readonly data: Record<string, unknown> | null
}

/** A payment as stored (the payment aggregate's record); the Meeting shows its billing fields. */
export type { PaymentRecord } from "../payment/records.ts"

/** A booking with its slots (one, or one per occurrence of a series), in occurrence order. */
export interface StoredMeeting<R extends MeetingRecord = MeetingRecord, S extends SlotRecord = SlotRecord> {
  readonly row: R
  readonly slots: ReadonlyArray<S>
}

/**
 * The occurrence a master shows and its actions act on when none is named (spec rule 7, core
 * rule): the first one not yet ended (else the last), even when it is over (cancelled, checked
 * out): a second cancel of it is a 409, never a cancel of the next occurrence (a double-click,
 * a retry). An action names another occurrence with its occurrenceEventId (slotNamed).
 */
export const currentSlotOf = <S extends SlotRecord>(stored: StoredMeeting<MeetingRecord, S>, timeZone: string, now: number): S => {
  const { row, slots } = stored
  if (row.rrule === null || row.anchorStartAt === null || row.anchorEndAt === null || slots.length <= 1) return slots[0]!
  const rule = parseRecurrenceRule(row.rrule)
  if (Result.isFailure(rule)) return slots[0]!
  const current = currentOccurrence(
    {
      masterId: row.id,
      rule: rule.success,
      anchor: Interval.make(row.anchorStartAt.getTime(), row.anchorEndAt.getTime()),
      timeZone,
    },
    now,
  )
  if (current === undefined) return slots[slots.length - 1]!
  return slots.find((s) => s.startAt.getTime() === current.start) ?? slots[slots.length - 1]!
}

/**
 * The occurrence a series-wide update is checked against: the current one, or when that is over
 * ahead of its end, the next live one (an occurrence cancelled today must not block renaming
 * the series until today's end).
 */
export const liveSlotOf = <S extends SlotRecord>(stored: StoredMeeting<MeetingRecord, S>, timeZone: string, now: number): S => {
  const current = currentSlotOf(stored, timeZone, now)
  if (!isTerminal(current.status as BookingStatus)) return current
  const { slots } = stored
  return slots.slice(slots.indexOf(current) + 1).find((s) => s.endAt.getTime() > now && !isTerminal(s.status as BookingStatus)) ?? current
}

/** pinCode is a secret: shown to the operator, the organizer and the app that booked only. */
export const showsPin = (p: Principal | "operator", row: MeetingRecord): boolean =>
  p === "operator" ||
  actingUserId(p) === row.organizerUserId ||
  (p.grant === "app_credentials" && p.appId === row.createdByAppId)
