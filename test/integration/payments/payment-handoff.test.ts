import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { promptPayPayload, qrDataUri } from "../../../adapters/payments/promptpay-qr.ts"
import { ENGINES } from "../../support/databases.ts"
import { CLOCK_START, startHarness, type Harness } from "../../support/harness.ts"
import {
  actAsToken,
  bookRoom,
  createMeeting,
  eventsOf,
  getMeeting,
  local,
  paymentRows,
  setUpPaymentsWorld,
  type PaymentsWorld,
} from "./payment-fixtures.ts"

/**
 * Spec: Booking status "(none) -> unpaid" (payment object and billingSummaries returned),
 * Payment, Meeting.payment/billingSummaries, CreateMeetingRequest paymentChannel/discountCode,
 * Limits "Payment window"; operator contract section 4 (webPaymentUrl, webPaymentQr).
 */
describe.each(ENGINES)("payment hand-off on %s", (engine) => {
  let h: Harness
  let w: PaymentsWorld
  const PUBLIC_URL = "https://book.example.test"
  beforeAll(async () => {
    h = await startHarness(engine, {
      KEYSPACE_PUBLIC_URL: PUBLIC_URL,
      KEYSPACE_PROMPTPAY_ID: "0812345678",
      // Every booking here is the app's own: lift the hold cap (tested on its own elsewhere).
      KEYSPACE_MAX_UNPAID_HOLDS: "100",
    })
    w = await setUpPaymentsWorld(h)
  })
  afterAll(async () => h?.close())

  it("a paid create is unpaid with a payment object: amount from chargeRate, summary, web payment address and QR", async () => {
    const m = await bookRoom(h, w, "lotus", "10:00", "11:30", 1)
    expect(m.status).toBe("unpaid")
    const p = m.payment
    expect(p).toMatchObject({
      amount: 150,
      summary: { subtotal: 150, total: 150, discounts: [] },
    })
    expect(p.paymentId).toMatch(/^[0-9a-f]{24}$/)
    expect(p.invoiceNo).toMatch(/^INV-20300107-\d{6}$/)
    expect(p.webPaymentUrl).toBe(`${PUBLIC_URL}/pay/${p.paymentId}`)
    expect(p.webPaymentQr).toMatch(/^data:image\/png;base64,[A-Za-z0-9+/]+=*$/)
    // No webPaymentUrl or QR leaks into the outbox (webhooks never carry payment addresses).
    expect(JSON.stringify(await eventsOf(h, m._id))).not.toContain("/pay/")
  })

  it("billingSummaries: one pending line whose expiredAt is the end of the payment window (5 minutes)", async () => {
    const m = await bookRoom(h, w, "lotus", "13:00", "14:00", 1)
    expect(m.billingSummaries).toEqual([
      {
        payment_id: m.payment.paymentId,
        amount: 100,
        total: 100,
        invoice_no: m.payment.invoiceNo,
        status: "pending",
        expiredAt: new Date(Date.parse(CLOCK_START) + 5 * 60_000).toISOString(),
        kind: "create",
        paymentChannel: "prompt-pay",
      },
    ])
  })

  it("GET /meetings/{id} shows the same payment while the booking is unpaid", async () => {
    const m = await bookRoom(h, w, "lotus", "15:00", "16:00", 1)
    const got = await getMeeting(h, w, m._id)
    expect(got.status).toBe("unpaid")
    expect(got.payment).toEqual(m.payment)
    expect(got.billingSummaries).toEqual(m.billingSummaries)
  })

  it("the pay hand-off (payment, billingSummaries with their payment ids) goes to whoever sees the pinCode: the organizer and the booking app, not another member", async () => {
    const alice = await actAsToken(h, "ext-alice")
    const m = await bookRoom(h, w, "lotus", "16:00", "17:00", 1, {}, alice)
    expect(m.payment.webPaymentUrl).toBeDefined()
    for (const token of [alice, w.token]) {
      const seen = (await h.request("GET", `/meetings/${m._id}`, { token })).body.data
      expect(seen.payment).toEqual(m.payment)
    }
    const bob = await actAsToken(h, "ext-bob")
    const other = await h.request("GET", `/meetings/${m._id}`, { token: bob })
    expect(other.status).toBe(200)
    expect(other.body.data.status).toBe("unpaid")
    expect(other.body.data.pinCode).toBeUndefined()
    expect(other.body.data.payment).toBeUndefined()
    expect(other.body.data.billingSummaries).toEqual([])
    const listed = await h.request("GET", `/meetings?from=${encodeURIComponent(local("15:00", 1))}&to=${encodeURIComponent(local("18:00", 1))}`, { token: bob })
    const row = listed.body.data.find((x: any) => x._id === m._id)
    expect(row.payment).toBeUndefined()
    expect(JSON.stringify(listed.body)).not.toContain(m.payment.paymentId)
    // A holder of the pin acting on the booking sees what the organizer sees in the answer.
    const withPin = await h.request("PATCH", `/meetings/${m._id}`, { token: bob, body: { pinCode: m.pinCode, title: "Renamed by the pin holder" } })
    expect(withPin.status, JSON.stringify(withPin.body)).toBe(409) // unpaid: no update yet
    const cancelled = await h.request("POST", `/meetings/${m._id}/cancel`, { token: bob, body: { pinCode: m.pinCode } })
    expect(cancelled.status).toBe(202)
    expect(cancelled.body.data.billingSummaries).toHaveLength(1)
    expect(cancelled.body.data.pinCode).toBe(m.pinCode)
  })

  it("prompt-pay (the default channel) QR encodes the EMVCo PromptPay payload for the amount", async () => {
    const m = await bookRoom(h, w, "orchid", "10:00", "11:00", 1)
    expect(m.payment.amount).toBe(150.5)
    const payload = promptPayPayload("0812345678", 150.5)
    // Merchant-presented, dynamic, PromptPay AID, THB (764), amount, CRC.
    expect(payload).toMatch(/^000201010212/)
    expect(payload).toContain("A000000677010111")
    expect(payload).toContain("5303764")
    expect(payload).toContain("5406150.50")
    expect(m.payment.webPaymentQr).toBe(await qrDataUri(payload))
    const [row] = await paymentRows(h, m._id)
    expect(row!.channel).toBe("prompt-pay")
  })

  it("another paymentChannel is recorded and its QR opens the web payment page", async () => {
    const m = await bookRoom(h, w, "orchid", "12:00", "13:00", 1, { paymentChannel: "credit-card" })
    expect(m.payment.webPaymentQr).toBe(await qrDataUri(m.payment.webPaymentUrl))
    expect(m.billingSummaries[0].paymentChannel).toBe("credit-card")
    expect((await paymentRows(h, m._id))[0]!.channel).toBe("credit-card")
  })

  it("perDay caps a long day: 9 hours at 100/h with a 600 perDay cost 600", async () => {
    const m = await bookRoom(h, w, "lotus", "08:00", "17:00", 2)
    expect(m.payment.summary).toEqual({ subtotal: 600, total: 600, discounts: [] })
  })

  it("a desk with a chargeRate is paid too", async () => {
    const res = await createMeeting(h, w.token, {
      deskId: w.ids.desks.hot,
      startDateTime: local("09:00", 2),
      endDateTime: local("12:00", 2),
    })
    expect(res.status).toBe(201)
    expect(res.body.data.status).toBe("unpaid")
    expect(res.body.data.payment.amount).toBe(120)
  })

  describe("discount codes (manifest discounts)", () => {
    it("a percentOff code, matched case-insensitively, is listed with its value and name", async () => {
      const m = await bookRoom(h, w, "lotus", "09:00", "11:00", 3, { discountCode: "welcome10" })
      expect(m.payment.summary).toEqual({
        subtotal: 200,
        total: 180,
        discounts: [{ code: "WELCOME10", value: 20, name: "Welcome" }],
      })
      expect(m.payment.amount).toBe(180)
      expect(m.billingSummaries[0]).toMatchObject({ amount: 180, total: 180 })
    })

    it("an amountOff code takes THB off, never below zero", async () => {
      const m = await bookRoom(h, w, "lotus", "12:00", "14:00", 3, { discountCode: "FLAT50" })
      expect(m.payment.summary).toEqual({
        subtotal: 200,
        total: 150,
        discounts: [{ code: "Flat50", value: 50, name: "Fifty off" }],
      })
    })

    it("an unknown code is 400 SV001 naming discountCode, and nothing is booked", async () => {
      const res = await createMeeting(h, w.token, {
        meetingRoomId: w.ids.rooms.lotus,
        startDateTime: local("15:00", 3),
        endDateTime: local("16:00", 3),
        discountCode: "NOPE",
      })
      expect(res.status).toBe(400)
      expect(res.body.code).toBe("SV001")
      expect(JSON.stringify(res.body.message)).toContain("discountCode")
      // The slot is still free.
      await bookRoom(h, w, "lotus", "15:00", "16:00", 3)
    })

    it("a 100% discount leaves nothing to pay: the booking is active at once, with no payment", async () => {
      const m = await bookRoom(h, w, "lotus", "17:00", "18:00", 3, { discountCode: "FREEBIE" })
      expect(m.status).toBe("active")
      expect(m.payment).toBeUndefined()
      expect(await paymentRows(h, m._id)).toEqual([])
      expect((await eventsOf(h, m._id)).map((e) => e.type)).toEqual(["ROOM_BOOK"])
    })
  })

  it("a free room is active at once: no payment, empty billingSummaries", async () => {
    const m = await bookRoom(h, w, "free", "10:00", "11:00", 4)
    expect(m.status).toBe("active")
    expect(m.payment).toBeUndefined()
    expect(m.billingSummaries).toEqual([])
  })
})
