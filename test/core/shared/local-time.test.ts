import { Result } from "effect"
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import {
  addDays,
  formatHHmm,
  fromEpochDay,
  isValidDate,
  toEpochDay,
  formatLocalDate,
  formatOffsetDateTime,
  formatOffsetDateTimeByParts,
  boundaryAt,
  instantAt,
  isValidTimeZone,
  localDateOf,
  offsetMsAt,
  type LocalDate,
  parseOffsetDateTime,
  parseTimeOfDay,
  truncateToMinute,
  wallClock,
  weekdayOf,
} from "../../../core/shared/local-time.ts"

const iso = (s: string) => Date.parse(s)
const ZONES = ["Asia/Bangkok", "Europe/London", "America/New_York", "Australia/Lord_Howe", "UTC"]

describe("wall clock of an instant in an IANA zone", () => {
  it("gives weekday, date and HH:mm in the project timezone", () => {
    const t = iso("2025-01-05T20:30:00Z") // Sunday in UTC, Monday 03:30 in Bangkok
    const w = wallClock(t, "Asia/Bangkok")
    expect(w).toMatchObject({ year: 2025, month: 1, day: 6, hour: 3, minute: 30, weekday: "Mon" })
    expect(formatHHmm(t, "Asia/Bangkok")).toBe("03:30")
    expect(formatLocalDate(localDateOf(t, "Asia/Bangkok"))).toBe("2025-01-06")
  })

  it("midnight prints as 00:00 (h23 cycle, never 24:00)", () => {
    expect(formatHHmm(iso("2025-01-05T17:00:00Z"), "Asia/Bangkok")).toBe("00:00")
  })

  it("weekdays of civil dates and date arithmetic across month and leap day", () => {
    expect(weekdayOf({ year: 1970, month: 1, day: 1 })).toBe("Thu")
    expect(weekdayOf({ year: 2024, month: 2, day: 29 })).toBe("Thu")
    expect(addDays({ year: 2024, month: 2, day: 28 }, 2)).toEqual({ year: 2024, month: 3, day: 1 })
  })

  it("property: civil dates by arithmetic agree with the proleptic Gregorian calendar of Date", () => {
    const DAY = 86_400_000
    // Date's whole range (±100,000,000 days around 1970).
    fc.assert(
      fc.property(fc.integer({ min: -100_000_000, max: 100_000_000 }), (n) => {
        const d = new Date(n * DAY)
        const date = { year: d.getUTCFullYear(), month: d.getUTCMonth() + 1, day: d.getUTCDate() }
        expect(fromEpochDay(n)).toEqual(date)
        expect(toEpochDay(date)).toBe(n)
      }),
      { numRuns: 5000 },
    )
  })

  it("property: a date is valid exactly when Date reads the same year, month and day back", () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 9999 }), fc.integer({ min: -1, max: 14 }), fc.integer({ min: -1, max: 33 }), (year, month, day) => {
        const d = new Date(0)
        d.setUTCFullYear(year, month - 1, day)
        const same = d.getUTCFullYear() === year && d.getUTCMonth() + 1 === month && d.getUTCDate() === day
        expect(isValidDate({ year, month, day })).toBe(same)
      }),
      { numRuns: 5000 },
    )
    expect(isValidDate({ year: 2024, month: 2.5, day: 1 })).toBe(false)
    // The century rule, which random dates almost never reach.
    expect(isValidDate({ year: 1900, month: 2, day: 29 })).toBe(false)
    expect(isValidDate({ year: 2100, month: 2, day: 29 })).toBe(false)
    expect(isValidDate({ year: 2000, month: 2, day: 29 })).toBe(true)
    expect(isValidDate({ year: 0, month: 2, day: 29 })).toBe(true)
  })

  it("knows valid and invalid zone names", () => {
    expect(isValidTimeZone("Asia/Bangkok")).toBe(true)
    expect(isValidTimeZone("Mars/Olympus")).toBe(false)
  })

  it("a time zone is an IANA name every runtime reads: offsets and the retired SystemV zones are not", () => {
    for (const name of ["UTC", "Etc/GMT-7", "EST5EDT", "Asia/Calcutta", "America/Argentina/Buenos_Aires", "America/Port-au-Prince"])
      expect(isValidTimeZone(name), name).toBe(true)
    for (const name of ["+07:00", "-00:00", "+0700", "+07", "SystemV/EST5", "systemv/EST5", "SYSTEMV/AST4", "Asia/Bangkok/", "/UTC", ""])
      expect(isValidTimeZone(name), name).toBe(false)
  })
})

