import type { BookingDomainEvent } from "../events/domain-events.ts"

/**
 * The scheduler ticks of one booking (spec "Scheduler ticks") as pure data, and the rule that
 * says whether a due tick still does something. The scheduler stores `timeline(...)`, fires
 * each tick at `dueAt`, and asks `applicableTick` at fire time; a tick that has become
 * pointless (booking moved, cancelled, already fired, or announcing a moment now past) yields
 * `{ kind: "none" }`, so firing twice or late is harmless.
 *
 * Which ticks each status gets:
 * - unpaid: only "unpaid-timeout". An unpaid booking is not confirmed (BOOK is emitted on
 *   confirmation), so it gets no reminders; once paid it becomes active and the caller
 *   recomputes the timeline.
 * - active: "pre-start", "post-start-warn", "post-start-expire", "pre-end", "end".
 * - checked-in: "pre-end", "end" (the people are already there: no reminder to come, no
 *   no-show warning, no no-show cancel).
 * - done, cancelled, rejected: none (terminal).
 *
 * Equal due times run transitions before reminders, in this order: unpaid-timeout,
 * post-start-expire, end, pre-start, post-start-warn, pre-end. So a no-show cancel at the same
 * instant as the end wins (the booking was a no-show), and no reminder is sent for a booking a
 * transition at the same instant has just closed.
 */

export type BookingStatus = "unpaid" | "active" | "checked-in" | "done" | "cancelled" | "rejected"

/** The booking fields the timeline reads; times are epoch milliseconds. */
export interface TimelineBooking {
  readonly id: string
  readonly status: BookingStatus
  readonly start: number
  readonly end: number
  readonly createdAt: number
  /** End of the payment window (billingSummaries[].expiredAt); default createdAt + 5 min. */
  readonly paymentExpiresAt?: number | undefined
  readonly checkedIn: boolean
  /** Keys (`tickKey`) of reminder ticks already emitted; makes reminders at-most-once. */
  readonly firedTicks?: ReadonlyArray<string> | undefined
}

/** The asset's meetingConfig with defaults (15, 10, 15, 15) already applied; -1 disables. */
export interface MeetingConfig {
  readonly preStartMinutes: number
  readonly postStartWarnMinutes: number
  readonly postStartExpireMinutes: number
  readonly preEndMinutes: number
}

export const defaultMeetingConfig: MeetingConfig = {
  preStartMinutes: 15,
  postStartWarnMinutes: 10,
  postStartExpireMinutes: 15,
  preEndMinutes: 15,
}

/** The spec's payment window ("about 5 minutes"), used when paymentExpiresAt is not known. */
export const PAYMENT_WINDOW_MS = 5 * 60_000

export type TickKind =
  | "pre-start"
  | "post-start-warn"
  | "post-start-expire"
  | "pre-end"
  | "end"
  | "unpaid-timeout"

export interface Tick {
  readonly kind: TickKind
  readonly dueAt: number
}

export type TransitionCommand = "NoShowExpire" | "End" | "PaymentLapsed"

export type TickEffect =
  | { readonly kind: "emit"; readonly event: BookingDomainEvent }
  | { readonly kind: "transition"; readonly command: TransitionCommand }
  | { readonly kind: "none" }

const MINUTE = 60_000

/** Rank for equal due times: transitions first, then reminders in lifecycle order. */
export const tickRank: Record<TickKind, number> = {
  "unpaid-timeout": 0,
  "post-start-expire": 1,
  end: 2,
  "pre-start": 3,
  "post-start-warn": 4,
  "pre-end": 5,
}

/** Total order on ticks: by dueAt, then by rank; used to sort and by the scheduler's queue. */
export const compareTicks = (a: Tick, b: Tick): number =>
  a.dueAt - b.dueAt || tickRank[a.kind] - tickRank[b.kind]

/** Stable identity of a tick for dedupe; includes dueAt so a moved booking fires anew. */
export const tickKey = (tick: Tick): string => `${tick.kind}@${tick.dueAt}`

const enabled = (minutes: number): boolean => minutes >= 0

const isCheckedIn = (b: TimelineBooking): boolean => b.status === "checked-in" || b.checkedIn

/** Whether the no-show warning makes sense: only before an enabled, later auto-cancel. */
const warnEnabled = (c: MeetingConfig): boolean =>
  enabled(c.postStartWarnMinutes) &&
  enabled(c.postStartExpireMinutes) &&
  c.postStartWarnMinutes < c.postStartExpireMinutes

/**
 * When a booking nobody checks in to is cancelled as a no-show: undefined when the asset's
 * auto-cancel is off or would come after the end (the end tick closes the booking first).
 */
export const noShowDeadline = (
  b: { readonly start: number; readonly end: number },
  c: Pick<MeetingConfig, "postStartExpireMinutes">,
): number | undefined => {
  if (!enabled(c.postStartExpireMinutes)) return undefined
  const dueAt = noShowDueAt(b.start, c.postStartExpireMinutes)
  return dueAt <= b.end ? dueAt : undefined
}

