import { describe, expect, it } from "vitest"
import { PIN_MISSES_ALLOWED, PIN_MISS_WINDOW_MS } from "../../../core/booking/pin-attempts.ts"
import { actAsToken, bookRoom, bookingWorldOn } from "./booking-fixtures.ts"

/**
 * Spec Meetings rule 6: a pinCode (six digits) authorizes a non-organizer. Guessing it is
 * throttled per booking: after ten wrong pinCodes within 15 minutes, a call presenting a
 * pinCode for that booking is 429 SV036 with Retry-After, the right pinCode too, until the
 * window has passed; the organizer is not held.
 */
describe("wrong pinCodes for one booking are throttled", () => {
  const world = bookingWorldOn("pglite")

  it("ten wrong pinCodes within 15 minutes hold pin-authorized calls on that booking (429 SV036), not the organizer's, not other bookings'", async () => {
    const m = (await bookRoom(world.h, world.w.alice, world.w.hq.rooms.lotus, 1, "10:00", "11:00")).body.data
    const other = (await bookRoom(world.h, world.w.alice, world.w.hq.rooms.lotus, 1, "14:00", "15:00")).body.data
    const wrong = m.pinCode === "000000" ? "111111" : "000000"
    for (let i = 0; i < PIN_MISSES_ALLOWED; i++) {
      const res = await world.h.request("PATCH", `/meetings/${m._id}`, { token: world.w.bob, body: { title: "guess", pinCode: wrong } })
      expect(res.status).toBe(403)
    }
    for (const attempt of [
      () => world.h.request("PATCH", `/meetings/${m._id}`, { token: world.w.bob, body: { title: "mine", pinCode: m.pinCode } }),
      () => world.h.request("POST", `/meetings/${m._id}/cancel`, { token: world.w.bob, body: { pinCode: m.pinCode } }),
    ]) {
      const held = await attempt()
      expect(held.status).toBe(429)
      expect(held.body).toMatchObject({ code: "SV036", success: false })
      expect(held.body.data.retryAfterSeconds).toBeGreaterThan(0)
      expect(held.body.data.retryAfterSeconds).toBeLessThanOrEqual(PIN_MISS_WINDOW_MS / 1000)
    }
    expect((await world.h.request("PATCH", `/meetings/${m._id}`, { token: world.w.alice, body: { title: "organizer" } })).status).toBe(200)
    expect((await world.h.request("PATCH", `/meetings/${other._id}`, { token: world.w.bob, body: { title: "other", pinCode: other.pinCode } })).status).toBe(200)

    await world.h.advance(PIN_MISS_WINDOW_MS / 60_000)
    // bob's act_as token lived 15 minutes too.
    const bob = await actAsToken(world.h, "ext-bob")
    const after = await world.h.request("PATCH", `/meetings/${m._id}`, { token: bob, body: { title: "mine", pinCode: m.pinCode } })
    expect(after.status).toBe(200)
    expect(after.body.data.title).toBe("mine")
  })
})
