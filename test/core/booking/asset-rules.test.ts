import { Result } from "effect"
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import type { AssetConfig } from "../../../core/booking/asset-config.ts"
import {
  assetRuleViolations,
  hoursOn,
  resolveTimePeriod,
  searchVerdict,
  unavailableReason,
} from "../../../core/booking/asset-rules.ts"

const TZ = "Asia/Bangkok"
/** Bangkok wall clock -> epoch ms. 2025-01-06 is a Monday. */
const at = (local: string) => Date.parse(`${local}:00+07:00`)
const NOW = at("2025-01-01T08:00")

const week: AssetConfig = {
  dayConfig: {
    Mon: {
      availableTime: { start: "08:00:00", end: "18:00:00" },
      breakTimes: [{ start: "12:00:00", end: "13:00:00" }],
    },
    Tue: { availableTime: { start: "08:00:00", end: "18:00:00" } },
    Wed: { availableTime: { start: "08:00:00", end: "23:59:59" } },
    Thu: { availableTime: { start: "00:00:00", end: "23:59:59" } },
    Fri: { availableTime: { start: "13:00:00", end: "18:00:00" } },
  },
}

const violations = (config: AssetConfig | undefined, start: string, end: string, now = NOW) =>
  assetRuleViolations(config, TZ, at(start), at(end), now, "room")

describe("Meetings rule 2: inside dayConfig operating hours", () => {
  it("a booking inside the weekday's hours is bookable", () => {
    expect(violations(week, "2025-01-06T09:00", "2025-01-06T11:00")).toEqual([])
  })

  it("a booking touching opening and closing exactly is bookable (half-open)", () => {
    expect(violations(week, "2025-01-07T08:00", "2025-01-07T18:00")).toEqual([])
  })

  it("a booking starting before opening violates operating hours", () => {
    expect(violations(week, "2025-01-06T07:30", "2025-01-06T09:00")).toEqual([
      "the booking must be within the room's operating hours (Mon 08:00-18:00)",
    ])
  })

  it("a booking ending after closing violates operating hours", () => {
    expect(violations(week, "2025-01-07T17:00", "2025-01-07T18:30")).toHaveLength(1)
  })

  it("a missing day means not bookable that day", () => {
    expect(violations(week, "2025-01-11T09:00", "2025-01-11T10:00")).toEqual([
      "the room is not bookable on Sat 2025-01-11 (closed)",
    ])
  })

  it("hours are read in the project timezone, not UTC", () => {
    // 09:00 Bangkok on Monday is 02:00Z Monday; 06:00 Bangkok Tuesday is 23:00Z Monday.
    expect(violations(week, "2025-01-07T06:00", "2025-01-07T07:00")).toHaveLength(1)
  })

  it("an end of 23:59:59 means until midnight", () => {
    expect(violations(week, "2025-01-08T22:00", "2025-01-09T00:00")).toEqual([])
  })

  it("no dayConfig: the legacy start/end apply every day", () => {
    const legacy: AssetConfig = { start: "09:00:00", end: "17:00:00" }
    expect(violations(legacy, "2025-01-11T09:00", "2025-01-11T17:00")).toEqual([])
    expect(violations(legacy, "2025-01-11T08:00", "2025-01-11T10:00")).toHaveLength(1)
  })

  it("no hours at all: always open", () => {
    expect(violations({}, "2025-01-11T01:00", "2025-01-11T03:00")).toEqual([])
    expect(violations(undefined, "2025-01-11T01:00", "2025-01-11T03:00")).toEqual([])
    expect(hoursOn({}, "Sun")).toEqual({ _tag: "AlwaysOpen" })
  })

  it("an empty dayConfig closes every day (dayConfig is the source of truth)", () => {
    expect(hoursOn({ dayConfig: {}, start: "08:00:00" }, "Mon")).toEqual({ _tag: "Closed" })
  })
})

