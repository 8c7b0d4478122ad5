import { Result } from "effect"

/**
 * Pure timezone helpers over Intl. The core keeps instants as epoch milliseconds; asset
 * configuration and webhook payloads speak property-local wall-clock time, so every
 * conversion between the two goes through this file.
 */

export const WEEKDAYS = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"] as const
export type Weekday = (typeof WEEKDAYS)[number]

/** A civil calendar date (no zone). month is 1..12. */
export interface LocalDate {
  readonly year: number
  readonly month: number
  readonly day: number
}

export interface WallClock extends LocalDate {
  readonly hour: number
  readonly minute: number
  readonly second: number
  readonly weekday: Weekday
}

const MS_PER_DAY = 86_400_000
export const SECONDS_PER_DAY = 86_400

// Formatters are costly to build; one per zone is enough.
const formatters = new Map<string, Intl.DateTimeFormat>()

const formatterFor = (timeZone: string): Intl.DateTimeFormat => {
  let formatter = formatters.get(timeZone)
  if (formatter === undefined) {
    formatter = new Intl.DateTimeFormat("en-US", {
      timeZone,
      hourCycle: "h23",
      year: "numeric",
      month: "2-digit",
      day: "2-digit",
      hour: "2-digit",
      minute: "2-digit",
      second: "2-digit",
    })
    formatters.set(timeZone, formatter)
  }
  return formatter
}

/**
 * An IANA zone name ("Asia/Bangkok", "UTC", "Etc/GMT-7") that Intl knows. Node, Bun and Deno
 * carry different ICU data: Bun and Deno also take offsets ("+07:00") and Node the retired
 * "SystemV/" zones, so a zone one runtime accepted made every read of its project a 500 on
 * another runtime serving the same database. Only names every runtime reads pass.
 */
const IANA_NAME = /^[A-Za-z][A-Za-z0-9_+-]*(?:\/[A-Za-z0-9_+-]+){0,2}$/u
export const isValidTimeZone = (timeZone: string): boolean => {
  if (!IANA_NAME.test(timeZone)) return false
  try {
    // Intl reads names in any case: the canonical name tells a SystemV zone however spelled.
    return !formatterFor(timeZone).resolvedOptions().timeZone.toLowerCase().startsWith("systemv/")
  } catch {
    return false
  }
}

// --- civil dates -------------------------------------------------------------------------

// Civil dates by arithmetic (H. Hinnant's days_from_civil / civil_from_days, proleptic
// Gregorian, exact for every integer day): a Date per conversion was ~2% of a create's CPU.

/** Days since 1970-01-01 of year-month-day; month is 1..12, day may run past the month's end. */
const daysFromCivil = (year: number, month: number, day: number): number => {
  const y = month <= 2 ? year - 1 : year
  const era = Math.floor(y / 400)
  const yoe = y - era * 400
  const doy = Math.floor((153 * (month > 2 ? month - 3 : month + 9) + 2) / 5) + day - 1
  return era * 146_097 + yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy - 719_468
}

const utcMs = (year: number, month: number, day: number, seconds = 0): number =>
  daysFromCivil(year, month, day) * MS_PER_DAY + seconds * 1000

/** Days since 1970-01-01 of a civil date; date arithmetic without any zone. */
export const toEpochDay = (date: LocalDate): number => daysFromCivil(date.year, date.month, date.day)

export const fromEpochDay = (epochDay: number): LocalDate => {
  const z = Math.floor(epochDay) + 719_468
  const era = Math.floor(z / 146_097)
  const doe = z - era * 146_097
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36_524) - Math.floor(doe / 146_096)) / 365)
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100))
  const mp = Math.floor((5 * doy + 2) / 153)
  const month = mp < 10 ? mp + 3 : mp - 9
  return { year: yoe + era * 400 + (month <= 2 ? 1 : 0), month, day: doy - Math.floor((153 * mp + 2) / 5) + 1 }
}

