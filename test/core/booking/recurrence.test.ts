import { Result } from "effect"
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import {
  currentOccurrence,
  expandOccurrences,
  formatRecurrenceRule,
  MAX_OCCURRENCES,
  occurrenceEventId,
  parseRecurrenceRule,
  type RecurrenceRule,
  untilBeyondCaps,
} from "../../../core/booking/recurrence.ts"
import { formatHHmm, wallClock } from "../../../core/shared/local-time.ts"

const MASTER = "aaaaaaaaaaaaaaaaaaaaaaa1"
const HOUR = 3_600_000
const rule = (text: string): RecurrenceRule => {
  const r = parseRecurrenceRule(text)
  if (Result.isFailure(r)) throw new Error(r.failure.join("; "))
  return r.success
}
const messages = (text: string): ReadonlyArray<string> => {
  const r = parseRecurrenceRule(text)
  return Result.isFailure(r) ? r.failure : []
}

describe("RRULE subset: parse and validate (400 SV001 messages)", () => {
  it("parses FREQ, INTERVAL, COUNT, BYDAY (with or without the RRULE: prefix)", () => {
    expect(rule("RRULE:FREQ=WEEKLY;INTERVAL=2;BYDAY=WE,MO;COUNT=10")).toEqual({
      freq: "WEEKLY",
      interval: 2,
      count: 10,
      byDay: ["Mon", "Wed"],
    })
    expect(rule("freq=daily;count=3")).toEqual({ freq: "DAILY", interval: 1, count: 3 })
  })

  it("parses UNTIL as a UTC date-time or a project-local date", () => {
    expect(rule("FREQ=DAILY;UNTIL=20250131T170000Z").until).toEqual({
      _tag: "Instant",
      at: Date.parse("2025-01-31T17:00:00Z"),
    })
    expect(rule("FREQ=DAILY;UNTIL=20250131").until).toEqual({
      _tag: "Date",
      date: { year: 2025, month: 1, day: 31 },
    })
  })

  it("refuses other frequencies and unsupported parts, one message each", () => {
    expect(messages("FREQ=MONTHLY;COUNT=2;BYMONTHDAY=1")).toEqual([
      "RRULE part BYMONTHDAY is not supported (FREQ, INTERVAL, COUNT, UNTIL, BYDAY)",
      "FREQ must be DAILY or WEEKLY",
    ])
  })

  it("requires exactly one of COUNT or UNTIL", () => {
    expect(messages("FREQ=DAILY")).toEqual(["RRULE needs COUNT or UNTIL"])
    expect(messages("FREQ=DAILY;COUNT=2;UNTIL=20250131")).toEqual([
      "COUNT and UNTIL must not both be given",
    ])
  })

  it("bounds COUNT by the 366-occurrence cap and INTERVAL to positive integers", () => {
    expect(messages("FREQ=DAILY;COUNT=367")).toEqual(["COUNT must be an integer between 1 and 366"])
    expect(messages("FREQ=DAILY;COUNT=0")).toHaveLength(1)
    expect(messages("FREQ=DAILY;COUNT=2;INTERVAL=0")).toHaveLength(1)
    expect(messages("FREQ=DAILY;COUNT=2;INTERVAL=x")).toHaveLength(1)
  })

  it("refuses BYDAY ordinals, bad UNTIL and repeated parts", () => {
    expect(messages("FREQ=WEEKLY;COUNT=2;BYDAY=1MO")).toHaveLength(1)
    expect(messages("FREQ=WEEKLY;UNTIL=20250230")).toHaveLength(1)
    expect(messages("FREQ=WEEKLY;FREQ=DAILY;COUNT=1")).toEqual(["RRULE part FREQ must appear once"])
    expect(messages("")).toHaveLength(1)
  })

  it("formats a parsed rule back to canonical text that parses to the same rule", () => {
    for (const text of [
      "FREQ=WEEKLY;INTERVAL=2;COUNT=10;BYDAY=MO,WE",
      "FREQ=DAILY;UNTIL=20250131T170000Z",
      "FREQ=DAILY;UNTIL=20250131;BYDAY=MO,TU,WE,TH,FR",
    ]) {
      expect(formatRecurrenceRule(rule(text))).toBe(text)
    }
  })
})