describe("Meetings rule 2: outside breakTimes", () => {
  it("a booking overlapping a break is blocked", () => {
    expect(violations(week, "2025-01-06T11:30", "2025-01-06T12:30")).toEqual([
      "the booking must not overlap the break time Mon 12:00-13:00",
    ])
  })

  it("a booking ending when the break starts is fine (half-open)", () => {
    expect(violations(week, "2025-01-06T11:00", "2025-01-06T12:00")).toEqual([])
    expect(violations(week, "2025-01-06T13:00", "2025-01-06T14:00")).toEqual([])
  })
})

describe("Meetings rule 2 on a day the clock springs forward: an hour bound the clock skips falls on the jump", () => {
  // New York, Sunday 2030-03-10: the clock goes from 02:00 EST to 03:00 EDT (07:00Z).
  const NY = "America/New_York"
  const sunday = (hours: { start: string; end: string }, breaks?: Array<{ start: string; end: string }>): AssetConfig => ({
    dayConfig: { Sun: { availableTime: hours, ...(breaks === undefined ? {} : { breakTimes: breaks }) } },
  })
  const ny = (config: AssetConfig, start: string, end: string) =>
    assetRuleViolations(config, NY, Date.parse(start), Date.parse(end), Date.parse("2030-01-07T00:00:00Z"), "room")

  it("closing at 02:30 closes at the jump: 03:00-03:30 EDT is after closing", () => {
    expect(ny(sunday({ start: "00:00:00", end: "02:30:00" }), "2030-03-10T03:00:00-04:00", "2030-03-10T03:30:00-04:00")).toEqual([
      "the booking must be within the room's operating hours (Sun 00:00-02:30)",
    ])
    expect(ny(sunday({ start: "00:00:00", end: "02:30:00" }), "2030-03-10T01:00:00-05:00", "2030-03-10T03:00:00-04:00")).toEqual([])
  })

  it("opening at 02:30 opens at the jump: 03:00-03:30 EDT is inside the hours", () => {
    expect(ny(sunday({ start: "02:30:00", end: "23:59:59" }), "2030-03-10T03:00:00-04:00", "2030-03-10T03:30:00-04:00")).toEqual([])
  })

  it("a break wholly inside the skipped hour takes no time", () => {
    const config = sunday({ start: "00:00:00", end: "23:59:59" }, [{ start: "02:15:00", end: "02:45:00" }])
    expect(ny(config, "2030-03-10T03:00:00-04:00", "2030-03-10T03:45:00-04:00")).toEqual([])
    expect(unavailableReason(config, NY, Date.parse("2030-03-10T03:00:00-04:00"), Date.parse("2030-03-10T03:30:00-04:00"))).toBeUndefined()
  })

  it("a desk's allDay period opens at the jump (London, 01:30 on 2030-03-31, whose clock goes from 01:00 to 02:00)", () => {
    const desk: AssetConfig = { dayConfig: { Sun: { availableTime: { start: "01:30:00", end: "06:00:00" } } } }
    expect(resolveTimePeriod(desk, "Europe/London", Date.parse("2030-03-31T00:00:00Z"), "allDay")).toEqual(
      Result.succeed({ start: Date.parse("2030-03-31T02:00:00+01:00"), end: Date.parse("2030-03-31T06:00:00+01:00") }),
    )
  })
})

