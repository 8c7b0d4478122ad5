import { Option, Result } from "effect"
import { describe, expect, it } from "vitest"
import { beginPaidExtension } from "../../../core/booking/paid-extension.ts"
import type { PriceSummary } from "../../../core/booking/pricing.ts"
import type { Booking } from "../../../core/booking/state.ts"
import { transition } from "../../../core/booking/transitions.ts"
import type { PaymentRecord } from "../../../core/payment/records.ts"
import {
  cancelPaymentIdCheck,
  channelOf,
  extensionDiscountCode,
  invoiceNoOf,
  lapseDecision,
  needsPayment,
  paidExtensionOf,
  settleDecision,
} from "../../../core/payment/rules.ts"
import { END, makeBooking, MINUTE, organizer, START } from "../booking/booking-fixtures.ts"

const NOW = START - 60 * MINUTE
const WINDOW_END = NOW + 5 * MINUTE

const payment = (over: Partial<PaymentRecord> = {}): PaymentRecord => ({
  id: "p1",
  bookingId: "b1",
  projectId: "pr",
  invoiceNo: "INV-20300107-000001",
  kind: "create",
  amountMinor: 10000,
  summary: { subtotal: 100, total: 100, discounts: [] },
  discountCode: null,
  channel: "prompt-pay",
  status: "pending",
  expiresAt: WINDOW_END,
  settledAt: null,
  frontendRedirectUrl: null,
  gateway: "sandbox",
  gatewayRef: "p1",
  webPaymentUrl: "http://x/pay/p1",
  webPaymentQr: "data:,",
  origin: undefined,
  newStartAt: null,
  newEndAt: null,
  createdAt: NOW,
  updatedAt: NOW,
  ...over,
})

const unpaid = (): Booking => makeBooking({ status: "unpaid" })
const extended = () => {
  const before = makeBooking({ status: "checked-in" })
  const updated = transition(before, { _tag: "Update", changes: { end: END + 60 * MINUTE } }, NOW, organizer)
  if (Result.isFailure(updated)) throw updated.failure
  return { before, updated: updated.success }
}
const extension = (before: Booking) =>
  payment({ kind: "extension", origin: { start: before.start, end: before.end, status: before.status, timePeriod: "morning" } })