describe("expansion in the project timezone", () => {
  const TZ = "Asia/Bangkok"
  // Monday 2025-01-06 09:00-10:00 Bangkok
  const anchor = {
    start: Date.parse("2025-01-06T09:00:00+07:00"),
    end: Date.parse("2025-01-06T10:00:00+07:00"),
  }

  it("DAILY;COUNT=3 gives three consecutive days with stable occurrenceEventIds", () => {
    const occ = expandOccurrences({
      masterId: MASTER,
      rule: rule("FREQ=DAILY;COUNT=3"),
      anchor,
      timeZone: TZ,
    })
    expect(occ.map((o) => o.start)).toEqual([0, 1, 2].map((d) => anchor.start + d * 24 * HOUR))
    expect(occ[1]).toEqual({
      seriesMasterId: MASTER,
      occurrenceEventId: `${MASTER}_${anchor.start + 24 * HOUR}`,
      index: 1,
      start: anchor.start + 24 * HOUR,
      end: anchor.end + 24 * HOUR,
    })
  })

  it("WEEKLY;BYDAY=MO,WE,FR;COUNT=5 walks the week days in order", () => {
    const occ = expandOccurrences({
      masterId: MASTER,
      rule: rule("FREQ=WEEKLY;BYDAY=MO,WE,FR;COUNT=5"),
      anchor,
      timeZone: TZ,
    })
    expect(occ.map((o) => wallClock(o.start, TZ).day)).toEqual([6, 8, 10, 13, 15])
  })

  it("WEEKLY;INTERVAL=2 skips every other week", () => {
    const occ = expandOccurrences({
      masterId: MASTER,
      rule: rule("FREQ=WEEKLY;INTERVAL=2;BYDAY=MO,TU;COUNT=4"),
      anchor,
      timeZone: TZ,
    })
    expect(occ.map((o) => wallClock(o.start, TZ).day)).toEqual([6, 7, 20, 21])
  })

  it("DAILY with BYDAY filters to those weekdays (weekdays only)", () => {
    const occ = expandOccurrences({
      masterId: MASTER,
      rule: rule("FREQ=DAILY;BYDAY=MO,TU,WE,TH,FR;UNTIL=20250112"),
      anchor,
      timeZone: TZ,
    })
    expect(occ.map((o) => wallClock(o.start, TZ).weekday)).toEqual([
      "Mon",
      "Tue",
      "Wed",
      "Thu",
      "Fri",
    ])
  })

  it("the first occurrence is the anchor even when it is off BYDAY (RFC 5545 DTSTART)", () => {
    const occ = expandOccurrences({
      masterId: MASTER,
      rule: rule("FREQ=WEEKLY;BYDAY=TU;COUNT=2"),
      anchor,
      timeZone: TZ,
    })
    expect(occ.map((o) => wallClock(o.start, TZ).weekday)).toEqual(["Mon", "Tue"])
  })

  it("UNTIL as an instant is inclusive of an occurrence starting exactly then", () => {
    const until = new Date(anchor.start + 2 * 24 * HOUR).toISOString().replace(/[-:]|\.\d+/g, "")
    const occ = expandOccurrences({
      masterId: MASTER,
      rule: rule(`FREQ=DAILY;UNTIL=${until}`),
      anchor,
      timeZone: TZ,
    })
    expect(occ).toHaveLength(3)
  })

  it("rule 7: only occurrences overlapping the window, with real (untruncated) start and end", () => {
    const all = expandOccurrences({
      masterId: MASTER,
      rule: rule("FREQ=DAILY;COUNT=10"),
      anchor,
      timeZone: TZ,
    })
    const window = { start: all[3]!.start + 30 * 60_000, end: all[5]!.start }
    const some = expandOccurrences({
      masterId: MASTER,
      rule: rule("FREQ=DAILY;COUNT=10"),
      anchor,
      timeZone: TZ,
      window,
    })
    expect(some).toEqual([all[3], all[4]])
  })

  it("a series without COUNT limit stops at the one-year / 366-occurrence cap", () => {
    const occ = expandOccurrences({
      masterId: MASTER,
      rule: rule("FREQ=DAILY;UNTIL=20301231"),
      anchor,
      timeZone: TZ,
    })
    expect(occ).toHaveLength(MAX_OCCURRENCES)
    const weekly = expandOccurrences({
      masterId: MASTER,
      rule: rule("FREQ=WEEKLY;UNTIL=20301231"),
      anchor,
      timeZone: TZ,
    })
    expect(weekly).toHaveLength(53) // 366 days from Monday 2025-01-06 hold 53 Mondays
  })

  it("an UNTIL past the caps is told apart from one within them (the cap would cut it short)", () => {
    const at = anchor.start
    expect(untilBeyondCaps(rule("FREQ=DAILY;UNTIL=20301231"), at, TZ)).toBe(true)
    expect(untilBeyondCaps(rule("FREQ=WEEKLY;UNTIL=20301231"), at, TZ)).toBe(true)
    // The last day inside the cap is day 365 after the first (Monday 2025-01-06): 2026-01-06.
    expect(untilBeyondCaps(rule("FREQ=DAILY;UNTIL=20260106"), at, TZ)).toBe(false)
    expect(untilBeyondCaps(rule("FREQ=DAILY;UNTIL=20260107"), at, TZ)).toBe(true)
    expect(untilBeyondCaps(rule("FREQ=WEEKLY;INTERVAL=52;UNTIL=20260104"), at, TZ)).toBe(false)
    expect(untilBeyondCaps(rule("FREQ=DAILY;COUNT=366"), at, TZ)).toBe(false)
  })

  it("wall-clock start is preserved across DST (09:00 London before and after the change)", () => {
    const london = {
      start: Date.parse("2025-03-27T09:00:00Z"),
      end: Date.parse("2025-03-27T10:00:00Z"),
    }
    const occ = expandOccurrences({
      masterId: MASTER,
      rule: rule("FREQ=DAILY;COUNT=6"),
      anchor: london,
      timeZone: "Europe/London",
    })
    expect(occ.map((o) => formatHHmm(o.start, "Europe/London"))).toEqual(Array(6).fill("09:00"))
    expect(occ[5]!.start - occ[0]!.start).toBe(5 * 24 * HOUR - HOUR)
    expect(occ.every((o) => o.end - o.start === HOUR)).toBe(true)
  })

  it("rule 7: the master shows the current occurrence (first not yet ended), rolling forward", () => {
    const input = { masterId: MASTER, rule: rule("FREQ=DAILY;COUNT=3"), anchor, timeZone: TZ }
    expect(currentOccurrence(input, anchor.start - HOUR)?.index).toBe(0)
    expect(currentOccurrence(input, anchor.end - 1)?.index).toBe(0)
    expect(currentOccurrence(input, anchor.end)?.index).toBe(1)
    expect(currentOccurrence(input, anchor.end + 3 * 24 * HOUR)).toBeUndefined()
  })

  it("occurrenceEventId is master id + start epoch ms", () => {
    expect(occurrenceEventId(MASTER, 1_700_000_000_000)).toBe(`${MASTER}_1700000000000`)
  })
})

