import { Result } from "effect"
import * as Interval from "../shared/interval.ts"
import {
  formatLocalDate,
  formatSecondsOfDay,
  fromEpochDay,
  boundaryAt,
  localDateOf,
  parseTimeOfDay,
  SECONDS_PER_DAY,
  toEpochDay,
  truncateToMinute,
  weekdayOf,
  withinStoredYears,
  type LocalDate,
  type Weekday,
} from "../shared/local-time.ts"
import { leadTimeMs, type AssetConfig, type TimeRange } from "./asset-config.ts"
import type { AssetKind } from "./state.ts"

/**
 * Booking rules an asset's configuration imposes (spec Meetings rule 2, Desks rules).
 * Every function is pure: the project timezone and "now" are arguments.
 */

export type UnavailableReason = "OPERATING_HOURS" | "BREAK_TIME"
export type TimePeriod = "morning" | "afternoon" | "allDay"

/** Opening hours of one local day, as seconds since local midnight (close may be 86400). */
export type DayHours =
  | { readonly _tag: "AlwaysOpen" }
  | { readonly _tag: "Closed" }
  | {
      readonly _tag: "Open"
      readonly open: number
      readonly close: number
      readonly breaks: ReadonlyArray<{ readonly start: number; readonly end: number }>
    }

const NOON = 12 * 3600
const MS_PER_MINUTE = 60_000

/**
 * The longest booking, whatever the asset allows: 366 days. Hours and prices are judged day by
 * day, so a span of centuries held the event loop for seconds; a longer stay is a lease, not a
 * booking (docs/decisions.md).
 */
export const MAX_BOOKING_DAYS = 366
const MAX_BOOKING_MS = MAX_BOOKING_DAYS * 24 * 60 * MS_PER_MINUTE
export const TOO_LONG_MESSAGE = `the booking must not be longer than ${MAX_BOOKING_DAYS} days`

/** Whether [start, end) is longer than any booking may be (MAX_BOOKING_DAYS). */
export const isTooLong = (start: number, end: number): boolean => end - start > MAX_BOOKING_MS

/** An end of 23:59:59 is how configurations say "until midnight"; it means end of day. */
const endSeconds = (time: string): number => {
  const s = parseTimeOfDay(time) ?? SECONDS_PER_DAY
  return s === SECONDS_PER_DAY - 1 ? SECONDS_PER_DAY : s
}

const toRange = (range: TimeRange) => ({
  start: parseTimeOfDay(range.start) ?? 0,
  end: endSeconds(range.end),
})

/**
 * Hours of a weekday: dayConfig is the source of truth (a missing day is closed); without
 * dayConfig the legacy start/end apply every day (a missing bound is midnight); with neither
 * the asset is always open.
 */
export const hoursOn = (config: AssetConfig | undefined, weekday: Weekday): DayHours => {
  if (config?.dayConfig !== undefined) {
    const day = config.dayConfig[weekday]
    if (day === undefined) return { _tag: "Closed" }
    const hours = toRange(day.availableTime)
    return {
      _tag: "Open",
      open: hours.start,
      close: hours.end,
      breaks: (day.breakTimes ?? []).map(toRange),
    }
  }
  if (config?.start !== undefined || config?.end !== undefined) {
    return {
      _tag: "Open",
      open: config.start === undefined ? 0 : (parseTimeOfDay(config.start) ?? 0),
      close: config.end === undefined ? SECONDS_PER_DAY : endSeconds(config.end),
      breaks: [],
    }
  }
  return { _tag: "AlwaysOpen" }
}

/** A range of the day's hours or breaks: a bound the clock skips falls on the jump (`boundaryAt`). */
const span = (date: LocalDate, range: { start: number; end: number }, tz: string) =>
  Interval.make(boundaryAt(date, range.start, tz), boundaryAt(date, range.end, tz))

const describeHours = (weekday: Weekday, open: number, close: number) =>
  `${weekday} ${formatSecondsOfDay(open)}-${formatSecondsOfDay(close)}`

interface HoursCheck {
  readonly hours?: string
  readonly breaks?: string
}

/**
 * Operating hours and break times. Single-day: [start, end) inside the day's hours and
 * clear of its breaks. Multi-day: start inside the first day's hours, end inside the last
 * day's hours, every day touched must be open, and only the first day's tail
 * [start, close) and the last day's head [open, end) are checked against breaks: a
 * multi-day booking holds the asset across nights, so intermediate hours are not checked.
 */
