import { Result, Schema } from "effect"
import { parseTimeOfDay, TIME_OF_DAY_PATTERN } from "../shared/local-time.ts"

/**
 * AssetConfig of a meeting room or desk, exactly as the spec's table. Times are
 * property-local wall-clock "HH:mm:ss" (spec convention 4).
 */

export const TimeOfDay = Schema.String.check(
  Schema.isPattern(TIME_OF_DAY_PATTERN, { message: "must be a time of day formatted HH:mm:ss" }),
)

/** {start, end}; end must be later than start on the same day (no overnight ranges). */
export const TimeRange = Schema.Struct({ start: TimeOfDay, end: TimeOfDay }).check(
  Schema.makeFilter((range) => {
    const start = parseTimeOfDay(range.start)
    const end = parseTimeOfDay(range.end)
    return start === undefined || end === undefined || end > start
      ? undefined
      : { path: ["end"], issue: "must be later than start" }
  }),
)
export type TimeRange = typeof TimeRange.Type

export const DayConfig = Schema.Struct({
  availableTime: TimeRange,
  breakTimes: Schema.optionalKey(Schema.Array(TimeRange)),
})
export type DayConfig = typeof DayConfig.Type

/** A missing key means the asset is not bookable on that weekday. */
export const WeekConfig = Schema.Struct({
  Mon: Schema.optionalKey(DayConfig),
  Tue: Schema.optionalKey(DayConfig),
  Wed: Schema.optionalKey(DayConfig),
  Thu: Schema.optionalKey(DayConfig),
  Fri: Schema.optionalKey(DayConfig),
  Sat: Schema.optionalKey(DayConfig),
  Sun: Schema.optionalKey(DayConfig),
})
export type WeekConfig = typeof WeekConfig.Type

const NonNegativeInt = Schema.Int.check(
  Schema.isGreaterThanOrEqualTo(0, { message: "must be an integer >= 0" }),
)

/** A scheduler tick offset in minutes; -1 disables the tick. */
const TickMinutes = Schema.Int.check(
  Schema.isGreaterThanOrEqualTo(-1, { message: "must be an integer >= 0, or -1 to disable" }),
)

/** Missing parts of the lead time count as 0. */
export const MinimumLeadTime = Schema.Struct({
  minutes: Schema.optionalKey(NonNegativeInt),
  hours: Schema.optionalKey(NonNegativeInt),
  days: Schema.optionalKey(NonNegativeInt),
})
export type MinimumLeadTime = typeof MinimumLeadTime.Type

export const MeetingConfig = Schema.Struct({
  preStartMinutes: Schema.optionalKey(TickMinutes),
  postStartWarnMinutes: Schema.optionalKey(TickMinutes),
  postStartExpireMinutes: Schema.optionalKey(TickMinutes),
  preEndMinutes: Schema.optionalKey(TickMinutes),
})
export type MeetingConfig = typeof MeetingConfig.Type

export const AssetConfig = Schema.Struct({
  dayConfig: Schema.optionalKey(WeekConfig),
  start: Schema.optionalKey(TimeOfDay),
  end: Schema.optionalKey(TimeOfDay),
  minimumLeadTime: Schema.optionalKey(MinimumLeadTime),
  maxAdvanceBookingDays: Schema.optionalKey(NonNegativeInt),
  maxDurationMinutes: Schema.optionalKey(
    Schema.Int.check(Schema.isGreaterThanOrEqualTo(1, { message: "must be an integer >= 1" })),
  ),
  bookMultipleDayRoom: Schema.optionalKey(Schema.Boolean),
  meetingConfig: Schema.optionalKey(MeetingConfig),
}).check(
  Schema.makeFilter((config) => {
    const start = config.start === undefined ? undefined : parseTimeOfDay(config.start)
    const end = config.end === undefined ? undefined : parseTimeOfDay(config.end)
    return start === undefined || end === undefined || end > start
      ? undefined
      : { path: ["end"], issue: "must be later than start" }
  }),
)
export type AssetConfig = typeof AssetConfig.Type

export const decodeAssetConfig = Schema.decodeUnknownResult(AssetConfig)

/** meetingConfig with every tick resolved; -1 still means "disabled". */
export interface ResolvedMeetingConfig {
  readonly preStartMinutes: number
  readonly postStartWarnMinutes: number
  readonly postStartExpireMinutes: number
  readonly preEndMinutes: number
}

export const MEETING_CONFIG_DEFAULTS: ResolvedMeetingConfig = {
  preStartMinutes: 15,
  postStartWarnMinutes: 10,
  postStartExpireMinutes: 15,
  preEndMinutes: 15,
}

export const resolveMeetingConfig = (config: AssetConfig | undefined): ResolvedMeetingConfig => {
  const m = config?.meetingConfig
  return {
    preStartMinutes: m?.preStartMinutes ?? MEETING_CONFIG_DEFAULTS.preStartMinutes,
    postStartWarnMinutes: m?.postStartWarnMinutes ?? MEETING_CONFIG_DEFAULTS.postStartWarnMinutes,
    postStartExpireMinutes:
      m?.postStartExpireMinutes ?? MEETING_CONFIG_DEFAULTS.postStartExpireMinutes,
    preEndMinutes: m?.preEndMinutes ?? MEETING_CONFIG_DEFAULTS.preEndMinutes,
  }
}

/** The ticks' timings a stored (undecoded) asset config gives: an unreadable config has the defaults. */
export const meetingTimingsOf = (raw: unknown): ResolvedMeetingConfig => {
  const decoded = decodeAssetConfig(raw ?? {})
  return resolveMeetingConfig(Result.isSuccess(decoded) ? decoded.success : undefined)
}

/**
 * Whether replacing a stored asset config by another moves any tick of its bookings (spec
 * "Scheduler ticks": timings come from the asset's meetingConfig): their ticks are then planned again.
 */
export const retimes = (before: unknown, after: unknown): boolean => {
  const a = meetingTimingsOf(before)
  const b = meetingTimingsOf(after)
  return (Object.keys(MEETING_CONFIG_DEFAULTS) as Array<keyof ResolvedMeetingConfig>).some((key) => a[key] !== b[key])
}

/** Minimum lead time in milliseconds; a day counts as 24 hours. */
export const leadTimeMs = (config: AssetConfig | undefined): number => {
  const lead = config?.minimumLeadTime
  if (lead === undefined) return 0
  return ((lead.days ?? 0) * 1440 + (lead.hours ?? 0) * 60 + (lead.minutes ?? 0)) * 60_000
}
