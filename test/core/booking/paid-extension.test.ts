import fc from "fast-check"
import { Result } from "effect"
import { describe, expect, it } from "vitest"
import {
  beginPaidExtension,
  completePaidExtension,
  lapsePaidExtension,
  priceDifference,
} from "../../../core/booking/paid-extension.ts"
import { extensionWindow } from "../../../core/booking/payment-window.ts"
import { applyDiscounts, fromMinor, subtotalMinor } from "../../../core/booking/pricing.ts"
import { defaultMeetingConfig } from "../../../core/booking/timeline.ts"
import { transition } from "../../../core/booking/transitions.ts"
import { END, makeBooking, MINUTE, organizer, START } from "./booking-fixtures.ts"

const NOW = START - 60 * MINUTE

describe("paid extension (spec: active or checked-in -> PATCH extending a paid booking -> unpaid)", () => {
  const extend = (status: "active" | "checked-in") => {
    const booking = makeBooking({ status })
    const updated = transition(booking, { _tag: "Update", changes: { end: END + 60 * MINUTE } }, NOW, organizer)
    if (Result.isFailure(updated)) throw updated.failure
    return { booking, unpaid: beginPaidExtension(booking, updated.success) }
  }

  it("begin: the new times hold the slot, status unpaid, no MODIFY until paid", () => {
    const { unpaid } = extend("active")
    expect(unpaid.booking.status).toBe("unpaid")
    expect(unpaid.booking.end).toBe(END + 60 * MINUTE)
    expect(unpaid.events).toEqual([])
    expect(unpaid.history).toMatchObject({ action: "update", by: organizer.userId })
  })

  it("complete: back to the former status with the new times, MODIFY old -> new", () => {
    for (const status of ["active", "checked-in"] as const) {
      const { booking, unpaid } = extend(status)
      const done = completePaidExtension(unpaid.booking, { start: booking.start, end: booking.end, status }, NOW + MINUTE)
      expect(done.booking.status).toBe(status)
      expect(done.booking.end).toBe(END + 60 * MINUTE)
      expect(done.events).toEqual([
        { kind: "MODIFY", bookingId: booking.id, at: NOW + MINUTE, oldStart: START, oldEnd: END, newStart: START, newEnd: END + 60 * MINUTE },
      ])
      expect(done.history).toEqual({ action: "payment", at: NOW + MINUTE })
    }
  })

  it("lapse: exactly the booking before the PATCH (times and status), no event", () => {
    for (const status of ["active", "checked-in"] as const) {
      const { booking, unpaid } = extend(status)
      const lapsed = lapsePaidExtension(unpaid.booking, { start: booking.start, end: booking.end, status }, NOW + 5 * MINUTE)
      expect(lapsed.booking).toEqual({ ...booking, updatedAt: NOW + 5 * MINUTE })
      expect(lapsed.events).toEqual([])
      expect(lapsed.history).toEqual({ action: "payment-lapsed", at: NOW + 5 * MINUTE })
    }
  })

  it("priceDifference: lines add up, and equal the difference of totals under the same discounts", () => {
    const rate = fc.record({ perHour: fc.integer({ min: 0, max: 100_000 }).map((n) => n / 100), perDay: fc.integer({ min: 0, max: 500_000 }).map((n) => n / 100) })
    const discount = fc.record({
      code: fc.constantFrom("A", "B"),
      name: fc.constant("d"),
      percentOff: fc.option(fc.integer({ min: 0, max: 100 }), { nil: undefined }),
      amountOff: fc.option(fc.integer({ min: 0, max: 50_000 }).map((n) => n / 100), { nil: undefined }),
    })
    fc.assert(
      fc.property(rate, fc.integer({ min: 1, max: 3000 }), fc.integer({ min: 0, max: 3000 }), fc.uniqueArray(discount, { selector: (d) => d.code, maxLength: 2 }), (r, minutes, extra, ds) => {
        const price = (m: number) => {
          const minor = applyDiscounts(subtotalMinor(r, m), ds)
          return { subtotal: fromMinor(minor.subtotal), total: fromMinor(minor.total), discounts: minor.discounts.map((d) => ({ ...d, value: fromMinor(d.value) })) }
        }
        const before = price(minutes)
        const after = price(minutes + extra)
        const diff = priceDifference(before, after)
        const cents = (x: number) => Math.round(x * 100)
        expect(cents(diff.subtotal) - diff.discounts.reduce((s, d) => s + cents(d.value), 0)).toBe(cents(diff.total))
        expect(cents(diff.total)).toBe(cents(after.total) - cents(before.total))
        expect(diff.total).toBeGreaterThanOrEqual(0)
      }),
    )
  })
})

describe("an extension's payment window ends by the no-show deadline of a booking nobody checked in to", () => {
  const WINDOW = 5 * MINUTE
  const before = makeBooking({ status: "active" })
  const after = { ...before, end: END + 30 * MINUTE }
  const deadline = START + defaultMeetingConfig.postStartExpireMinutes * MINUTE
  const window = (over: Partial<Parameters<typeof extensionWindow>[0]>) =>
    extensionWindow({ before, after, config: defaultMeetingConfig, now: deadline - WINDOW, windowMs: WINDOW, ...over })

  it("the full window when it ends by the deadline; cut to the deadline when it would end after it", () => {
    expect(window({})).toEqual({ _tag: "Window", windowMs: WINDOW })
    expect(window({ now: deadline - 3 * MINUTE })).toEqual({ _tag: "Window", windowMs: 3 * MINUTE })
  })

  it("a long configured window before check-in opens is cut, not refused (the advice to check in could not be followed yet)", () => {
    expect(window({ now: START - 30 * MINUTE, windowMs: 60 * MINUTE })).toEqual({ _tag: "Window", windowMs: 45 * MINUTE })
  })

  it("less than a minute before the deadline: refused, check in first", () => {
    expect(window({ now: deadline - 30_000 })).toMatchObject({ _tag: "Refused", reason: expect.stringMatching(/check in first/) })
  })

  it("the earlier of the deadlines before and after the PATCH counts: a lapse restores the old times", () => {
    const later = { ...before, start: START + 60 * MINUTE, end: END + 60 * MINUTE }
    expect(window({ after: later, now: deadline - 3 * MINUTE })).toEqual({ _tag: "Window", windowMs: 3 * MINUTE })
  })

  it("a checked-in booking or an asset without auto-cancel keeps the full window", () => {
    const now = deadline - 30_000
    expect(window({ now, before: makeBooking({ status: "checked-in" }) })).toEqual({ _tag: "Window", windowMs: WINDOW })
    expect(window({ now, config: { ...defaultMeetingConfig, postStartExpireMinutes: -1 } })).toEqual({ _tag: "Window", windowMs: WINDOW })
  })
})
