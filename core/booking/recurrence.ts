import { Result } from "effect"
import * as Interval from "../shared/interval.ts"
import {
  instantAt,
  isValidDate,
  localDateOf,
  secondsOfDayOf,
  toEpochDay,
  fromEpochDay,
  WEEKDAYS,
  weekdayOfEpochDay,
  type LocalDate,
  type Weekday,
} from "../shared/local-time.ts"

/**
 * Recurring room series: the RFC 5545 RRULE subset FREQ=DAILY|WEEKLY, INTERVAL, COUNT or
 * UNTIL, BYDAY=MO..SU (no ordinals, week starts Monday). Occurrences keep the first
 * occurrence's wall-clock start in the project timezone across DST changes and last as long
 * as it (in elapsed time).
 */

export type Frequency = "DAILY" | "WEEKLY"

export type Until =
  /** UNTIL=YYYYMMDDTHHMMSSZ: the last occurrence starts at or before this instant. */
  | { readonly _tag: "Instant"; readonly at: number }
  /** UNTIL=YYYYMMDD: the last occurrence starts on or before this project-local date. */
  | { readonly _tag: "Date"; readonly date: LocalDate }

export interface RecurrenceRule {
  readonly freq: Frequency
  readonly interval: number
  readonly count?: number
  readonly until?: Until
  /** Mon..Sun in week order, without duplicates; absent = the first occurrence's weekday. */
  readonly byDay?: ReadonlyArray<Weekday>
}

/** Hard caps: at most 366 occurrences, all starting within 366 local days of the first. */
export const MAX_OCCURRENCES = 366
export const MAX_SERIES_DAYS = 366

const RFC_DAYS = ["MO", "TU", "WE", "TH", "FR", "SA", "SU"] as const
const SUPPORTED = ["FREQ", "INTERVAL", "COUNT", "UNTIL", "BYDAY"]

const parseUntil = (value: string): Until | undefined => {
  const m = /^(\d{4})(\d{2})(\d{2})(?:T(\d{2})(\d{2})(\d{2})Z)?$/.exec(value)
  if (m === null) return undefined
  const date = { year: Number(m[1]), month: Number(m[2]), day: Number(m[3]) }
  if (!isValidDate(date)) return undefined
  if (m[4] === undefined) return { _tag: "Date", date }
  const [h, mi, s] = [Number(m[4]), Number(m[5]), Number(m[6])]
  if (h > 23 || mi > 59 || s > 59) return undefined
  return { _tag: "Instant", at: instantAt(date, h * 3600 + mi * 60 + s, "UTC") }
}

/**
 * Parse and validate an RRULE (an optional "RRULE:" prefix is accepted). Failures list one
 * message per broken constraint, for a 400 SV001. Exactly one of COUNT / UNTIL is required so
 * that a series never runs on silently until the cap.
 */
