import fc from "fast-check"
import { describe, expect, it } from "vitest"
import * as Interval from "../../../core/shared/interval.ts"

const interval = fc
  .tuple(fc.integer({ min: 0, max: 60 }), fc.integer({ min: 0, max: 60 }))
  .map(([a, b]) => Interval.make(Math.min(a, b), Math.max(a, b)))

describe("Interval (half-open [start, end), the one overlap rule)", () => {
  it("back-to-back bookings (10:00-11:00 then 11:00-12:00) do not overlap", () => {
    expect(Interval.overlaps(Interval.make(10, 11), Interval.make(11, 12))).toBe(false)
    expect(Interval.overlaps(Interval.make(11, 12), Interval.make(10, 11))).toBe(false)
  })

  it("a booking sharing one minute with another overlaps it", () => {
    expect(Interval.overlaps(Interval.make(10, 12), Interval.make(11, 13))).toBe(true)
  })

  it("an empty interval overlaps nothing, not even a containing one", () => {
    expect(Interval.overlaps(Interval.make(5, 5), Interval.make(0, 10))).toBe(false)
  })

  it("contains accepts touching bounds; containsInstant excludes the end", () => {
    expect(Interval.contains(Interval.make(8, 18), Interval.make(8, 18))).toBe(true)
    expect(Interval.contains(Interval.make(8, 18), Interval.make(7, 18))).toBe(false)
    expect(Interval.containsInstant(Interval.make(8, 18), 8)).toBe(true)
    expect(Interval.containsInstant(Interval.make(8, 18), 18)).toBe(false)
  })

  it("property: overlaps is symmetric and equals 'some integer instant lies in both'", () => {
    fc.assert(
      fc.property(interval, interval, (a, b) => {
        let shared = false
        for (let t = 0; t <= 60; t++) {
          if (Interval.containsInstant(a, t) && Interval.containsInstant(b, t)) shared = true
        }
        expect(Interval.overlaps(a, b)).toBe(Interval.overlaps(b, a))
        expect(Interval.overlaps(a, b)).toBe(shared)
      }),
    )
  })

  it("property: a non-empty interval overlaps every non-empty interval it contains", () => {
    fc.assert(
      fc.property(interval, interval, (a, b) => {
        fc.pre(!Interval.isEmpty(a) && !Interval.isEmpty(b) && Interval.contains(a, b))
        expect(Interval.overlaps(a, b)).toBe(true)
      }),
    )
  })

  it("property: intersection is contained in both and absent exactly when no overlap", () => {
    fc.assert(
      fc.property(interval, interval, (a, b) => {
        const i = Interval.intersection(a, b)
        expect(i === undefined).toBe(!Interval.overlaps(a, b))
        if (i !== undefined) {
          expect(Interval.contains(a, i) && Interval.contains(b, i)).toBe(true)
          expect(Interval.isValid(i)).toBe(true)
        }
      }),
    )
  })
})
