import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { startHarness, type Harness } from "../../support/harness.ts"
import { bookRoom, setUpWorld, type BookingWorld } from "../bookings/booking-fixtures.ts"

describe("unpaid hold cap: per person, with an app's own budget", () => {
  describe("defaults", () => {
    let h: Harness
    let w: BookingWorld
    beforeAll(async () => {
      h = await startHarness("pglite", { KEYSPACE_ACCESS_TOKEN_TTL: "604800" })
      w = await setUpWorld(h)
    })
    afterAll(async () => h?.close())

    it("an app token booking paid rooms as itself is not stopped at the per-person cap", async () => {
      const statuses: number[] = []
      // Twenty pending payments at once: a partner backend booking for its users.
      for (let day = 1; day <= 4; day++)
        for (const hour of ["08", "09", "10", "11", "13"])
          statuses.push((await bookRoom(h, w.app, w.hq.rooms.jasmine, day, `${hour}:00`, `${hour}:30`)).status)
      expect(statuses).toEqual(Array(20).fill(201))
    })

    it("a member booking through act_as keeps KEYSPACE_MAX_UNPAID_HOLDS (3), whatever the app holds", async () => {
      const held = [] as number[]
      for (const hour of ["14", "15", "16"]) held.push((await bookRoom(h, w.alice, w.hq.rooms.jasmine, 1, `${hour}:00`, `${hour}:30`)).status)
      expect(held).toEqual([201, 201, 201])
      const fourth = await bookRoom(h, w.alice, w.hq.rooms.jasmine, 1, "17:00", "17:30")
      expect(fourth.status).toBe(429)
      expect(fourth.body).toMatchObject({ code: "SV040", data: { limit: 3 } })
      // Another person of the same app is not affected.
      expect((await bookRoom(h, w.bob, w.hq.rooms.jasmine, 2, "14:00", "14:30")).status).toBe(201)
    })
  })

  describe("KEYSPACE_MAX_UNPAID_HOLDS_PER_APP", () => {
    let h: Harness
    let w: BookingWorld
    beforeAll(async () => {
      h = await startHarness("pglite", { KEYSPACE_MAX_UNPAID_HOLDS_PER_APP: "5" })
      w = await setUpWorld(h)
    })
    afterAll(async () => h?.close())

    it("an app token booking as itself is refused past its own configured budget (429 SV040)", async () => {
      const statuses: number[] = []
      for (const hour of ["08", "09", "10", "11", "13", "14"])
        statuses.push((await bookRoom(h, w.app, w.hq.rooms.jasmine, 1, `${hour}:00`, `${hour}:30`)).status)
      expect(statuses).toEqual([201, 201, 201, 201, 201, 429])
      const sixth = await bookRoom(h, w.app, w.hq.rooms.jasmine, 1, "15:00", "15:30")
      expect(sixth.body).toMatchObject({ code: "SV040", data: { limit: 5 } })
      // The app's budget is not the members' cap: a member still gets 3.
      expect((await bookRoom(h, w.alice, w.hq.rooms.jasmine, 2, "08:00", "08:30")).status).toBe(201)
    })
  })
})
