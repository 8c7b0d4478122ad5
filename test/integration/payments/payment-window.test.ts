import { sql } from "drizzle-orm"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { ENGINES } from "../../support/databases.ts"
import { startHarness, type Harness } from "../../support/harness.ts"
import {
  actAsToken,
  advanceTo,
  at,
  bookRoom,
  eventsOf,
  getMeeting,
  local,
  PAY_APP,
  paymentRows,
  postPay,
  setUpPaymentsWorld,
  type PaymentsWorld,
} from "./payment-fixtures.ts"

/**
 * Spec Booking status: "unpaid -> payment window lapses -> cancelled (cancel event with reason
 * for payment lapse)", "unpaid -> cancel -> cancelled, pending payments voided", "active or
 * checked-in -> PATCH extending a paid booking -> unpaid (with payment object)"; Limits
 * "Payment window". All on the manual clock.
 */
describe.each(ENGINES)("payment window, voiding and paid extensions on %s", (engine) => {
  let h: Harness
  let w: PaymentsWorld
  beforeAll(async () => {
    // The clock moves days ahead here: keep the app's token valid (and the hold cap out of the way).
    h = await startHarness(engine, { KEYSPACE_ACCESS_TOKEN_TTL: "604800", KEYSPACE_MAX_UNPAID_HOLDS: "100" })
    w = await setUpPaymentsWorld(h)
  })
  afterAll(async () => h?.close())

  const cancel = (id: string, body?: unknown) =>
    h.request("POST", `/meetings/${id}/cancel`, { token: w.token, ...(body === undefined ? {} : { body }) })
  const patch = (id: string, body: unknown) => h.request("PATCH", `/meetings/${id}`, { token: w.token, body })
  const paid = async (m: any) => {
    const res = await postPay(h, m.payment.paymentId, "paid")
    expect(res.status).toBe(200)
  }

  it("an unpaid booking lapses exactly at the window's end: cancelled with reason payment-lapsed, payment expired", async () => {
    // The clock stands at 09:00 of day 0: the window ends at 09:05.
    const m = await bookRoom(h, w, "lotus", "10:00", "11:00", 1)
    expect(m.billingSummaries[0].expiredAt).toBe(new Date(at("09:05")).toISOString())
    await advanceTo(h, "09:04", 0)
    expect((await getMeeting(h, w, m._id)).status).toBe("unpaid")
    await advanceTo(h, "09:05", 0)
    const got = await getMeeting(h, w, m._id)
    expect(got.status).toBe("cancelled")
    expect(got.payment).toBeUndefined()
    expect(got.billingSummaries).toMatchObject([{ payment_id: m.payment.paymentId, status: "expired" }])
    expect(got.histories.map((x: any) => x.action)).toEqual(["create", "payment-lapsed"])
    const events = await eventsOf(h, m._id)
    expect(events.map((e) => `${e.type}@${e.at}`)).toEqual([`ROOM_CANCEL@${new Date(at("09:05")).toISOString()}`])
    expect(events[0]!.event.reason).toBe("payment-lapsed")
    // The slot is free again.
    await bookRoom(h, w, "lotus", "10:00", "11:00", 1)
  })

  describe("cancel of an unpaid booking", () => {
    it("voids its pending payment (cancel body paymentId matching)", async () => {
      const m = await bookRoom(h, w, "lotus", "12:00", "13:00", 1)
      const res = await cancel(m._id, { paymentId: m.payment.paymentId })
      expect(res.status).toBe(202)
      expect(res.body.data.status).toBe("cancelled")
      expect(res.body.data.payment).toBeUndefined()
      expect(res.body.data.billingSummaries).toMatchObject([{ status: "voided" }])
      expect((await paymentRows(h, m._id))[0]!.status).toBe("voided")
      // The window's end later changes nothing more.
      await advanceTo(h, "09:20", 0)
      expect((await paymentRows(h, m._id))[0]!.status).toBe("voided")
      expect((await eventsOf(h, m._id)).map((e) => e.type)).toEqual(["ROOM_CANCEL"])
      expect((await eventsOf(h, m._id))[0]!.event.reason).toBeUndefined()
    })

    it("without a paymentId voids the pending payment too", async () => {
      const m = await bookRoom(h, w, "lotus", "13:00", "14:00", 1)
      expect((await cancel(m._id)).status).toBe(202)
      expect((await paymentRows(h, m._id))[0]!.status).toBe("voided")
    })

    it("a paymentId that is not a payment of this meeting is 400 SV001 and cancels nothing", async () => {
      const a = await bookRoom(h, w, "lotus", "14:00", "15:00", 1)
      const b = await bookRoom(h, w, "lotus", "15:00", "16:00", 1)
      const res = await cancel(a._id, { paymentId: b.payment.paymentId })
      expect(res.status).toBe(400)
      expect(res.body.code).toBe("SV001")
      expect(JSON.stringify(res.body.message)).toContain("paymentId")
      expect((await getMeeting(h, w, a._id)).status).toBe("unpaid")
      expect((await paymentRows(h, a._id))[0]!.status).toBe("pending")
      await cancel(a._id)
      await cancel(b._id)
    })

    it("an operator reject of an unpaid booking voids its payment too", async () => {
      const m = await bookRoom(h, w, "orchid", "12:00", "13:00", 1)
      const res = await h.admin("POST", `/meetings/${m._id}/reject`, { reason: "room closed" })
      expect(res.status).toBe(200)
      expect(res.body.data.status).toBe("rejected")
      expect((await paymentRows(h, m._id))[0]!.status).toBe("voided")
      expect((await postPay(h, m.payment.paymentId, "paid")).status).toBe(409)
    })

    it("cancelled or rejected while its extension awaits payment, a booking ends with the times it had paid for", async () => {
      for (const [day, end] of [[3, "cancel"], [4, "reject"]] as const) {
        const m = await bookRoom(h, w, "lotus", "10:00", "11:00", day)
        await paid(m)
        expect((await patch(m._id, { startDateTime: local("09:30", day), endDateTime: local("11:30", day) })).body.data.status).toBe("unpaid")
        const res = end === "cancel" ? await cancel(m._id) : await h.admin("POST", `/meetings/${m._id}/reject`, {})
        expect(res.status, end).toBe(end === "cancel" ? 202 : 200)
        expect(res.body.data, end).toMatchObject({ startDateTime: local("10:00", day), endDateTime: local("11:00", day) })
        const got = await getMeeting(h, w, m._id)
        expect(got, end).toMatchObject({ status: end === "cancel" ? "cancelled" : "rejected", startDateTime: local("10:00", day), endDateTime: local("11:00", day) })
        expect(got.billingSummaries.map((b: any) => b.status), end).toEqual(["paid", "voided"])
      }
    })

    it("a paymentId that is no longer pending (declined) is 409 SV006; the booking stays unpaid", async () => {
      const m = await bookRoom(h, w, "lotus", "16:00", "17:00", 1)
      await postPay(h, m.payment.paymentId, "failed")
      const res = await cancel(m._id, { paymentId: m.payment.paymentId })
      expect(res.status).toBe(409)
      expect(res.body.code).toBe("SV006")
      expect((await getMeeting(h, w, m._id)).status).toBe("unpaid")
      expect((await cancel(m._id)).status).toBe(202)
    })
  })

  describe("paid extension (PATCH lengthening a paid booking)", () => {
    it("moves the booking to unpaid with a payment for the difference; paying restores active with the new end and MODIFY", async () => {
      const m = await bookRoom(h, w, "lotus", "10:00", "11:00", 2, { frontendRedirectUrl: "https://app.example.test/x" })
      expect((await postPay(h, m.payment.paymentId, "paid")).status).toBe(303)
      const res = await patch(m._id, { endDateTime: local("12:30", 2) })
      expect(res.status).toBe(200)
      const ext = res.body.data
      expect(ext.status).toBe("unpaid")
      expect(ext.endDateTime).toBe(local("12:30", 2))
      expect(ext.payment).toMatchObject({ amount: 150, summary: { subtotal: 150, total: 150, discounts: [] } })
      expect(ext.payment.paymentId).not.toBe(m.payment.paymentId)
      expect(ext.billingSummaries).toMatchObject([
        { payment_id: m.payment.paymentId, status: "paid", amount: 100, total: 100, kind: "create" },
        { payment_id: ext.payment.paymentId, status: "pending", amount: 150, total: 250, kind: "extension" },
      ])
      // The extra time is held while the payer pays.
      const clash = await h.request("POST", "/meetings", {
        token: w.token,
        body: { title: "x", meetingRoomId: w.ids.rooms.lotus, startDateTime: local("12:00", 2), endDateTime: local("13:00", 2) },
      })
      expect(clash.status).toBe(409)
      expect(clash.body.code).toBe("SV012")
      // No MODIFY until it is paid.
      expect((await eventsOf(h, m._id)).map((e) => e.type)).toEqual(["ROOM_BOOK"])
      expect((await postPay(h, ext.payment.paymentId, "paid")).status).toBe(303)
      const got = await getMeeting(h, w, m._id)
      expect(got.status).toBe("active")
      expect(got.endDateTime).toBe(local("12:30", 2))
      expect(got.payment).toBeUndefined()
      const events = await eventsOf(h, m._id)
      expect(events.map((e) => e.type)).toEqual(["ROOM_BOOK", "ROOM_MODIFY"])
      expect(events[1]!.event).toMatchObject({ oldEnd: at("11:00", 2), newEnd: at("12:30", 2) })
    })

    it("a lapsed extension payment leaves the original, already paid booking as it was (end and status restored, no cancel)", async () => {
      const m = await bookRoom(h, w, "lotus", "14:00", "15:00", 2)
      await paid(m)
      const res = await patch(m._id, { endDateTime: local("16:00", 2) })
      expect(res.body.data.status).toBe("unpaid")
      const expiredAt = res.body.data.billingSummaries[1].expiredAt
      const clock = await h.admin("GET", "/clock")
      expect(Date.parse(expiredAt) - Date.parse(clock.body.data.now)).toBe(5 * 60_000)
      await h.advance(5)
      const got = await getMeeting(h, w, m._id)
      expect(got.status).toBe("active")
      expect(got.endDateTime).toBe(local("15:00", 2))
      expect(got.billingSummaries.map((b: any) => b.status)).toEqual(["paid", "expired"])
      expect(got.histories.map((x: any) => x.action)).toEqual(["create", "payment", "update", "payment-lapsed"])
      expect((await eventsOf(h, m._id)).map((e) => e.type)).toEqual(["ROOM_BOOK"])
      // Its extra hour is free again; a post on the lapsed payment changes nothing.
      expect((await postPay(h, res.body.data.payment.paymentId, "paid")).status).toBe(409)
      await bookRoom(h, w, "lotus", "15:00", "16:00", 2)
      expect((await getMeeting(h, w, m._id)).endDateTime).toBe(local("15:00", 2))
    })

    it("only the times await payment: a title changed beside them stands at once, announced by a MODIFY of unchanged times, and stays when the extension lapses", async () => {
      const m = await bookRoom(h, w, "lotus", "17:00", "18:00", 2)
      await paid(m)
      const res = await patch(m._id, { endDateTime: local("19:00", 2), title: "Renamed" })
      expect(res.body.data).toMatchObject({ status: "unpaid", title: "Renamed" })
      const events = await eventsOf(h, m._id)
      expect(events.map((e) => e.type)).toEqual(["ROOM_BOOK", "ROOM_MODIFY"])
      expect(events[1]!.event).toMatchObject({ oldStart: at("17:00", 2), oldEnd: at("18:00", 2), newStart: at("17:00", 2), newEnd: at("18:00", 2) })
      await h.advance(5)
      const got = await getMeeting(h, w, m._id)
      expect(got).toMatchObject({ status: "active", title: "Renamed", endDateTime: local("18:00", 2) })
      expect((await eventsOf(h, m._id)).map((e) => e.type)).toEqual(["ROOM_BOOK", "ROOM_MODIFY"])
    })

    it("a change that costs more must keep the booking's paid times (409 SV006, its draft too): a lapse could not restore times it had freed", async () => {
      const m = await bookRoom(h, w, "lotus", "10:00", "11:00", 7)
      await paid(m)
      for (const draft of [true, false]) {
        const moved = await patch(m._id, { startDateTime: local("13:00", 7), endDateTime: local("15:00", 7), ...(draft ? { draft } : {}) })
        expect(moved.status, JSON.stringify(moved.body)).toBe(409)
        expect(moved.body).toMatchObject({ code: "SV006", success: false })
        expect(moved.body.message).toMatch(/move it first/)
      }
      // The same change in two steps: a move at the same price, then a longer end.
      expect((await patch(m._id, { startDateTime: local("13:00", 7), endDateTime: local("14:00", 7) })).body.data.status).toBe("active")
      const longer = await patch(m._id, { endDateTime: local("15:00", 7) })
      expect(longer.body.data.status).toBe("unpaid")
      expect(longer.body.data.payment).toMatchObject({ amount: 100 })
    })

    it("an extension whose earlier times were taken meanwhile lapses as a paid create does (cancelled), not into a tick that fails for ever", async () => {
      const m = await bookRoom(h, w, "lotus", "10:00", "11:00", 8)
      await paid(m)
      const longer = await patch(m._id, { endDateTime: local("12:00", 8) })
      expect(longer.body.data.status).toBe("unpaid")
      // Such an extension could be opened before moves that cost more were refused: its times
      // before the PATCH (written here as 14:00-15:00) were freed and then booked by another.
      await h.booted.services.database.db.execute(
        sql`update payments set previous_start_at = ${local("14:00", 8)}::timestamptz, previous_end_at = ${local("15:00", 8)}::timestamptz where id = ${longer.body.data.payment.paymentId}`,
      )
      await paid(await bookRoom(h, w, "lotus", "14:00", "15:00", 8))
      await h.advance(5)
      const got = await getMeeting(h, w, m._id)
      expect(got.status).toBe("cancelled")
      expect(got.billingSummaries.map((b: any) => b.status)).toEqual(["paid", "expired"])
      expect(got.histories.map((x: any) => x.action)).toEqual(["create", "payment", "update", "payment-lapsed"])
    })

    it("a checked-in booking extended and paid goes back to checked-in; lapsed, it is checked-in with its old end; never cancelled between", async () => {
      const a = await bookRoom(h, w, "orchid", "10:00", "11:00", 3)
      await paid(a)
      await advanceTo(h, "09:50", 3)
      const checkIn = await h.request("POST", `/meetings/${a._id}/check-in`, { token: w.token })
      expect(checkIn.status).toBe(202)
      const ext = await patch(a._id, { endDateTime: local("12:00", 3) })
      expect(ext.body.data.status).toBe("unpaid")
      expect(ext.body.data.payment.amount).toBe(150.5)
      await paid(ext.body.data)
      const got = await getMeeting(h, w, a._id)
      expect(got.status).toBe("checked-in")
      expect(got.endDateTime).toBe(local("12:00", 3))

      const again = await patch(a._id, { endDateTime: local("13:00", 3) })
      expect(again.body.data.status).toBe("unpaid")
      // Still a checked-in booking while its extension awaits payment: it cannot be cancelled.
      const cancel = await h.request("POST", `/meetings/${a._id}/cancel`, { token: w.token })
      expect(cancel.status).toBe(409)
      expect(cancel.body).toMatchObject({ code: "SV006", success: false })
      expect((await getMeeting(h, w, a._id)).status).toBe("unpaid")
      await h.advance(5)
      const lapsed = await getMeeting(h, w, a._id)
      expect(lapsed.status).toBe("checked-in")
      expect(lapsed.endDateTime).toBe(local("12:00", 3))
    })

    it("a pinCode holder who extends a paid booking gets the extension's payment in the answer, to pay it", async () => {
      const alice = await actAsToken(h, "ext-alice")
      const m = await bookRoom(h, w, "orchid", "10:00", "11:00", 5, {}, alice)
      await paid(m)
      const bob = await actAsToken(h, "ext-bob")
      const ext = await h.request("PATCH", `/meetings/${m._id}`, { token: bob, body: { pinCode: m.pinCode, endDateTime: local("12:00", 5) } })
      expect(ext.status, JSON.stringify(ext.body)).toBe(200)
      expect(ext.body.data.status).toBe("unpaid")
      expect(ext.body.data.payment?.webPaymentUrl).toBeDefined()
      // Without the pin, Bob's own GET still shows no pay hand-off.
      expect((await h.request("GET", `/meetings/${m._id}`, { token: bob })).body.data.payment).toBeUndefined()
    })

    it("a PATCH that does not raise the price (shorter, or only the title) stays active with no payment", async () => {
      const m = await bookRoom(h, w, "lotus", "14:00", "16:00", 3)
      await paid(m)
      const shorter = await patch(m._id, { endDateTime: local("15:00", 3), title: "Shorter" })
      expect(shorter.status).toBe(200)
      expect(shorter.body.data.status).toBe("active")
      expect(shorter.body.data.payment).toBeUndefined()
      expect((await paymentRows(h, m._id)).length).toBe(1)
    })

    it("time paid for and given up by a shorter PATCH is not charged again when the booking grows back; only time beyond what was paid is", async () => {
      const m = await bookRoom(h, w, "jasmine", "10:00", "11:00", 4)
      await paid(m)
      const longer = await patch(m._id, { endDateTime: local("12:00", 4) })
      expect(longer.body.data.payment).toMatchObject({ amount: 100 })
      await paid(longer.body.data)
      const shorter = await patch(m._id, { endDateTime: local("10:30", 4) })
      expect(shorter.body.data.status).toBe("active")
      // 200 THB paid covers two hours: back to one, nothing is owed.
      const back = await patch(m._id, { endDateTime: local("11:00", 4) })
      expect(back.status).toBe(200)
      expect(back.body.data.status).toBe("active")
      expect(back.body.data.payment).toBeUndefined()
      // Three hours (300 THB) against 200 paid: 100 is owed.
      const beyond = await patch(m._id, { endDateTime: local("13:00", 4) })
      expect(beyond.body.data.status).toBe("unpaid")
      expect(beyond.body.data.payment).toMatchObject({ amount: 100, summary: { subtotal: 100, total: 100, discounts: [] } })
      expect((await paymentRows(h, m._id)).length).toBe(3)
    })

    it("time a create paid for and a shorter PATCH gave up is not charged again when the booking grows back", async () => {
      const m = await bookRoom(h, w, "lotus", "10:00", "12:00", 5)
      await paid(m)
      const shorter = await patch(m._id, { endDateTime: local("11:00", 5) })
      expect(shorter.body.data.status).toBe("active")
      const back = await patch(m._id, { endDateTime: local("12:00", 5) })
      expect(back.status).toBe(200)
      expect(back.body.data.status).toBe("active")
      expect(back.body.data.payment).toBeUndefined()
      expect((await paymentRows(h, m._id)).length).toBe(1)
    })

    it("after a paid extension and a move earlier, growing back over the paid times owes only the hours no payment covered", async () => {
      const m = await bookRoom(h, w, "jasmine", "12:00", "13:00", 6)
      await paid(m)
      const longer = await patch(m._id, { endDateTime: local("15:00", 6) })
      expect(longer.body.data.payment).toMatchObject({ amount: 200 })
      await paid(longer.body.data)
      // Moved to a shorter slot earlier in the day: no refund, nothing owed.
      const moved = await patch(m._id, { startDateTime: local("10:00", 6), endDateTime: local("11:00", 6) })
      expect(moved.body.data.status).toBe("active")
      // 10:00-15:00 is five hours; the 300 THB paid covers three of them (12:00-15:00).
      const grown = await patch(m._id, { endDateTime: local("15:00", 6) })
      expect(grown.body.data.status).toBe("unpaid")
      expect(grown.body.data.payment).toMatchObject({ amount: 200 })
    })

    it("an extension of a booking nobody checked in to has its payment window cut at the no-show deadline; lapsed there, the no-show follows at the lapse, not backdated", async () => {
      // The window is 5 minutes; the no-show cancel comes 15 minutes after the 14:00 start.
      const m = await bookRoom(h, w, "orchid", "14:00", "15:00", 9)
      await paid(m)
      await advanceTo(h, "14:12", 9)
      w = { ...w, token: await h.tokenFor(PAY_APP.appId, PAY_APP.appSecret) } // days later: a fresh token
      const ext = await patch(m._id, { endDateTime: local("15:30", 9) })
      expect(ext.body.data?.status, JSON.stringify(ext.body)).toBe("unpaid")
      // Cut from 14:17 to 14:15: paid by then the booking is active again and can be checked in.
      expect(Date.parse(ext.body.data.billingSummaries.at(-1).expiredAt)).toBe(Date.parse(local("14:15", 9)))
      await advanceTo(h, "14:20", 9)
      const got = await getMeeting(h, w, m._id)
      expect(got.status).toBe("cancelled")
      const when = Object.fromEntries(got.histories.map((x: any) => [x.action, x.at]))
      expect(Date.parse(when["payment-lapsed"])).toBe(Date.parse(local("14:15", 9)))
      expect(Date.parse(when["no-show"])).toBeGreaterThanOrEqual(Date.parse(when["payment-lapsed"]))
      const cancel = (await eventsOf(h, m._id)).find((e) => e.type === "ROOM_CANCEL")!
      expect(Date.parse(cancel.at)).toBe(Date.parse(when["payment-lapsed"]))
    })

    it("less than a minute before the no-show deadline of a booking nobody checked in to, an extension is 409 SV006 (check in first); checked in, it is taken with the full window", async () => {
      const n = await bookRoom(h, w, "orchid", "16:00", "17:00", 9)
      await paid(n)
      expect((await h.admin("POST", "/clock/advance", { to: local("16:14", 9).replace(":00+07:00", ":30+07:00") })).status).toBe(200)
      w = { ...w, token: await h.tokenFor(PAY_APP.appId, PAY_APP.appSecret) }
      const tooLate = await patch(n._id, { endDateTime: local("17:30", 9) })
      expect(tooLate.status).toBe(409)
      expect(tooLate.body).toMatchObject({ code: "SV006", success: false })
      expect(tooLate.body.message).toMatch(/check in first/)
      // A draft of the same PATCH says so too.
      const draft = await patch(n._id, { endDateTime: local("17:30", 9), draft: true })
      expect(draft.status).toBe(409)
      const unchanged = await getMeeting(h, w, n._id)
      expect(unchanged.status).toBe("active")
      expect(unchanged.endDateTime).toBe(local("17:00", 9))
      expect((await paymentRows(h, n._id)).length).toBe(1)
      const checkIn = await h.request("POST", `/meetings/${n._id}/check-in`, { token: w.token })
      expect(checkIn.status).toBe(202)
      const afterCheckIn = await patch(n._id, { endDateTime: local("17:30", 9) })
      expect(afterCheckIn.body.data?.status, JSON.stringify(afterCheckIn.body)).toBe("unpaid")
      await paid(afterCheckIn.body.data)
      const extended = await getMeeting(h, w, n._id)
      expect(extended.status).toBe("checked-in")
      expect(extended.endDateTime).toBe(local("17:30", 9))
    })

    it("a declined extension payment whose window was cut still lapses at its cut end (the booking does not stay unpaid)", async () => {
      const m = await bookRoom(h, w, "orchid", "14:00", "15:00", 12)
      await paid(m)
      await advanceTo(h, "14:12", 12)
      w = { ...w, token: await h.tokenFor(PAY_APP.appId, PAY_APP.appSecret) }
      const ext = await patch(m._id, { endDateTime: local("15:30", 12) })
      expect(ext.body.data?.status, JSON.stringify(ext.body)).toBe("unpaid")
      expect((await postPay(h, ext.body.data.payment.paymentId, "failed")).status).toBe(200)
      await advanceTo(h, "14:20", 12)
      const got = await getMeeting(h, w, m._id)
      // Lapsed at 14:15 (back to its paid times, active), then the no-show cancel.
      expect(got.status).toBe("cancelled")
      expect(got.endDateTime).toBe(local("15:00", 12))
    })
  })

  describe("a paid create's payment window", () => {
    it("ends by the booking's end when that comes first: paying later buys a booking already over", async () => {
      await advanceTo(h, "14:12", 13)
      w = { ...w, token: await h.tokenFor(PAY_APP.appId, PAY_APP.appSecret) }
      // 14:13-14:15: the 5-minute window would run to 14:17; cut at the end, 14:15.
      const m = await bookRoom(h, w, "lotus", "14:13", "14:15", 13)
      expect(m.status).toBe("unpaid")
      expect(Date.parse(m.billingSummaries[0].expiredAt)).toBe(at("14:15", 13))
      await advanceTo(h, "14:15", 13)
      expect((await postPay(h, m.payment.paymentId, "paid")).status).toBe(409)
      const got = await getMeeting(h, w, m._id)
      expect(got.status).toBe("cancelled")
      expect(got.histories.map((x: any) => x.action)).toEqual(["create", "payment-lapsed"])
    })

    it("less than a minute before the booking's end is 400 SV001, nothing written", async () => {
      expect((await h.admin("POST", "/clock/advance", { to: local("14:20", 13).replace(":00+07:00", ":30+07:00") })).status).toBe(200)
      const res = await h.request("POST", "/meetings", {
        token: w.token,
        body: { meetingRoomId: w.ids.rooms["lotus"], title: "late", startDateTime: local("14:20", 13), endDateTime: local("14:21", 13) },
      })
      expect(res.status, JSON.stringify(res.body)).toBe(400)
      expect(res.body).toMatchObject({ code: "SV001", success: false })
      expect(res.body.message).toEqual(["endDateTime: a paid booking must leave at least a minute to pay before it ends"])
      const listed = await h.request("GET", `/meetings?from=${encodeURIComponent(local("14:00", 13))}&to=${encodeURIComponent(local("15:00", 13))}`, { token: w.token })
      expect(listed.body.data.filter((x: any) => x.title === "late")).toEqual([])
    })
  })
})