export const addDays = (date: LocalDate, days: number): LocalDate =>
  fromEpochDay(toEpochDay(date) + days)

/** Weekday of an epoch day; 1970-01-01 was a Thursday (index 3 from Monday). */
export const weekdayOfEpochDay = (epochDay: number): Weekday =>
  WEEKDAYS[(((epochDay + 3) % 7) + 7) % 7]!

export const weekdayOf = (date: LocalDate): Weekday => weekdayOfEpochDay(toEpochDay(date))

const isLeapYear = (year: number): boolean => (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0
const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31] as const

export const isValidDate = (date: LocalDate): boolean =>
  Number.isInteger(date.year) &&
  Number.isInteger(date.month) &&
  Number.isInteger(date.day) &&
  date.month >= 1 &&
  date.month <= 12 &&
  date.day >= 1 &&
  date.day <= (date.month === 2 && isLeapYear(date.year) ? 29 : DAYS_IN_MONTH[date.month - 1]!)

const pad = (n: number, width = 2): string => String(n).padStart(width, "0")

/** YYYY-MM-DD */
export const formatLocalDate = (date: LocalDate): string =>
  `${pad(date.year, 4)}-${pad(date.month)}-${pad(date.day)}`

// --- time of day -------------------------------------------------------------------------

/** The HH:mm:ss format of asset configuration times (spec convention 4). */
// `u`: Effect exports the pattern to the OpenAPI document only with it (core/shared/ids.ts).
export const TIME_OF_DAY_PATTERN = /^([01]\d|2[0-3]):([0-5]\d):([0-5]\d)$/u

/** Seconds since local midnight of "HH:mm:ss", or undefined when malformed. */
export const parseTimeOfDay = (text: string): number | undefined => {
  const m = TIME_OF_DAY_PATTERN.exec(text)
  return m === null ? undefined : Number(m[1]) * 3600 + Number(m[2]) * 60 + Number(m[3])
}

/** HH:mm of a seconds-of-day value; 86400 prints as 24:00 (end of day). */
export const formatSecondsOfDay = (seconds: number): string =>
  `${pad(Math.floor(seconds / 3600))}:${pad(Math.floor((seconds % 3600) / 60))}`

// --- instants <-> wall clock -------------------------------------------------------------

// formatToParts dominates searches that evaluate the same few instants for every asset (a
// window's start and end, the day bounds around them): remember recent answers. Bounded, and
// cleared whole when full, so memory stays flat whatever instants callers ask about.
const WALL_CLOCK_CACHE_MAX = 4096
const wallClocks = new Map<string, WallClock>()

/** Wall-clock parts of an instant in an IANA zone. */
export const wallClock = (instant: number, timeZone: string): WallClock => {
  // A day without a transition: arithmetic, cheaper than any cache key (every random slot of a
  // create is a new instant, so the per-instant cache below missed and churned).
  const offset = steadyOffset(instant, timeZone)
  if (offset !== null) return steadyWallClock(instant, offset)
  const key = `${instant}|${timeZone}`
  const cached = wallClocks.get(key)
  if (cached !== undefined) return cached
  // Frozen: every caller shares the cached object.
  const computed = Object.freeze(intlWallClock(instant, timeZone))
  if (wallClocks.size >= WALL_CLOCK_CACHE_MAX) wallClocks.clear()
  wallClocks.set(key, computed)
  return computed
}

// A zone's offset changes only at its transitions, a few times a year. formatToParts was ~6%
// of a create's CPU (each random slot a new instant) and most of a listing's formatting
// (hundreds of instants): keep the offset of every UTC day whose start, middle and last
// millisecond agree (no zone moves and moves back within half a day) and derive wall clocks by
// arithmetic. Days with a transition, and instants outside 1900-2199, still ask Intl. Bounded:
// cleared whole when full. Keyed by zone, then by UTC day number (a small integer: no string
// key to build and hash per call).
const OFFSET_CACHE_MAX = 4096
const ZONES_MAX = 64
const dayOffsets = new Map<string, Map<number, number | null>>()
const FAST_FROM = Date.UTC(1900, 0, 1)
const FAST_UNTIL = Date.UTC(2200, 0, 1)