describe("Meetings rule 2: minimumLeadTime, maxAdvanceBookingDays, maxDurationMinutes", () => {
  const now = at("2025-01-06T09:00")

  it("start earlier than now + minimumLeadTime is refused", () => {
    const config: AssetConfig = { minimumLeadTime: { hours: 1, minutes: 30 } }
    expect(violations(config, "2025-01-06T10:29", "2025-01-06T11:00", now)).toEqual([
      "startDateTime must be at least 90 minutes from now (minimumLeadTime)",
    ])
    expect(violations(config, "2025-01-06T10:30", "2025-01-06T11:00", now)).toEqual([])
  })

  it("without a lead time a start in the past is refused, but the current minute is allowed", () => {
    expect(violations({}, "2025-01-06T08:59", "2025-01-06T10:00", now)).toEqual([
      "startDateTime must not be in the past",
    ])
    expect(violations({}, "2025-01-06T09:00", "2025-01-06T10:00", now + 45_000)).toEqual([])
  })

  it("start more than maxAdvanceBookingDays calendar days ahead is refused", () => {
    const config: AssetConfig = { maxAdvanceBookingDays: 7 }
    expect(violations(config, "2025-01-13T23:00", "2025-01-13T23:30", now)).toEqual([])
    expect(violations(config, "2025-01-14T00:00", "2025-01-14T01:00", now)).toEqual([
      "startDateTime must be within 7 days from today (maxAdvanceBookingDays)",
    ])
  })

  it("a booking longer than maxDurationMinutes is refused", () => {
    const config: AssetConfig = { maxDurationMinutes: 120 }
    expect(violations(config, "2025-01-06T10:00", "2025-01-06T12:00", now)).toEqual([])
    expect(violations(config, "2025-01-06T10:00", "2025-01-06T12:01", now)).toEqual([
      "the booking must not be longer than 120 minutes (maxDurationMinutes)",
    ])
  })

  it("startUnchanged skips lead time and advance window (extending a started booking)", () => {
    const config: AssetConfig = { minimumLeadTime: { hours: 1 }, maxAdvanceBookingDays: 0 }
    const r = assetRuleViolations(
      config,
      TZ,
      at("2025-01-06T08:00"),
      at("2025-01-06T10:00"),
      now,
      "room",
      {
        startUnchanged: true,
      },
    )
    expect(r).toEqual([])
  })

  it("every violated rule gets its own message", () => {
    const config: AssetConfig = { ...week, maxDurationMinutes: 30, minimumLeadTime: { days: 1 } }
    expect(violations(config, "2025-01-06T11:00", "2025-01-06T19:00", now)).toHaveLength(4)
  })

  it("end must be after start", () => {
    expect(violations({}, "2025-01-06T10:00", "2025-01-06T10:00", now)).toEqual([
      "endDateTime must be after startDateTime",
    ])
  })
})

describe("multi-day bookings", () => {
  const allWeek: AssetConfig = {
    dayConfig: Object.fromEntries(
      ["Mon", "Tue", "Wed", "Thu", "Fri"].map((d) => [
        d,
        {
          availableTime: { start: "08:00:00", end: "18:00:00" },
          breakTimes: [{ start: "12:00:00", end: "13:00:00" }],
        },
      ]),
    ),
  }

  it("a booking spanning days is refused unless bookMultipleDayRoom", () => {
    expect(violations(allWeek, "2025-01-06T14:00", "2025-01-07T10:00")).toEqual([
      "the room cannot be booked across several days",
    ])
  })

  it("with bookMultipleDayRoom: start in the first day's hours, end in the last day's", () => {
    const config = { ...allWeek, bookMultipleDayRoom: true }
    expect(violations(config, "2025-01-06T14:00", "2025-01-08T11:00")).toEqual([])
    expect(violations(config, "2025-01-06T07:00", "2025-01-07T10:00")).toContain(
      "the booking must be within the room's operating hours (Mon 08:00-18:00)",
    )
    expect(violations(config, "2025-01-06T14:00", "2025-01-07T19:00")).toContain(
      "the booking must be within the room's operating hours (Tue 08:00-18:00)",
    )
  })

  it("with bookMultipleDayRoom: every day touched must be open", () => {
    const config = { ...allWeek, bookMultipleDayRoom: true }
    expect(violations(config, "2025-01-10T14:00", "2025-01-13T10:00")).toEqual([
      "the room is not bookable on Sat 2025-01-11 (closed)",
    ])
  })

  it("with bookMultipleDayRoom: breaks count only on the first day's tail and last day's head", () => {
    const config = { ...allWeek, bookMultipleDayRoom: true }
    // Tuesday's lunch break is crossed by the held room: not a violation.
    expect(violations(config, "2025-01-06T14:00", "2025-01-08T11:00")).toEqual([])
    expect(violations(config, "2025-01-06T11:00", "2025-01-07T10:00")).toEqual([
      "the booking must not overlap the break time Mon 12:00-13:00",
    ])
  })

  it("ending at midnight is still a one-day booking", () => {
    expect(violations({}, "2025-01-06T20:00", "2025-01-07T00:00")).toEqual([])
  })
})