/** The no-show cancel's moment: postStartExpireMinutes after the start (the one formula). */
export const noShowDueAt = (start: number, postStartExpireMinutes: number): number => start + postStartExpireMinutes * MINUTE

const activeTicks = (b: TimelineBooking, c: MeetingConfig): Array<Tick> => {
  const ticks: Array<Tick> = []
  // A reminder due before the booking existed is skipped: BOOK has just told the same thing.
  if (enabled(c.preStartMinutes)) {
    const dueAt = b.start - c.preStartMinutes * MINUTE
    if (dueAt >= b.createdAt) ticks.push({ kind: "pre-start", dueAt })
  }
  // Ticks after the end never apply: the end tick has already closed the booking.
  if (warnEnabled(c)) {
    const dueAt = b.start + c.postStartWarnMinutes * MINUTE
    if (dueAt <= b.end) ticks.push({ kind: "post-start-warn", dueAt })
  }
  const noShowAt = noShowDeadline(b, c)
  if (noShowAt !== undefined) ticks.push({ kind: "post-start-expire", dueAt: noShowAt })
  ticks.push(...checkedInTicks(b, c))
  return ticks
}

const checkedInTicks = (b: TimelineBooking, c: MeetingConfig): Array<Tick> => {
  const ticks: Array<Tick> = []
  // "Ending soon" before the booking has even begun would mislead; the reminder covers it.
  if (enabled(c.preEndMinutes)) {
    const dueAt = b.end - c.preEndMinutes * MINUTE
    if (dueAt >= b.start) ticks.push({ kind: "pre-end", dueAt })
  }
  ticks.push({ kind: "end", dueAt: b.end })
  return ticks
}

/** The ticks due for the booking in its current status, sorted by `compareTicks`. */
export const timeline = (booking: TimelineBooking, config: MeetingConfig): ReadonlyArray<Tick> => {
  const ticks = ((): Array<Tick> => {
    switch (booking.status) {
      case "unpaid":
        return [
          {
            kind: "unpaid-timeout",
            dueAt: booking.paymentExpiresAt ?? booking.createdAt + PAYMENT_WINDOW_MS,
          },
        ]
      case "active":
        return booking.checkedIn ? checkedInTicks(booking, config) : activeTicks(booking, config)
      case "checked-in":
        return checkedInTicks(booking, config)
      case "done":
      case "cancelled":
      case "rejected":
        return []
    }
  })()
  return ticks.sort(compareTicks)
}

const none: TickEffect = { kind: "none" }

/**
 * What applying `tick` at `now` does. `none` when: not yet due; no longer part of the booking's
 * timeline (status changed, times moved, config changed); a reminder already fired; or a
 * reminder announcing a moment already past (REMINDER after start, NO_SHOW_WARNING after the
 * auto-cancel time, ENDING_SOON after end) — e.g. after downtime. Late transitions still apply:
 * the booking must still be closed. Reminder minutes are the configured ones, not the lateness.
 */
export const applicableTick = (
  booking: TimelineBooking,
  config: MeetingConfig,
  tick: Tick,
  now: number,
): TickEffect => {
  if (now < tick.dueAt) return none
  const current = timeline(booking, config).some(
    (t) => t.kind === tick.kind && t.dueAt === tick.dueAt,
  )
  if (!current) return none
  const fired = booking.firedTicks?.includes(tickKey(tick)) ?? false
  switch (tick.kind) {
    case "unpaid-timeout":
      return { kind: "transition", command: "PaymentLapsed" }
    case "post-start-expire":
      return isCheckedIn(booking) ? none : { kind: "transition", command: "NoShowExpire" }
    case "end":
      return { kind: "transition", command: "End" }
    case "pre-start":
      // preStartMinutes 0 is a reminder at the start itself: the start is its moment, not past.
      if (fired || now >= booking.start + (config.preStartMinutes === 0 ? MINUTE : 0)) return none
      return emit({
        kind: "REMINDER",
        bookingId: booking.id,
        at: now,
        minutesUntilStart: config.preStartMinutes,
      })
    case "post-start-warn": {
      const cancelAt = noShowDueAt(booking.start, config.postStartExpireMinutes)
      if (fired || isCheckedIn(booking) || now >= cancelAt) return none
      return emit({
        kind: "NO_SHOW_WARNING",
        bookingId: booking.id,
        at: now,
        minutesUntilAutoCancel: config.postStartExpireMinutes - config.postStartWarnMinutes,
      })
    }
    case "pre-end":
      if (fired || now >= booking.end) return none
      return emit({
        kind: "ENDING_SOON",
        bookingId: booking.id,
        at: now,
        minutesUntilEnd: config.preEndMinutes,
      })
  }
}

const emit = (event: BookingDomainEvent): TickEffect => ({ kind: "emit", event })