/** The offset an instant's wall clock shows (local = utc + offset, whole seconds as Intl shows them). */
const offsetOfWall = (instant: number, w: WallClock): number =>
  utcMs(w.year, w.month, w.day, w.hour * 3600 + w.minute * 60 + w.second) - Math.floor(instant / 1000) * 1000

const intlOffsetMs = (instant: number, timeZone: string): number => offsetOfWall(instant, intlWallClock(instant, timeZone))

/** The zone's offset throughout the UTC day of `instant`, or null when it changes that day. */
const steadyOffset = (instant: number, timeZone: string): number | null => {
  if (instant < FAST_FROM || instant >= FAST_UNTIL) return null
  const day = Math.floor(instant / MS_PER_DAY)
  let days = dayOffsets.get(timeZone)
  if (days === undefined) {
    if (dayOffsets.size >= ZONES_MAX) dayOffsets.clear()
    days = new Map()
    dayOffsets.set(timeZone, days)
  }
  const known = days.get(day)
  if (known !== undefined) return known
  const dayStart = day * MS_PER_DAY
  const first = intlOffsetMs(dayStart, timeZone)
  const steady =
    intlOffsetMs(dayStart + MS_PER_DAY / 2, timeZone) === first && intlOffsetMs(dayStart + MS_PER_DAY - 1, timeZone) === first
  if (days.size >= OFFSET_CACHE_MAX) days.clear()
  days.set(day, steady ? first : null)
  return steady ? first : null
}

/** The wall clock (whole seconds, as Intl shows it) of an instant in a day with this steady offset. */
const steadyWallClock = (instant: number, offset: number): WallClock => {
  const localMs = Math.floor(instant / 1000) * 1000 + offset
  const local = new Date(localMs)
  return {
    year: local.getUTCFullYear(),
    month: local.getUTCMonth() + 1,
    day: local.getUTCDate(),
    hour: local.getUTCHours(),
    minute: local.getUTCMinutes(),
    second: local.getUTCSeconds(),
    weekday: weekdayOfEpochDay(Math.floor(localMs / MS_PER_DAY)),
  }
}

const intlWallClock = (instant: number, timeZone: string): WallClock => {
  const parts: Record<string, number> = {}
  for (const part of formatterFor(timeZone).formatToParts(new Date(instant))) {
    if (part.type !== "literal") parts[part.type] = Number(part.value)
  }
  const date = { year: parts["year"]!, month: parts["month"]!, day: parts["day"]! }
  return {
    ...date,
    hour: parts["hour"]!,
    minute: parts["minute"]!,
    second: parts["second"]!,
    weekday: weekdayOf(date),
  }
}

export const localDateOf = (instant: number, timeZone: string): LocalDate => {
  const { year, month, day } = wallClock(instant, timeZone)
  return { year, month, day }
}

/** Seconds since local midnight of an instant in the zone. */
export const secondsOfDayOf = (instant: number, timeZone: string): number => {
  const w = wallClock(instant, timeZone)
  return w.hour * 3600 + w.minute * 60 + w.second
}

/** Property-local HH:mm of an instant (webhook startTime/endTime). */
export const formatHHmm = (instant: number, timeZone: string): string => {
  const w = wallClock(instant, timeZone)
  return `${pad(w.hour)}:${pad(w.minute)}`
}

/** UTC offset of the zone at an instant, in milliseconds (local = utc + offset). */
export const offsetMsAt = (instant: number, timeZone: string): number => {
  // The wall clock of a steady day is the instant's whole second moved by exactly this offset.
  const steady = steadyOffset(instant, timeZone)
  return steady !== null ? steady : offsetOfWall(instant, wallClock(instant, timeZone))
}