describe("availability search: unavailableReason", () => {
  it("OPERATING_HOURS outside hours or on a closed day", () => {
    expect(unavailableReason(week, TZ, at("2025-01-06T07:00"), at("2025-01-06T09:00"))).toBe(
      "OPERATING_HOURS",
    )
    expect(unavailableReason(week, TZ, at("2025-01-12T09:00"), at("2025-01-12T10:00"))).toBe(
      "OPERATING_HOURS",
    )
  })

  it("BREAK_TIME when inside hours but over a break", () => {
    expect(unavailableReason(week, TZ, at("2025-01-06T11:00"), at("2025-01-06T14:00"))).toBe(
      "BREAK_TIME",
    )
  })

  it("absent when bookable", () => {
    expect(unavailableReason(week, TZ, at("2025-01-06T09:00"), at("2025-01-06T10:00"))).toBe(
      undefined,
    )
  })
})

describe("Desks rule: timePeriod resolved against the desk's operating hours", () => {
  const desk: AssetConfig = {
    dayConfig: {
      Mon: { availableTime: { start: "08:00:00", end: "18:00:00" } },
      Tue: { availableTime: { start: "13:00:00", end: "18:00:00" } },
      Wed: { availableTime: { start: "08:00:00", end: "11:00:00" } },
    },
  }
  const period = (start: string, p: "morning" | "afternoon" | "allDay", c = desk) =>
    resolveTimePeriod(c, TZ, at(start), p)
  const span = (s: string, e: string) => Result.succeed({ start: at(s), end: at(e) })

  it("morning = opening..12:00, afternoon = 12:00..closing, allDay = opening..closing", () => {
    expect(period("2025-01-06T00:00", "morning")).toEqual(
      span("2025-01-06T08:00", "2025-01-06T12:00"),
    )
    expect(period("2025-01-06T00:00", "afternoon")).toEqual(
      span("2025-01-06T12:00", "2025-01-06T18:00"),
    )
    expect(period("2025-01-06T00:00", "allDay")).toEqual(
      span("2025-01-06T08:00", "2025-01-06T18:00"),
    )
  })

  it("a start inside the period books the rest of it", () => {
    expect(period("2025-01-06T10:15", "morning")).toEqual(
      span("2025-01-06T10:15", "2025-01-06T12:00"),
    )
  })

  it("a start at or after the period's end is refused", () => {
    expect(Result.isFailure(period("2025-01-06T12:00", "morning"))).toBe(true)
  })

  it("hours not straddling noon clamp the period; an empty period is refused", () => {
    expect(Result.isFailure(period("2025-01-07T00:00", "morning"))).toBe(true)
    expect(period("2025-01-07T00:00", "afternoon")).toEqual(
      span("2025-01-07T13:00", "2025-01-07T18:00"),
    )
    expect(period("2025-01-08T00:00", "morning")).toEqual(
      span("2025-01-08T08:00", "2025-01-08T11:00"),
    )
    expect(Result.isFailure(period("2025-01-08T00:00", "afternoon"))).toBe(true)
  })

  it("a closed day is refused", () => {
    expect(period("2025-01-11T00:00", "allDay")).toEqual(
      Result.fail("the desk is not bookable on Sat 2025-01-11 (closed)"),
    )
  })

  it("an always-open desk: morning 00:00-12:00, afternoon 12:00-24:00", () => {
    expect(period("2025-01-11T00:00", "afternoon", {})).toEqual(
      span("2025-01-11T12:00", "2025-01-12T00:00"),
    )
  })
})