const checkHours = (
  config: AssetConfig | undefined,
  tz: string,
  start: number,
  end: number,
  kind: AssetKind,
): HoursCheck => {
  const firstDay = toEpochDay(localDateOf(start, tz))
  const lastDay = toEpochDay(localDateOf(end - 1, tz))
  let hours: string | undefined
  let breaks: string | undefined
  for (let epochDay = firstDay; epochDay <= lastDay; epochDay++) {
    const date = fromEpochDay(epochDay)
    const weekday = weekdayOf(date)
    const day = hoursOn(config, weekday)
    if (day._tag === "AlwaysOpen") continue
    if (day._tag === "Closed") {
      hours ??= `the ${kind} is not bookable on ${weekday} ${formatLocalDate(date)} (closed)`
      continue
    }
    const open = span(date, { start: day.open, end: day.close }, tz)
    const portion = Interval.make(
      epochDay === firstDay ? start : open.start,
      epochDay === lastDay ? end : open.end,
    )
    if (!Interval.contains(open, portion)) {
      hours ??= `the booking must be within the ${kind}'s operating hours (${describeHours(
        weekday,
        day.open,
        day.close,
      )})`
    }
    const checksBreaks = epochDay === firstDay || epochDay === lastDay
    for (const b of checksBreaks ? day.breaks : []) {
      if (Interval.overlaps(portion, span(date, b, tz))) {
        breaks ??= `the booking must not overlap the break time ${describeHours(
          weekday,
          b.start,
          b.end,
        )}`
      }
    }
  }
  return { ...(hours === undefined ? {} : { hours }), ...(breaks === undefined ? {} : { breaks }) }
}

const isMultiDay = (tz: string, start: number, end: number): boolean =>
  toEpochDay(localDateOf(start, tz)) !== toEpochDay(localDateOf(end - 1, tz))

export interface AssetRuleOptions {
  /**
   * The start was accepted earlier and is not changing (an update that only moves the end,
   * e.g. extending a checked-in booking): lead time and advance window are not re-checked.
   */
  readonly startUnchanged?: boolean
}

/** maxAdvanceBookingDays: the start's local date at most that many calendar days after today's. */
export const advanceWindowViolation = (
  config: AssetConfig | undefined,
  timeZone: string,
  start: number,
  now: number,
): string | undefined => {
  const maxDays = config?.maxAdvanceBookingDays
  if (maxDays === undefined) return undefined
  const daysAhead = toEpochDay(localDateOf(start, timeZone)) - toEpochDay(localDateOf(now, timeZone))
  return daysAhead > maxDays ? `startDateTime must be within ${maxDays} days from today (maxAdvanceBookingDays)` : undefined
}

/**
 * Every asset-configuration rule the booking [start, end) breaks, one message per rule
 * (empty = bookable). Rules: end after start; multi-day only with bookMultipleDayRoom;
 * operating hours; break times; minimumLeadTime (start >= the current minute + lead, so a
 * start in the past is refused even without a lead time); start's local date at most
 * maxAdvanceBookingDays calendar days after today's; duration <= maxDurationMinutes.
 */
export const assetRuleViolations = (
  config: AssetConfig | undefined,
  timeZone: string,
  start: number,
  end: number,
  now: number,
  assetKind: AssetKind,
  options: AssetRuleOptions = {},
): ReadonlyArray<string> => {
  if (!(end > start)) return ["endDateTime must be after startDateTime"]
  const messages: Array<string> = []
  if (isMultiDay(timeZone, start, end) && config?.bookMultipleDayRoom !== true) {
    messages.push(`the ${assetKind} cannot be booked across several days`)
  }
  // The day-by-day rules are judged only on a span a booking may have.
  if (isTooLong(start, end)) messages.push(TOO_LONG_MESSAGE)
  else {
    const hours = checkHours(config, timeZone, start, end, assetKind)
    if (hours.hours !== undefined) messages.push(hours.hours)
    if (hours.breaks !== undefined) messages.push(hours.breaks)
  }
  if (options.startUnchanged !== true) {
    const lead = leadTimeMs(config)
    if (start < truncateToMinute(now) + lead) {
      messages.push(
        lead === 0
          ? "startDateTime must not be in the past"
          : `startDateTime must be at least ${lead / MS_PER_MINUTE} minutes from now ` +
              "(minimumLeadTime)",
      )
    }
    const ahead = advanceWindowViolation(config, timeZone, start, now)
    if (ahead !== undefined) messages.push(ahead)
  }
  const maxMinutes = config?.maxDurationMinutes
  if (maxMinutes !== undefined && end - start > maxMinutes * MS_PER_MINUTE) {
    messages.push(`the booking must not be longer than ${maxMinutes} minutes (maxDurationMinutes)`)
  }
  return messages
}

/**
 * Why a free room is still not bookable for the window, for availability searches. Only the
 * two reasons the spec names: hours first, then breaks. Request-shaped rules (lead time,
 * duration, multi-day) are answered by create, not by the search.
 */