describe("instant of a local date + HH:mm:ss in a zone (DST-safe)", () => {
  it("without DST: 09:00 in Bangkok is 02:00Z", () => {
    expect(instantAt({ year: 2025, month: 3, day: 10 }, "09:00:00", "Asia/Bangkok")).toBe(
      iso("2025-03-10T02:00:00Z"),
    )
  })

  it("a time skipped by spring-forward moves forward by the gap (02:30 -> 03:30 EDT)", () => {
    const t = instantAt({ year: 2025, month: 3, day: 9 }, "02:30:00", "America/New_York")
    expect(t).toBe(iso("2025-03-09T07:30:00Z"))
    expect(formatHHmm(t, "America/New_York")).toBe("03:30")
  })

  it("a time repeated by fall-back resolves to the earlier instant (01:30 EDT)", () => {
    const t = instantAt({ year: 2025, month: 11, day: 2 }, "01:30:00", "America/New_York")
    expect(t).toBe(iso("2025-11-02T05:30:00Z"))
  })

  it("09:00 stays 09:00 on both sides of a DST change", () => {
    const before = instantAt({ year: 2025, month: 3, day: 29 }, "09:00:00", "Europe/London")
    const after = instantAt({ year: 2025, month: 3, day: 31 }, "09:00:00", "Europe/London")
    expect(before).toBe(iso("2025-03-29T09:00:00Z"))
    expect(after).toBe(iso("2025-03-31T08:00:00Z"))
  })

  it("86400 seconds is the next local midnight", () => {
    expect(instantAt({ year: 2025, month: 1, day: 6 }, 86_400, "Asia/Bangkok")).toBe(
      iso("2025-01-06T17:00:00Z"),
    )
  })

  it("property: the wall clock of instantAt(date, time) reads back date and time (or is the shifted gap time)", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: iso("2000-01-01T00:00:00Z"), max: iso("2040-01-01T00:00:00Z") }),
        fc.constantFrom(...ZONES),
        (t, zone) => {
          const w = wallClock(t, zone)
          const back = instantAt(w, w.hour * 3600 + w.minute * 60 + w.second, zone)
          // Earliest instant with that wall clock: t itself or its fall-back twin.
          expect(back).toBeLessThanOrEqual(Math.floor(t / 1000) * 1000)
          expect(wallClock(back, zone)).toEqual(w)
        },
      ),
    )
  })
})

describe("a boundary of the day's hours (opening, closing, break) at a time the clock skips", () => {
  it("falls on the jump itself: 02:30 on New York's spring-forward day is 03:00 EDT", () => {
    const t = boundaryAt({ year: 2030, month: 3, day: 10 }, "02:30:00", "America/New_York")
    expect(t).toBe(iso("2030-03-10T07:00:00Z"))
  })

  it("the same in a two-hour gap (Antarctica/Troll, 01:00 -> 03:00): 02:30 is 03:00 +02:00", () => {
    expect(boundaryAt({ year: 2032, month: 3, day: 28 }, "02:30:00", "Antarctica/Troll")).toBe(iso("2032-03-28T01:00:00Z"))
  })

  it("a time the clock shows is where instantAt puts it (a repeated time: the earlier instant)", () => {
    for (const [date, time, zone] of [
      [{ year: 2030, month: 3, day: 10 }, "03:00:00", "America/New_York"],
      [{ year: 2030, month: 11, day: 3 }, "01:30:00", "America/New_York"],
      [{ year: 2030, month: 1, day: 7 }, "09:00:00", "Asia/Bangkok"],
    ] as const)
      expect(boundaryAt(date, time, zone)).toBe(instantAt(date, time, zone))
  })

  it("property: a skipped wall time falls where the offset changes, the clock just before it reading earlier and at it later", () => {
    const secondsOf = (t: number, zone: string) => {
      const w = wallClock(t, zone)
      return w.hour * 3600 + w.minute * 60 + w.second
    }
    // The spring-forward days of 2000-2039 in the zones with DST.
    const gaps: Array<{ zone: string; date: LocalDate }> = []
    for (const zone of ["Europe/London", "America/New_York", "Australia/Lord_Howe"])
      for (let day = toEpochDay({ year: 2000, month: 1, day: 1 }); day < toEpochDay({ year: 2040, month: 1, day: 1 }); day++)
        if (offsetMsAt(day * 86_400_000 + 86_399_999, zone) > offsetMsAt(day * 86_400_000, zone))
          gaps.push({ zone, date: localDateOf(day * 86_400_000 + 43_200_000, zone) })
    fc.assert(
      // 01:00-03:00 holds each of these gaps.
      fc.property(fc.constantFrom(...gaps), fc.integer({ min: 3600, max: 10_799 }), ({ zone, date }, s) => {
        const b = boundaryAt(date, s, zone)
        if (formatLocalDate(localDateOf(b, zone)) === formatLocalDate(date) && secondsOf(b, zone) === s) return // the clock shows s
        expect(offsetMsAt(b - 1, zone)).toBeLessThan(offsetMsAt(b, zone))
        expect(secondsOf(b - 1, zone)).toBeLessThan(s)
        expect(secondsOf(b, zone)).toBeGreaterThan(s)
      }),
    )
  })
})