describe("properties", () => {
  it("property: any same-day slot inside the hours with no other limits has no violations", () => {
    const config: AssetConfig = { dayConfig: week.dayConfig!, maxDurationMinutes: 600 }
    fc.assert(
      fc.property(
        fc.integer({ min: 8 * 4, max: 18 * 4 - 1 }),
        fc.integer({ min: 1, max: 40 }),
        (startQ, lenQ) => {
          const start = at("2025-01-07T00:00") + startQ * 15 * 60_000
          const end = Math.min(start + lenQ * 15 * 60_000, at("2025-01-07T18:00"))
          expect(assetRuleViolations(config, TZ, start, end, NOW, "room")).toEqual([])
        },
      ),
    )
  })

  it("property: unavailableReason is set exactly when an hours or break rule is violated", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 7 * 96 }),
        fc.integer({ min: 1, max: 48 }),
        (startQ, lenQ) => {
          const start = at("2025-01-06T00:00") + startQ * 15 * 60_000
          const end = start + lenQ * 15 * 60_000
          const config = { ...week, bookMultipleDayRoom: true }
          const messages = assetRuleViolations(config, TZ, start, end, NOW, "room")
          const reason = unavailableReason(config, TZ, start, end)
          expect(reason !== undefined).toBe(messages.length > 0)
        },
      ),
    )
  })
})

describe("availability search verdict (issue 14.3): offered only when create's rules pass", () => {
  const verdict = (kind: "room" | "desk", status: string, start: string, end: string, config: AssetConfig = week) =>
    searchVerdict(config, TZ, at(start), at(end), NOW, kind, status)

  it("a property: offered without a reason exactly when the status and every asset rule allow the booking", () => {
    const hours = fc.integer({ min: -48, max: 24 * 12 })
    fc.assert(
      fc.property(fc.constantFrom("room", "desk"), fc.constantFrom("active", "inactive", "suspended", "reserved"), hours, fc.integer({ min: 1, max: 30 * 60 }), (kind, status, startHour, minutes) => {
        const start = NOW + startHour * 3_600_000
        const end = start + minutes * 60_000
        const config: AssetConfig = { ...week, maxDurationMinutes: 240, maxAdvanceBookingDays: 7, minimumLeadTime: { hours: 1 } }
        const v = searchVerdict(config, TZ, start, end, NOW, kind, status)
        const statusOk = kind === "room" ? status === "active" : !["inactive", "suspended"].includes(status)
        const bookable = statusOk && assetRuleViolations(config, TZ, start, end, NOW, kind).length === 0
        expect(v._tag === "Offered" && v.reason === undefined).toBe(bookable)
        if (kind === "desk") expect(v._tag === "Offered" && v.reason !== undefined).toBe(false)
      }),
    )
  })

  it("rooms outside hours or in a break keep the spec's reason; a broken rule without a reason leaves them out", () => {
    expect(verdict("room", "active", "2025-01-06T19:00", "2025-01-06T20:00")).toEqual({ _tag: "Offered", reason: "OPERATING_HOURS" })
    expect(verdict("room", "active", "2025-01-06T12:00", "2025-01-06T12:30")).toEqual({ _tag: "Offered", reason: "BREAK_TIME" })
    expect(verdict("room", "inactive", "2025-01-06T09:00", "2025-01-06T10:00")).toEqual({ _tag: "LeftOut" })
    // In the past (NOW is 2025-01-01 08:00).
    expect(verdict("room", "active", "2024-12-31T09:00", "2024-12-31T10:00")).toEqual({ _tag: "LeftOut" })
    expect(verdict("room", "active", "2025-01-06T09:00", "2025-01-06T11:00", { ...week, maxDurationMinutes: 60 })).toEqual({ _tag: "LeftOut" })
    expect(verdict("desk", "active", "2025-01-06T19:00", "2025-01-06T20:00")).toEqual({ _tag: "LeftOut" })
    expect(verdict("desk", "reserved", "2025-01-06T09:00", "2025-01-06T10:00")).toEqual({ _tag: "Offered" })
  })
})