export const parseRecurrenceRule = (
  text: string,
): Result.Result<RecurrenceRule, ReadonlyArray<string>> => {
  const body = text.trim().replace(/^RRULE:/i, "")
  if (body === "") return Result.fail(["recurrence must be a non-empty RRULE"])
  const messages: Array<string> = []
  const parts = new Map<string, string>()
  for (const part of body.split(";")) {
    const eq = part.indexOf("=")
    const key = (eq < 0 ? part : part.slice(0, eq)).trim().toUpperCase()
    const value =
      eq < 0
        ? ""
        : part
            .slice(eq + 1)
            .trim()
            .toUpperCase()
    if (!SUPPORTED.includes(key)) {
      messages.push(`RRULE part ${key || "(empty)"} is not supported (${SUPPORTED.join(", ")})`)
    } else if (parts.has(key)) {
      messages.push(`RRULE part ${key} must appear once`)
    } else {
      parts.set(key, value)
    }
  }

  const freq = parts.get("FREQ")
  if (freq !== "DAILY" && freq !== "WEEKLY") messages.push("FREQ must be DAILY or WEEKLY")

  let interval = 1
  const intervalText = parts.get("INTERVAL")
  if (intervalText !== undefined) {
    interval = /^\d{1,4}$/.test(intervalText) ? Number(intervalText) : 0
    if (interval < 1 || interval > MAX_SERIES_DAYS) {
      messages.push(`INTERVAL must be an integer between 1 and ${MAX_SERIES_DAYS}`)
    }
  }

  let count: number | undefined
  const countText = parts.get("COUNT")
  if (countText !== undefined) {
    count = /^\d{1,4}$/.test(countText) ? Number(countText) : 0
    if (count < 1 || count > MAX_OCCURRENCES) {
      messages.push(`COUNT must be an integer between 1 and ${MAX_OCCURRENCES}`)
    }
  }

  let until: Until | undefined
  const untilText = parts.get("UNTIL")
  if (untilText !== undefined) {
    until = parseUntil(untilText)
    if (until === undefined) messages.push("UNTIL must be a date YYYYMMDD or YYYYMMDDTHHMMSSZ")
  }
  if (countText !== undefined && untilText !== undefined) {
    messages.push("COUNT and UNTIL must not both be given")
  }
  if (countText === undefined && untilText === undefined) {
    messages.push("RRULE needs COUNT or UNTIL")
  }

  let byDay: ReadonlyArray<Weekday> | undefined
  const byDayText = parts.get("BYDAY")
  if (byDayText !== undefined) {
    const items = byDayText.split(",").map((d) => d.trim())
    const indexes = items.map((d) => (RFC_DAYS as ReadonlyArray<string>).indexOf(d))
    if (items.length === 0 || indexes.some((i) => i < 0)) {
      messages.push("BYDAY must list days among MO,TU,WE,TH,FR,SA,SU (no ordinals)")
    } else {
      byDay = [...new Set(indexes)].sort((a, b) => a - b).map((i) => WEEKDAYS[i]!)
    }
  }

  if (messages.length > 0) return Result.fail(messages)
  return Result.succeed({
    freq: freq as Frequency,
    interval,
    ...(count === undefined ? {} : { count }),
    ...(until === undefined ? {} : { until }),
    ...(byDay === undefined ? {} : { byDay }),
  })
}

/** Canonical RRULE text of a parsed rule (stable for storage and comparisons). */
export const formatRecurrenceRule = (rule: RecurrenceRule): string => {
  const pad = (n: number, w = 2) => String(n).padStart(w, "0")
  const parts = [`FREQ=${rule.freq}`]
  if (rule.interval !== 1) parts.push(`INTERVAL=${rule.interval}`)
  if (rule.count !== undefined) parts.push(`COUNT=${rule.count}`)
  if (rule.until?._tag === "Date") {
    const d = rule.until.date
    parts.push(`UNTIL=${pad(d.year, 4)}${pad(d.month)}${pad(d.day)}`)
  } else if (rule.until?._tag === "Instant") {
    const s = new Date(rule.until.at).toISOString()
    parts.push(`UNTIL=${s.slice(0, 19).replace(/[-:]/g, "")}Z`)
  }
  if (rule.byDay !== undefined) {
    parts.push(`BYDAY=${rule.byDay.map((d) => RFC_DAYS[WEEKDAYS.indexOf(d)]).join(",")}`)
  }
  return parts.join(";")
}

export interface Occurrence {
  readonly seriesMasterId: string
  /** Stable per occurrence: see occurrenceEventId. */
  readonly occurrenceEventId: string
  /** 0 for the first occurrence (the series anchor). */
  readonly index: number
  readonly start: number
  readonly end: number
}

/**
 * `${masterId}_${startEpochMs}`: unique within a series (starts strictly increase) and stable
 * for as long as the series' rule and anchor are unchanged.
 */
export const occurrenceEventId = (masterId: string, start: number): string => `${masterId}_${start}`

const mondayIndex = (epochDay: number): number => WEEKDAYS.indexOf(weekdayOfEpochDay(epochDay))

