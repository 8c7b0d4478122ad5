import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { ENGINES } from "../../support/databases.ts"
import { startHarness, type Harness } from "../../support/harness.ts"
import {
  actAsToken,
  bookRoom,
  createMeeting,
  local,
  postPay,
  rowCounts,
  setUpPaymentsWorld,
  type PaymentsWorld,
} from "./payment-fixtures.ts"

/**
 * Spec Meetings rule 3 (draft: nothing created; the preview's shape is ours), rule 5 (no
 * idempotency for create: reconcile through GET /meetings) and the hold cap (unpaid bookings
 * hold slots; at most KEYSPACE_MAX_UNPAID_HOLDS per organizer, 429 SV040).
 */
describe.each(ENGINES)("drafts, hold cap and reconciliation on %s", (engine) => {
  let h: Harness
  let w: PaymentsWorld
  beforeAll(async () => {
    h = await startHarness(engine)
    w = await setUpPaymentsWorld(h)
  })
  afterAll(async () => h?.close())

  describe("draft previews", () => {
    it("draft true creates nothing (no booking, slot, payment, event or tick) and returns the price", async () => {
      const before = await rowCounts(h)
      const res = await createMeeting(h, w.token, {
        meetingRoomId: w.ids.rooms.lotus,
        startDateTime: local("10:00", 1),
        endDateTime: local("12:00", 1),
        discountCode: "WELCOME10",
        draft: true,
      })
      expect(res.status).toBe(200)
      expect(res.body.data).toMatchObject({
        draft: true,
        meetingRoomId: w.ids.rooms.lotus,
        startDateTime: local("10:00", 1),
        endDateTime: local("12:00", 1),
        status: "unpaid",
        available: true,
        amount: 180,
        summary: { subtotal: 200, total: 180, discounts: [{ code: "WELCOME10", value: 20, name: "Welcome" }] },
      })
      expect(res.body.data._id).toBeUndefined()
      expect(res.body.data.payment).toBeUndefined()
      expect(await rowCounts(h)).toEqual(before)
    })

    it("draftEndDateTimes: one preview per candidate end, each with its price and whether the slot is free", async () => {
      await bookRoom(h, w, "lotus", "12:00", "13:00", 2)
      const before = await rowCounts(h)
      const res = await createMeeting(h, w.token, {
        meetingRoomId: w.ids.rooms.lotus,
        startDateTime: local("10:00", 2),
        endDateTime: local("11:00", 2),
        draft: true,
        draftEndDateTimes: [local("11:00", 2), local("12:00", 2), local("12:30", 2), local("23:00", 2)],
      })
      expect(res.status).toBe(200)
      const previews = res.body.data.draftEndDateTimes
      expect(previews.map((p: any) => [p.endDateTime, p.available, p.amount])).toEqual([
        [local("11:00", 2), true, 100],
        [local("12:00", 2), true, 200],
        [local("12:30", 2), false, 250],
        [local("23:00", 2), false, 600],
      ])
      expect(previews[1].summary).toEqual({ subtotal: 200, total: 200, discounts: [] })
      expect(previews[2].unavailableReason).toBe("SLOT_TAKEN")
      expect(previews[3].unavailableReason).toBe("OPERATING_HOURS")
      expect(await rowCounts(h)).toEqual(before)
    })

    it("a draft on a free asset previews a zero price, status active", async () => {
      const res = await createMeeting(h, w.token, {
        meetingRoomId: w.ids.rooms.free,
        startDateTime: local("10:00", 2),
        endDateTime: local("11:00", 2),
        draft: true,
      })
      expect(res.body.data).toMatchObject({ status: "active", amount: 0, summary: { subtotal: 0, total: 0 } })
    })
  })

  describe("hold hoarding", () => {
    it("an organizer holds at most 3 unpaid bookings: the 4th is 429 SV040; paying one frees a hold", async () => {
      const alice = await actAsToken(h, "ext-alice")
      const holds = []
      for (const hour of ["08", "09", "10"]) holds.push(await bookRoom(h, w, "jasmine", `${hour}:00`, `${hour}:30`, 3, {}, alice))
      const fourth = await createMeeting(h, alice, {
        meetingRoomId: w.ids.rooms.jasmine,
        startDateTime: local("11:00", 3),
        endDateTime: local("11:30", 3),
      })
      expect(fourth.status).toBe(429)
      expect(fourth.body.code).toBe("SV040")
      expect(fourth.body.data).toEqual({ limit: 3 })
      // Other organizers are not affected.
      await bookRoom(h, w, "jasmine", "11:00", "11:30", 3)
      // A draft is not a hold.
      const draft = await createMeeting(h, alice, {
        meetingRoomId: w.ids.rooms.jasmine,
        startDateTime: local("12:00", 3),
        endDateTime: local("12:30", 3),
        draft: true,
      })
      expect(draft.status).toBe(200)
      expect((await postPay(h, holds[0].payment.paymentId, "paid")).status).toBe(200)
      await bookRoom(h, w, "jasmine", "12:00", "12:30", 3, {}, alice)
      const metrics = h.booted.services.metrics.render()
      expect(metrics).toMatch(/keyspace_unpaid_hold_refusals_total 1\b/)
      expect(metrics).toMatch(/keyspace_payments_total\{outcome="paid"\} 1\b/)
    })
  })

  describe("reconciliation after a timeout (no idempotency key, spec rule 5)", () => {
    it("GET /meetings filtered by organizerId, meetingRoomId, from/to and statuses finds the booking the client created", async () => {
      const bob = await actAsToken(h, "ext-bob")
      const m = await bookRoom(h, w, "lotus", "15:00", "16:00", 4, {}, bob)
      // Someone else's booking on the same room and day must not match.
      await bookRoom(h, w, "lotus", "16:00", "17:00", 4)
      const q = new URLSearchParams({
        organizerId: m.organizer.userId,
        meetingRoomId: w.ids.rooms.lotus,
        from: local("15:00", 4),
        to: local("16:00", 4),
        statuses: "unpaid,active",
      })
      const res = await h.request("GET", `/meetings?${q}`, { token: bob })
      expect(res.status).toBe(200)
      expect(res.body.meta.total).toBe(1)
      expect(res.body.data[0]._id).toBe(m._id)
      expect(res.body.data[0].startDateTime).toBe(local("15:00", 4))
      expect(res.body.data[0].billingSummaries[0].payment_id).toBe(m.payment.paymentId)
    })
  })
})