export const unavailableReason = (
  config: AssetConfig | undefined,
  timeZone: string,
  start: number,
  end: number,
): UnavailableReason | undefined => {
  if (!(end > start) || isTooLong(start, end)) return undefined
  const check = checkHours(config, timeZone, start, end, "room")
  if (check.hours !== undefined) return "OPERATING_HOURS"
  if (check.breaks !== undefined) return "BREAK_TIME"
  return undefined
}

/**
 * A desk's timePeriod as an interval on the local day of `start`: morning = opening..12:00,
 * afternoon = 12:00..closing, allDay = opening..closing (always open = 00:00..24:00).
 * Hours that do not straddle noon clamp the period to the hours (a desk closing at 11:00
 * has morning = opening..11:00); a period left empty, or a closed day, is an error. When
 * `start` falls inside the period the booking starts there (the rest of the period); a
 * `start` at or after the period's end is an error.
 */
export const resolveTimePeriod = (
  config: AssetConfig | undefined,
  timeZone: string,
  start: number,
  period: TimePeriod,
): Result.Result<Interval.Interval, string> => {
  const date = localDateOf(start, timeZone)
  const weekday = weekdayOf(date)
  const day = hoursOn(config, weekday)
  if (day._tag === "Closed") {
    return Result.fail(`the desk is not bookable on ${weekday} ${formatLocalDate(date)} (closed)`)
  }
  const open = day._tag === "Open" ? day.open : 0
  const close = day._tag === "Open" ? day.close : SECONDS_PER_DAY
  const bounds =
    period === "morning"
      ? { start: open, end: Math.min(NOON, close) }
      : period === "afternoon"
        ? { start: Math.max(NOON, open), end: close }
        : { start: open, end: close }
  if (!(bounds.end > bounds.start)) {
    return Result.fail(
      `the desk has no ${period} period (hours ${describeHours(weekday, open, close)})`,
    )
  }
  const whole = span(date, bounds, timeZone)
  // A local day at either end of the calendar (9999-12-31 UTC is 10000-01-01 in Bangkok).
  if (!withinStoredYears(whole.start) || !withinStoredYears(whole.end))
    return Result.fail(`the ${period} period of ${formatLocalDate(date)} falls outside the years 0001-9999 in UTC`)
  if (start >= whole.end) {
    return Result.fail(
      `the ${period} period of ${formatLocalDate(date)} ended at ${formatSecondsOfDay(bounds.end)}`,
    )
  }
  return Result.succeed(Interval.make(Math.max(whole.start, start), whole.end))
}

/** Desk statuses that take a desk out of service; every other desk status can be booked. */
export const OUT_OF_SERVICE_DESK_STATUSES: ReadonlyArray<string> = ["inactive", "suspended"]

/** Rooms book when active; desks unless taken out of service (inactive, suspended). */
export const assetStatusViolations = (kind: AssetKind, status: string): ReadonlyArray<string> => {
  const bookable = kind === "room" ? status === "active" : !OUT_OF_SERVICE_DESK_STATUSES.includes(status)
  return bookable ? [] : [`the ${kind === "room" ? "meeting room" : "desk"} is ${status} and cannot be booked`]
}

/**
 * How a free asset stands in an availability search for [start, end): offered (a room may
 * carry one of the spec's two reasons, OPERATING_HOURS or BREAK_TIME), or left out when it
 * cannot be booked for a cause the spec's closed reason set has no value for: its status, a
 * window in the past or inside minimumLeadTime, beyond maxAdvanceBookingDays, longer than
 * maxDurationMinutes, or across days without bookMultipleDayRoom. The same rules create
 * applies (assetStatusViolations, assetRuleViolations), so "offered without a reason" means
 * the create would pass them. Desks have no reason field: any broken rule leaves a desk out.
 */
export type SearchVerdict =
  | { readonly _tag: "Offered"; readonly reason?: UnavailableReason }
  | { readonly _tag: "LeftOut" }

export const searchVerdict = (
  config: AssetConfig | undefined,
  timeZone: string,
  start: number,
  end: number,
  now: number,
  kind: AssetKind,
  status: string,
): SearchVerdict => {
  if (assetStatusViolations(kind, status).length > 0 || isTooLong(start, end)) return { _tag: "LeftOut" }
  const violations = assetRuleViolations(config, timeZone, start, end, now, kind)
  if (violations.length === 0) return { _tag: "Offered" }
  if (kind === "desk") return { _tag: "LeftOut" }
  // Hours and breaks are the only violations a reason can explain; any other one leaves it out.
  const hours = checkHours(config, timeZone, start, end, kind)
  const explained = (hours.hours === undefined ? 0 : 1) + (hours.breaks === undefined ? 0 : 1)
  if (violations.length > explained) return { _tag: "LeftOut" }
  const reason = unavailableReason(config, timeZone, start, end)
  return reason === undefined ? { _tag: "Offered" } : { _tag: "Offered", reason }
}