/** ISO 8601 of an instant with the zone's offset at that instant: 2030-01-07T10:00:00+07:00. */
export const formatOffsetDateTime = (instant: number, timeZone: string): string => {
  const offset = steadyOffset(instant, timeZone)
  return offset !== null ? isoWithOffset(steadyWallClock(instant, offset), offset) : formatOffsetDateTimeByParts(instant, timeZone)
}

/**
 * The same through Intl's parts of this very instant, with no steady-day arithmetic: the path of
 * a day with a transition or a year outside 1900-2199, and the oracle the arithmetic is tested
 * against.
 */
export const formatOffsetDateTimeByParts = (instant: number, timeZone: string): string => {
  const w = intlWallClock(instant, timeZone)
  return isoWithOffset(w, offsetOfWall(instant, w))
}

const isoWithOffset = (w: WallClock, offsetMs: number): string => {
  const minutes = Math.round(offsetMs / 60_000)
  const sign = minutes < 0 ? "-" : "+"
  const abs = Math.abs(minutes)
  const date = `${String(w.year).padStart(4, "0")}-${pad(w.month)}-${pad(w.day)}`
  return `${date}T${pad(w.hour)}:${pad(w.minute)}:${pad(w.second)}${sign}${pad(Math.floor(abs / 60))}:${pad(abs % 60)}`
}

/**
 * The instant at which the zone's clock reads `time` on `date`. `time` is "HH:mm:ss" or
 * seconds since midnight (86400 = the next midnight, used for "until end of day").
 * DST follows Temporal's "compatible" disambiguation: a time repeated by a fall-back
 * transition resolves to the earlier instant; a time skipped by a spring-forward gap moves
 * forward by the gap (02:30 in a 02:00->03:00 gap becomes 03:30).
 */
export const instantAt = (date: LocalDate, time: string | number, timeZone: string): number => {
  const r = readingsOf(date, time, timeZone)
  return r.skipped ? r.early : r.instant
}

/**
 * The instant a boundary of the day (an opening, a closing, a break's end) falls on: as
 * `instantAt`, except that a time skipped by a spring-forward gap falls on the transition
 * itself, the moment the clock jumps past it. A room closing at 02:30 on a day whose clock goes
 * from 02:00 to 03:00 closes at 03:00, not at 03:30; one opening then opens at 03:00; a break
 * wholly inside the gap takes no time.
 */
export const boundaryAt = (date: LocalDate, time: string | number, timeZone: string): number => {
  const r = readingsOf(date, time, timeZone)
  if (!r.skipped) return r.instant
  // The offset changes once between `late` (before the jump) and `early` (after it).
  let lo = r.late
  let hi = r.early
  const afterOffset = offsetMsAt(hi, timeZone)
  while (hi - lo > 1) {
    const mid = lo + Math.floor((hi - lo) / 2)
    if (offsetMsAt(mid, timeZone) === afterOffset) hi = mid
    else lo = mid
  }
  return hi
}

type Readings = { readonly skipped: false; readonly instant: number } | { readonly skipped: true; readonly early: number; readonly late: number }

/** The instants at which the zone's clock reads a wall time: one (the earlier of a repeat), or none (a gap). */
const readingsOf = (date: LocalDate, time: string | number, timeZone: string): Readings => {
  const seconds = typeof time === "number" ? time : parseTimeOfDay(time)
  if (seconds === undefined) throw new Error(`invalid time of day: ${String(time)}`)
  const wallAsUtc = utcMs(date.year, date.month, date.day, seconds)
  // Offsets a day either side bracket any single transition near this wall time.
  const before = offsetMsAt(wallAsUtc - MS_PER_DAY, timeZone)
  const after = offsetMsAt(wallAsUtc + MS_PER_DAY, timeZone)
  // The earlier of the two readings that land on the wall time (no arrays: a create calls this
  // for each bound of each day it checks).
  const early = wallAsUtc - before
  const late = wallAsUtc - after
  const earlyFits = early + offsetMsAt(early, timeZone) === wallAsUtc
  const lateFits = late + offsetMsAt(late, timeZone) === wallAsUtc
  if (earlyFits && lateFits) return { skipped: false, instant: Math.min(early, late) }
  if (earlyFits) return { skipped: false, instant: early }
  if (lateFits) return { skipped: false, instant: late }
  return { skipped: true, early, late }
}

