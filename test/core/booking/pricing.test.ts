import fc from "fast-check"
import { describe, expect, it } from "vitest"
import {
  applyDiscounts,
  type ChargeRate,
  type Discount,
  isPaid,
  priceSummary,
  subtotalMinor,
  subtotalMinorByDays,
} from "../../../core/booking/pricing.ts"

const HOUR = 60
const DAY = 24 * HOUR

describe("price of a paid booking (spec: Payment)", () => {
  it("perHour is prorated per minute", () => {
    expect(priceSummary({ perHour: 100, perDay: 0 }, 90)).toEqual({
      subtotal: 150,
      total: 150,
      discounts: [],
    })
  })

  it("amounts are rounded half-up to the satang", () => {
    // 100.50 THB/h for 1 minute = 167.5 satang -> 168
    expect(subtotalMinor({ perHour: 100.5, perDay: 0 }, 1)).toBe(168)
    // 0.01 THB/h for 29 minutes = 0.483 satang -> 0; for 30 minutes = 0.5 -> 1
    expect(subtotalMinor({ perHour: 0.01, perDay: 0 }, 29)).toBe(0)
    expect(subtotalMinor({ perHour: 0.01, perDay: 0 }, 30)).toBe(1)
  })

  it("each day is capped at perDay when perDay > 0", () => {
    const rate = { perHour: 100, perDay: 500 }
    expect(priceSummary(rate, 8 * HOUR).subtotal).toBe(500)
    expect(priceSummary(rate, 4 * HOUR).subtotal).toBe(400)
    // 30 h = one full day (capped 500) + 6 h (600 capped to 500)
    expect(priceSummary(rate, 30 * HOUR).subtotal).toBe(1000)
  })

  it("calendar-day portions are capped one by one", () => {
    const rate = { perHour: 100, perDay: 500 }
    // 22:00 to 02:00 next day: 2 h + 2 h, no cap reached
    expect(subtotalMinorByDays(rate, [2 * HOUR, 2 * HOUR])).toBe(40_000)
    expect(subtotalMinorByDays(rate, [10 * HOUR, 3 * HOUR])).toBe(50_000 + 30_000)
  })

  it("a perDay-only rate charges perDay per started day", () => {
    const rate = { perHour: 0, perDay: 300 }
    expect(priceSummary(rate, 1).subtotal).toBe(300)
    expect(priceSummary(rate, DAY).subtotal).toBe(300)
    expect(priceSummary(rate, DAY + 1).subtotal).toBe(600)
  })

  it("a booking is paid when any rate is non-zero", () => {
    expect(isPaid({ perHour: 0, perDay: 0 })).toBe(false)
    expect(isPaid({ perHour: 50, perDay: 0 })).toBe(true)
    expect(isPaid({ perHour: 0, perDay: 300 })).toBe(true)
  })

  it("numbers leave in THB, e.g. 150.5", () => {
    expect(priceSummary({ perHour: 100.33, perDay: 0 }, 90).subtotal).toBe(150.5)
  })
})

describe("discounts (spec: Payment.summary)", () => {
  it("summary lists each discount as {code, value, name} with value the amount taken off", () => {
    const s = priceSummary({ perHour: 100, perDay: 0 }, 90, [
      { code: "TEN", name: "Ten percent", percentOff: 10 },
      { code: "FIVE", name: "Five baht", amountOff: 5 },
    ])
    expect(s).toEqual({
      subtotal: 150,
      total: 130,
      discounts: [
        { code: "TEN", value: 15, name: "Ten percent" },
        { code: "FIVE", value: 5, name: "Five baht" },
      ],
    })
  })

  it("a discount never takes more than the subtotal and the total never goes negative", () => {
    const s = priceSummary({ perHour: 100, perDay: 0 }, 60, [
      { code: "BIG", name: "Big", amountOff: 80 },
      { code: "BIGGER", name: "Bigger", percentOff: 50 },
    ])
    expect(s.discounts.map((d) => d.value)).toEqual([80, 20])
    expect(s.total).toBe(0)
  })

  it("percentOff is taken of the subtotal and does not compound", () => {
    const s = applyDiscounts(10_000, [
      { code: "A", name: "A", percentOff: 10 },
      { code: "B", name: "B", percentOff: 10 },
    ])
    expect(s.discounts.map((d) => d.value)).toEqual([1_000, 1_000])
  })
})

describe("pricing properties", () => {
  const thb = fc.integer({ min: 0, max: 1_000_000 }).map((s) => s / 100)
  const rateArb: fc.Arbitrary<ChargeRate> = fc.record({ perHour: thb, perDay: thb })
  const minutes = fc.integer({ min: 0, max: 10 * DAY })
  const discountArb: fc.Arbitrary<Discount> = fc.record({
    code: fc.string(),
    name: fc.string(),
    percentOff: fc.option(fc.integer({ min: -10, max: 150 }), { nil: undefined }),
    amountOff: fc.option(thb, { nil: undefined }),
  })

  it("a price is never negative", () => {
    fc.assert(
      fc.property(rateArb, minutes, fc.array(discountArb), (rate, m, ds) => {
        const s = priceSummary(rate, m, ds)
        expect(s.subtotal).toBeGreaterThanOrEqual(0)
        expect(s.total).toBeGreaterThanOrEqual(0)
        for (const d of s.discounts) expect(d.value).toBeGreaterThanOrEqual(0)
      }),
    )
  })

  it("discounts never exceed the subtotal and total = subtotal - discounts", () => {
    fc.assert(
      fc.property(rateArb, minutes, fc.array(discountArb), (rate, m, ds) => {
        const s = applyDiscounts(subtotalMinor(rate, m), ds)
        const off = s.discounts.reduce((sum, d) => sum + d.value, 0)
        expect(off).toBeLessThanOrEqual(s.subtotal)
        expect(s.total).toBe(s.subtotal - off)
        expect(Number.isInteger(s.total)).toBe(true)
      }),
    )
  })

  it("the price is monotone non-decreasing in duration", () => {
    fc.assert(
      fc.property(rateArb, minutes, fc.integer({ min: 0, max: 3 * DAY }), (rate, m, more) => {
        expect(subtotalMinor(rate, m + more)).toBeGreaterThanOrEqual(subtotalMinor(rate, m))
      }),
    )
  })

  it("a free asset always costs 0", () => {
    fc.assert(
      fc.property(minutes, (m) => {
        expect(subtotalMinor({ perHour: 0, perDay: 0 }, m)).toBe(0)
      }),
    )
  })
})