describe("ISO 8601 request date-times (spec convention 3)", () => {
  it("accepts Z and ±hh:mm offsets", () => {
    expect(parseOffsetDateTime("2025-01-06T09:00:00Z")).toEqual(
      Result.succeed(iso("2025-01-06T09:00:00Z")),
    )
    expect(parseOffsetDateTime("2025-01-06T09:00:00+07:00")).toEqual(
      Result.succeed(iso("2025-01-06T02:00:00Z")),
    )
    expect(parseOffsetDateTime("2025-01-06T09:00-03:30")).toEqual(
      Result.succeed(iso("2025-01-06T12:30:00Z")),
    )
  })

  it("truncates seconds and fractions to the start of the minute", () => {
    expect(parseOffsetDateTime("2025-01-06T09:15:59.999+07:00")).toEqual(
      Result.succeed(iso("2025-01-06T02:15:00Z")),
    )
  })

  it("rejects a date-time without an explicit offset", () => {
    expect(Result.isFailure(parseOffsetDateTime("2025-01-06T09:00:00"))).toBe(true)
    expect(Result.isFailure(parseOffsetDateTime("2025-01-06"))).toBe(true)
  })

  it("rejects an instant outside the years 0001-9999 in UTC, which an offset can reach from a valid wall time", () => {
    for (const bad of ["0001-01-01T00:00+01:00", "0000-06-01T00:00:00Z", "9999-12-31T23:30-01:00"])
      expect(Result.isFailure(parseOffsetDateTime(bad)), bad).toBe(true)
    expect(parseOffsetDateTime("0001-01-01T00:00:00Z")).toEqual(Result.succeed(new Date("0001-01-01T00:00:00Z").getTime()))
    expect(parseOffsetDateTime("9999-12-31T23:59:00Z")).toEqual(Result.succeed(new Date("9999-12-31T23:59:00Z").getTime()))
  })

  it("rejects impossible dates, times and offsets", () => {
    for (const bad of [
      "2025-02-29T09:00:00Z",
      "2025-01-06T24:00:00Z",
      "2025-01-06T09:60:00Z",
      "2025-01-06T09:00:00+24:00",
      "2025-01-06T09:00:00+0700",
    ]) {
      expect(Result.isFailure(parseOffsetDateTime(bad)), bad).toBe(true)
    }
  })

  it("property: parsing Date#toISOString gives the instant truncated to the minute", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: iso("1970-01-01T00:00:00Z"), max: iso("2100-01-01T00:00:00Z") }),
        (t) => {
          expect(parseOffsetDateTime(new Date(t).toISOString())).toEqual(
            Result.succeed(truncateToMinute(t)),
          )
        },
      ),
    )
  })

  it("HH:mm:ss configuration times parse to seconds of day", () => {
    expect(parseTimeOfDay("08:30:15")).toBe(8 * 3600 + 30 * 60 + 15)
    expect(parseTimeOfDay("24:00:00")).toBeUndefined()
    expect(parseTimeOfDay("8:30")).toBeUndefined()
  })
})

describe("formatOffsetDateTime (offset cached per zone and hour)", () => {
  const zones = [...ZONES, "Asia/Kathmandu", "America/St_Johns", "Pacific/Chatham", "Africa/Monrovia", "Europe/Dublin", "Pacific/Apia"]
  it("writes what Intl's parts of the instant give, DST transitions and odd historic offsets included", () => {
    for (const z of zones)
      for (const [from, to] of [[iso("1900-01-01T00:00:00Z"), iso("1900-02-01T00:00:00Z")], [iso("2026-03-01T00:00:00Z"), iso("2026-11-15T00:00:00Z")]] as const)
        for (let t = from; t < to; t += 91 * 60_000 + 13_457) expect(formatOffsetDateTime(t, z)).toBe(formatOffsetDateTimeByParts(t, z))
  })
  it("agrees on any instant and zone", () => {
    fc.assert(
      fc.property(fc.integer({ min: -5e12, max: 2e13 }), fc.constantFrom(...zones), (t, z) => {
        expect(formatOffsetDateTime(t, z)).toBe(formatOffsetDateTimeByParts(t, z))
      }),
      { numRuns: 2000 },
    )
  })
})