/** Start of the local day (local midnight, or the first instant after a midnight gap). */
export const startOfLocalDay = (date: LocalDate, timeZone: string): number =>
  instantAt(date, 0, timeZone)

// --- request date-times ------------------------------------------------------------------

// date T hh:mm [:ss [.fraction]] (Z | ±hh:mm)
const OFFSET_DATE_TIME = new RegExp(
  String.raw`^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?` +
    String.raw`([Zz]|[+-]\d{2}:\d{2})$`,
)

/** Floor to the start of the minute (spec convention 3). */
export const truncateToMinute = (instant: number): number => Math.floor(instant / 60_000) * 60_000

/**
 * Parse an ISO 8601 date-time that carries an explicit offset (Z or ±hh:mm) and truncate it
 * to the start of its minute. A local time without an offset is refused: the service cannot
 * guess which zone the caller meant. Offsets are whole minutes, so truncating the instant
 * equals truncating the caller's wall clock.
 */
export const parseOffsetDateTime = (text: string): Result.Result<number, string> => parseInstant(text, true)

/**
 * The same date-time to the millisecond, where an instant is kept as given (the operator's clock,
 * a visitor event's timestamp): every form the booking routes take, where Date.parse refused a
 * comma fraction or a lower-case t.
 */
export const parseOffsetDateTimeExact = (text: string): Result.Result<number, string> => parseInstant(text, false)

const parseInstant = (text: string, toMinute: boolean): Result.Result<number, string> => {
  const m = OFFSET_DATE_TIME.exec(text)
  if (m === null) {
    return Result.fail(
      "must be an ISO 8601 date-time with an explicit offset (Z or ±hh:mm), " +
        "e.g. 2025-01-31T09:00:00+07:00",
    )
  }
  const year = Number(m[1])
  const month = Number(m[2])
  const day = Number(m[3])
  const hour = Number(m[4])
  const minute = Number(m[5])
  const second = m[6] === undefined ? 0 : Number(m[6])
  if (!isValidDate({ year, month, day })) return Result.fail("has an invalid calendar date")
  if (hour > 23 || minute > 59 || second > 59) return Result.fail("has an invalid time of day")
  const zone = m[8]!
  let offsetMinutes = 0
  if (zone !== "Z" && zone !== "z") {
    const oh = Number(zone.slice(1, 3))
    const om = Number(zone.slice(4, 6))
    if (oh > 23 || om > 59) return Result.fail("has an invalid offset")
    offsetMinutes = (zone[0] === "-" ? -1 : 1) * (oh * 60 + om)
  }
  const exact = toMinute ? 0 : second * 1000 + Math.floor(Number(`0.${m[7] ?? "0"}`) * 1000)
  const instant = utcMs(year, month, day, hour * 3600 + minute * 60) - offsetMinutes * 60_000 + exact
  // Years 0001-9999 in UTC: an offset can carry 0001-01-01 or 9999-12-31 outside them, where the
  // instant's ISO text (year 0000, or +010000) is no date PostgreSQL reads.
  if (!withinStoredYears(instant)) return Result.fail("must fall within the years 0001-9999 in UTC")
  return Result.succeed(instant)
}

/** Whether an instant lies in the years 0001-9999 in UTC, the only ones a date-time may name. */
export const withinStoredYears = (instant: number): boolean => instant >= FIRST_INSTANT && instant < END_INSTANT

const FIRST_INSTANT = utcMs(1, 1, 1)
const END_INSTANT = utcMs(10_000, 1, 1)