describe("expansion properties", () => {
  const ZONES = ["Asia/Bangkok", "Europe/London", "America/New_York", "Australia/Lord_Howe"]
  const ruleArb = fc
    .record({
      freq: fc.constantFrom("DAILY", "WEEKLY"),
      interval: fc.integer({ min: 1, max: 3 }),
      count: fc.integer({ min: 1, max: 40 }),
      byDay: fc.option(fc.subarray(["MO", "TU", "WE", "TH", "FR", "SA", "SU"], { minLength: 1 }), {
        nil: undefined,
      }),
    })
    .map(
      (r) =>
        `FREQ=${r.freq};INTERVAL=${r.interval};COUNT=${r.count}` +
        (r.byDay === undefined ? "" : `;BYDAY=${r.byDay.join(",")}`),
    )
  const anchorArb = fc
    .tuple(
      fc.integer({
        min: Date.parse("2024-01-01T00:00:00Z"),
        max: Date.parse("2026-01-01T00:00:00Z"),
      }),
      fc.integer({ min: 1, max: 8 }),
    )
    .map(([s, q]) => {
      const start = Math.floor(s / 900_000) * 900_000
      return { start, end: start + q * 900_000 }
    })

  it("property: strictly increasing starts, unique ids, at most COUNT, wall clock kept", () => {
    fc.assert(
      fc.property(ruleArb, anchorArb, fc.constantFrom(...ZONES), (text, anchor, tz) => {
        const r = rule(text)
        const occ = expandOccurrences({ masterId: MASTER, rule: r, anchor, timeZone: tz })
        expect(occ.length).toBeGreaterThan(0)
        expect(occ.length).toBeLessThanOrEqual(r.count!)
        expect(occ[0]!.start).toBe(anchor.start)
        expect(new Set(occ.map((o) => o.occurrenceEventId)).size).toBe(occ.length)
        const anchorClock = formatHHmm(anchor.start, tz)
        for (let i = 0; i < occ.length; i++) {
          expect(occ[i]!.index).toBe(i)
          expect(occ[i]!.end - occ[i]!.start).toBe(anchor.end - anchor.start)
          if (i > 0) expect(occ[i]!.start).toBeGreaterThan(occ[i - 1]!.start)
          // Equal unless the anchor's time falls in a DST gap on that day (then shifted).
          const clock = formatHHmm(occ[i]!.start, tz)
          if (clock !== anchorClock)
            expect(["Europe/London", "America/New_York", "Australia/Lord_Howe"]).toContain(tz)
        }
      }),
    )
  })

  it("property: a windowed expansion is exactly the full expansion filtered by overlap", () => {
    fc.assert(
      fc.property(
        ruleArb,
        anchorArb,
        fc.integer({ min: -5, max: 60 }),
        fc.integer({ min: 0, max: 20 }),
        (text, anchor, fromDays, lenDays) => {
          const base = { masterId: MASTER, rule: rule(text), anchor, timeZone: "Asia/Bangkok" }
          const window = {
            start: anchor.start + fromDays * 24 * HOUR,
            end: anchor.start + (fromDays + lenDays) * 24 * HOUR + 7 * 60_000,
          }
          const all = expandOccurrences(base)
          const expected = all.filter((o) => o.start < window.end && window.start < o.end)
          expect(expandOccurrences({ ...base, window })).toEqual(expected)
        },
      ),
    )
  })
})