describe("payment rules", () => {
  it("a price needs a payment only when something is left to pay (a 100% discount confirms at once)", () => {
    expect(needsPayment({ subtotal: 100, total: 0, discounts: [] })).toBe(false)
    expect(needsPayment({ subtotal: 100, total: 0.01, discounts: [] })).toBe(true)
  })

  it("an unknown channel falls back to the spec's default prompt-pay", () => {
    expect(channelOf("alipay")).toBe("alipay")
    expect(channelOf("bitcoin")).toBe("prompt-pay")
    expect(channelOf(undefined)).toBe("prompt-pay")
  })

  it("invoice numbers carry the project's local date and a 6-digit sequence", () => {
    // 2030-01-06T20:00Z is already Jan 7 in Bangkok.
    expect(invoiceNoOf("42", Date.parse("2030-01-06T20:00:00Z"), "Asia/Bangkok")).toBe("INV-20300107-000042")
  })

  it("an extension is priced with the PATCH's code (required), else the booking's own (optional)", () => {
    expect(extensionDiscountCode("NEW", "OLD")).toEqual(Option.some({ code: "NEW", required: true }))
    expect(extensionDiscountCode(undefined, "OLD")).toEqual(Option.some({ code: "OLD", required: false }))
    expect(extensionDiscountCode("", null)).toEqual(Option.none())
  })

  it("a paid extension is a longer (dearer) change of an active or checked-in paid booking, owing the difference", () => {
    const { before, updated } = extended()
    const price = (b: Booking): PriceSummary => {
      const total = (b.end - b.start) / (60 * MINUTE) * 100
      return { subtotal: total, total, discounts: [] }
    }
    const paid = undefined
    const ext = paidExtensionOf({ chargeRate: { perHour: 100, perDay: 0 }, price, paid, before, updated })
    expect(Option.getOrThrow(ext).summary.total).toBe(100)
    expect(Option.getOrThrow(ext).result).toEqual(beginPaidExtension(before, updated))
    expect(Option.isNone(paidExtensionOf({ chargeRate: { perHour: 0, perDay: 0 }, price, paid, before, updated }))).toBe(true)
    expect(Option.isNone(paidExtensionOf({ chargeRate: { perHour: 100, perDay: 0 }, price, paid, before: { ...before, status: "unpaid" }, updated }))).toBe(true)
    expect(Option.isNone(paidExtensionOf({ chargeRate: { perHour: 100, perDay: 0 }, price, paid, before: updated.booking, updated }))).toBe(true)
  })

  it("an extension owes the price of the new times minus that of the times already paid for (time a payment paid for and a shorter PATCH gave up included)", () => {
    const { before, updated } = extended()
    const price = (b: Booking): PriceSummary => {
      const total = (b.end - b.start) / (60 * MINUTE) * 100
      return { subtotal: total, total, discounts: [] }
    }
    const rate = { perHour: 100, perDay: 0 }
    const owed = (paid: { start: number; end: number } | undefined) =>
      Option.map(paidExtensionOf({ chargeRate: rate, price, paid, before, updated }), (x) => x.summary.total)
    // Paid through the new end already: nothing more to pay, a plain update.
    expect(owed({ start: before.start, end: updated.booking.end })).toEqual(Option.none())
    // Paid through half an hour beyond the old end: the other half hour is owed.
    expect(owed({ start: before.start, end: before.end + 30 * MINUTE })).toEqual(Option.some(50))
    // Paid times within the booking's own change nothing.
    expect(owed({ start: before.start, end: before.end - 30 * MINUTE })).toEqual(Option.some(100))
    // Times paid for and moved away from (a same-price move earlier) are not given back later.
    expect(owed({ start: before.start - 180 * MINUTE, end: before.start - 60 * MINUTE })).toEqual(Option.some(100))
    // Paid for two hours that reach into the new times for only one and a half: half an hour is owed.
    expect(owed({ start: before.start - 30 * MINUTE, end: before.end + 30 * MINUTE })).toEqual(Option.some(50))
  })

  it("time given up and then moved away from is charged once when the booking grows over it, and never more than was paid counts", () => {
    const H = 60 * MINUTE
    const price = (b: Booking): PriceSummary => {
      const total = ((b.end - b.start) / H) * 100
      return { subtotal: total, total, discounts: [] }
    }
    const owed = (own: [number, number], to: [number, number], paid: [number, number]) => {
      const before = makeBooking({ status: "active", start: START + own[0] * H, end: START + own[1] * H })
      const updated = transition(before, { _tag: "Update", changes: { start: START + to[0] * H, end: START + to[1] * H } }, NOW, organizer)
      if (Result.isFailure(updated)) throw updated.failure
      const paidTimes = { start: START + paid[0] * H, end: START + paid[1] * H }
      return Option.map(paidExtensionOf({ chargeRate: { perHour: 100, perDay: 0 }, price, paid: paidTimes, before, updated: updated.success }), (x) => x.summary.total)
    }
    // Paid 0-2, shortened to 0-1, moved to 3-4, grown to 1-4: 1-2 was paid for, 2-3 is new.
    expect(owed([3, 4], [1, 4], [0, 2])).toEqual(Option.some(100))
    // Paid 0-2, moved to 4-6 at the same price, grown to 0-6: two hours paid for, four owed.
    expect(owed([4, 6], [0, 6], [0, 2])).toEqual(Option.some(400))
  })

  it("a cancel's paymentId must be a payment of the booking, and the pending one while unpaid", () => {
    expect(Result.isSuccess(cancelPaymentIdCheck("p1", Option.some(payment()), "b1", "unpaid"))).toBe(true)
    const foreign = cancelPaymentIdCheck("p1", Option.some(payment({ bookingId: "b2" })), "b1", "unpaid")
    expect(Result.isFailure(foreign) && foreign.failure._tag).toBe("ValidationFailed")
    const stale = cancelPaymentIdCheck("p1", Option.some(payment({ status: "paid" })), "b1", "unpaid")
    expect(Result.isFailure(stale) && stale.failure._tag).toBe("StateConflict")
    expect(Result.isSuccess(cancelPaymentIdCheck("p1", Option.some(payment({ status: "paid" })), "b1", "active"))).toBe(true)
  })

  describe("settling", () => {
    it("paid within the window completes the booking; at the window's end it is refused as expired", () => {
      const done = settleDecision(payment(), unpaid(), "paid", WINDOW_END - 1)
      expect(done._tag === "Complete" && done.next.booking.status).toBe("active")
      expect(settleDecision(payment(), unpaid(), "paid", WINDOW_END)).toEqual({ _tag: "Refuse", reason: "expired" })
    })

    it("a final payment is refused with its status; a decline changes only the payment", () => {
      expect(settleDecision(payment({ status: "voided" }), unpaid(), "paid", NOW)).toEqual({ _tag: "Refuse", reason: "voided" })
      expect(settleDecision(payment(), unpaid(), "failed", NOW)).toEqual({ _tag: "Decline" })
    })

    it("a paid extension goes back to its former status with the new times and a MODIFY", () => {
      const { before, updated } = extended()
      const d = settleDecision(extension(before), beginPaidExtension(before, updated).booking, "paid", NOW)
      expect(d._tag === "Complete" && d.next.booking.status).toBe("checked-in")
      expect(d._tag === "Complete" && d.next.events.map((e) => e.kind)).toEqual(["MODIFY"])
    })
  })

  describe("the lapse at the window's end", () => {
    it("cancels an unpaid create and expires its payment, exactly at the window's end", () => {
      expect(lapseDecision(unpaid(), payment(), WINDOW_END - 1)).toEqual({ _tag: "Skip", reason: "window still open" })
      const d = lapseDecision(unpaid(), payment(), WINDOW_END)
      expect(d._tag).toBe("Cancel")
      expect(d._tag === "Cancel" && [d.expire?.id, d.next.booking.status]).toEqual(["p1", "cancelled"])
    })

    it("restores a lapsed extension as it was before the PATCH, with no event", () => {
      const { before, updated } = extended()
      const d = lapseDecision(beginPaidExtension(before, updated).booking, extension(before), WINDOW_END)
      if (d._tag !== "Restore") throw new Error(d._tag)
      expect([d.next.booking.status, d.next.booking.end, d.next.events, d.timePeriod]).toEqual(["checked-in", END, [], "morning"])
    })

    it("leaves a booking that is no longer unpaid alone (a stale tick)", () => {
      expect(lapseDecision(makeBooking({ status: "active" }), payment({ status: "paid" }), WINDOW_END)._tag).toBe("Skip")
    })
  })
})