/** Local days after the first that the rule selects, ascending, strictly before `horizon`. */
function* laterDays(rule: RecurrenceRule, first: number, horizon: number): Generator<number> {
  if (rule.freq === "DAILY") {
    for (let day = first + rule.interval; day < horizon; day += rule.interval) {
      if (rule.byDay === undefined || rule.byDay.includes(weekdayOfEpochDay(day))) yield day
    }
    return
  }
  const offsets = (rule.byDay ?? [weekdayOfEpochDay(first)]).map((d) => WEEKDAYS.indexOf(d))
  const monday = first - mondayIndex(first)
  for (let week = 0; ; week += rule.interval) {
    for (const offset of offsets) {
      const day = monday + week * 7 + offset
      if (day >= horizon) return
      if (day > first) yield day
    }
  }
}

export interface ExpandInput {
  readonly masterId: string
  readonly rule: RecurrenceRule
  /** The first occurrence; RFC 5545 counts DTSTART as an occurrence even off-BYDAY. */
  readonly anchor: Interval.Interval
  readonly timeZone: string
  /** Only occurrences overlapping this window (half-open rule); absent = all. */
  readonly window?: Interval.Interval
}

/** The series' occurrences in start order, within the caps and the optional window. */
export const expandOccurrences = (input: ExpandInput): ReadonlyArray<Occurrence> => {
  const { masterId, rule, anchor, timeZone, window } = input
  const duration = anchor.end - anchor.start
  const first = toEpochDay(localDateOf(anchor.start, timeZone))
  const timeOfDay = secondsOfDayOf(anchor.start, timeZone)
  const limit = Math.min(rule.count ?? MAX_OCCURRENCES, MAX_OCCURRENCES)
  const untilDay = rule.until?._tag === "Date" ? toEpochDay(rule.until.date) : undefined
  const untilAt = rule.until?._tag === "Instant" ? rule.until.at : undefined
  const afterUntil = untilDay === undefined ? Infinity : untilDay + 1
  const horizon = Math.min(first + MAX_SERIES_DAYS, afterUntil)

  const out: Array<Occurrence> = []
  const later = laterDays(rule, first, horizon)
  for (let index = 0; index < limit; index++) {
    let start = anchor.start
    if (index > 0) {
      const next = later.next()
      if (next.done === true) break
      start = instantAt(fromEpochDay(next.value), timeOfDay, timeZone)
    }
    if (index > 0 && untilAt !== undefined && start > untilAt) break
    const occurrence = { start, end: start + duration }
    if (window !== undefined && occurrence.start >= window.end) break
    if (window === undefined || Interval.overlaps(occurrence, window)) {
      out.push({
        seriesMasterId: masterId,
        occurrenceEventId: occurrenceEventId(masterId, start),
        index,
        ...occurrence,
      })
    }
  }
  return out
}

/**
 * Whether UNTIL lets the series run past the caps, which expansion would cut short without a
 * word: an occurrence after the MAX_OCCURRENCES-th, or starting MAX_SERIES_DAYS or more local
 * days after the first, still before UNTIL. Refused like a COUNT above the cap.
 */
export const untilBeyondCaps = (rule: RecurrenceRule, anchorStart: number, timeZone: string): boolean => {
  const until = rule.until
  if (until === undefined) return false
  const first = toEpochDay(localDateOf(anchorStart, timeZone))
  const timeOfDay = secondsOfDayOf(anchorStart, timeZone)
  const capDay = first + MAX_SERIES_DAYS
  // Far enough to meet the first selected day past the day cap, whatever INTERVAL and BYDAY.
  const horizon = Math.min(capDay + 7 * rule.interval + 1, until._tag === "Date" ? toEpochDay(until.date) + 1 : Infinity)
  let count = 1
  for (const day of laterDays(rule, first, horizon)) {
    if (until._tag === "Instant" && instantAt(fromEpochDay(day), timeOfDay, timeZone) > until.at) return false
    count++
    if (count > MAX_OCCURRENCES || day >= capDay) return true
  }
  return false
}

/**
 * The occurrence a series master shows now (spec Meetings rule 7: the master's start and end
 * roll forward): the first one not yet ended, or undefined once the series is over.
 */
export const currentOccurrence = (
  input: Omit<ExpandInput, "window">,
  now: number,
): Occurrence | undefined =>
  expandOccurrences({ ...input, window: Interval.make(now, Number.MAX_SAFE_INTEGER) })[0]
