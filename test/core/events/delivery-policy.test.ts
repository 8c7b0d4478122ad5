import { describe, expect, it } from "vitest"
import { afterAttempt, backoffAfter, isSuccessStatus, MAX_ATTEMPTS } from "../../../core/events/delivery-policy.ts"

describe("webhook delivery policy", () => {
  it("backs off 1, 2, 4, 8 minutes between the 5 attempts", () => {
    expect([1, 2, 3, 4].map(backoffAfter)).toEqual([60_000, 120_000, 240_000, 480_000])
    expect(MAX_ATTEMPTS).toBe(5)
  })

  it("a failure before the 5th attempt schedules the next one; the 5th exhausts", () => {
    expect(afterAttempt(1, false, 1000)).toEqual({ state: "pending", nextAttemptAt: 61_000 })
    expect(afterAttempt(4, false, 0)).toEqual({ state: "pending", nextAttemptAt: 480_000 })
    expect(afterAttempt(5, false, 0)).toEqual({ state: "failed" })
    expect(afterAttempt(5, true, 0)).toEqual({ state: "delivered" })
  })

  it("only 2xx is success (a redirect is a failure)", () => {
    expect([200, 201, 204, 299].every(isSuccessStatus)).toBe(true)
    expect([100, 301, 302, 304, 400, 500].some(isSuccessStatus)).toBe(false)
  })
})
