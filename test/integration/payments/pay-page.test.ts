import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { ENGINES } from "../../support/databases.ts"
import { startHarness, type Harness } from "../../support/harness.ts"
import {
  advanceTo,
  bookRoom,
  eventsOf,
  getMeeting,
  paymentRows,
  postPay,
  setUpPaymentsWorld,
  type PaymentsWorld,
} from "./payment-fixtures.ts"

/**
 * Operator contract section 4: GET/POST {KEYSPACE_PUBLIC_URL}/pay/{paymentId}. Paid moves the
 * booking unpaid -> active and redirects to frontendRedirectUrl; a post after the window or
 * for a voided (or already settled) payment is an error page, 409 SV006, changing nothing.
 */
describe.each(ENGINES)("sandbox pay page on %s", (engine) => {
  let h: Harness
  let w: PaymentsWorld
  beforeAll(async () => {
    h = await startHarness(engine, { KEYSPACE_MAX_UNPAID_HOLDS: "100" })
    w = await setUpPaymentsWorld(h)
  })
  afterAll(async () => h?.close())

  const getPage = async (paymentId: string) => {
    const res = await h.booted.app.request(`/pay/${paymentId}`)
    return { status: res.status, html: await res.text(), headers: res.headers }
  }

  it("GET shows the booking, the room, the time, the amount, the QR image and Pay/Decline buttons", async () => {
    const m = await bookRoom(h, w, "lotus", "10:00", "11:30", 1)
    const page = await getPage(m.payment.paymentId)
    expect(page.status).toBe(200)
    expect(page.headers.get("content-type")).toMatch(/^text\/html/)
    expect(page.html).toContain("Paid meeting")
    expect(page.html).toContain("Lotus")
    expect(page.html).toContain("10:00-11:30")
    expect(page.html).toContain("150.00 THB")
    expect(page.html).toContain(`src="${m.payment.webPaymentQr}"`)
    // The window's end in the booking's zone, as the "When" line is (harness clock: 09:00 Bangkok).
    expect(page.html).toMatch(/<time datetime="\d{4}-\d\d-\d\dT09:05:00\+07:00" data-testid="pay-before">09:05:00 \(Asia\/Bangkok\)<\/time>/)
    expect(page.html).toContain("Scan with a banking app")
    // No action: the form posts back to the page's address as the browser reached it (a
    // proxy's path prefix kept).
    expect(page.html).toMatch(/<form method="post" class="actions">/)
    expect(page.html).toContain('name="outcome" value="paid"')
    expect(page.html).toContain('name="outcome" value="failed"')
    // No framing of a Pay button, no script at all.
    expect(page.headers.get("content-security-policy")).toContain("frame-ancestors 'none'")
    expect(page.html).not.toContain("<script")
  })

  it("every value on the page is HTML-escaped", async () => {
    const m = await bookRoom(h, w, "jasmine", "10:00", "11:00", 1, { title: `<script>alert("x")</script> & 'co'` })
    const page = await getPage(m.payment.paymentId)
    expect(page.html).not.toContain("<script>alert")
    expect(page.html).toContain("&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#39;co&#39;")
    expect(page.html).toContain("Jasmine &lt;&amp;&gt; &quot;quoted&quot;")
  })

  it("paid: payment paid, booking unpaid -> active, BOOK in the outbox, 303 to frontendRedirectUrl", async () => {
    const m = await bookRoom(h, w, "lotus", "13:00", "14:00", 1, {
      frontendRedirectUrl: "https://app.example.test/booked?ref=42",
    })
    expect((await eventsOf(h, m._id)).map((e) => e.type)).toEqual([])
    const res = await postPay(h, m.payment.paymentId, "paid")
    expect(res.status).toBe(303)
    expect(res.headers.get("location")).toBe("https://app.example.test/booked?ref=42")
    const got = await getMeeting(h, w, m._id)
    expect(got.status).toBe("active")
    expect(got.payment).toBeUndefined()
    expect(got.billingSummaries).toMatchObject([{ payment_id: m.payment.paymentId, status: "paid" }])
    expect(got.histories.map((x: any) => x.action)).toEqual(["create", "payment"])
    expect((await eventsOf(h, m._id)).map((e) => e.type)).toEqual(["ROOM_BOOK"])
    // An active booking now has its lifecycle ticks; paying twice is refused.
    const again = await postPay(h, m.payment.paymentId, "paid")
    expect(again.status).toBe(409)
    expect(await again.text()).toContain("SV006")
    expect((await eventsOf(h, m._id)).map((e) => e.type)).toEqual(["ROOM_BOOK"])
  })

  it("paid: a non-ASCII frontendRedirectUrl is redirected to in its ASCII form (punycode host, percent-encoded path and query)", async () => {
    const m = await bookRoom(h, w, "lotus", "16:00", "17:00", 1, { frontendRedirectUrl: "https://例え.jp/ü?q=ü" })
    const res = await postPay(h, m.payment.paymentId, "paid")
    expect(res.status).toBe(303)
    expect(res.headers.get("location")).toBe("https://xn--r8jz45g.jp/%C3%BC?q=%C3%BC")
  })

  it("paid without frontendRedirectUrl: a success page", async () => {
    const m = await bookRoom(h, w, "lotus", "15:00", "16:00", 1)
    const res = await postPay(h, m.payment.paymentId, "paid")
    expect(res.status).toBe(200)
    expect(await res.text()).toContain("Payment received")
    expect((await getMeeting(h, w, m._id)).status).toBe("active")
  })

  it("declined (outcome=failed): payment failed, nothing else; the booking stays unpaid until the window ends", async () => {
    const m = await bookRoom(h, w, "lotus", "10:00", "11:00", 2)
    const res = await postPay(h, m.payment.paymentId, "failed")
    expect(res.status).toBe(200)
    expect(await res.text()).toContain("declined")
    const got = await getMeeting(h, w, m._id)
    expect(got.status).toBe("unpaid")
    expect(got.billingSummaries[0].status).toBe("failed")
    expect((await eventsOf(h, m._id)).map((e) => e.type)).toEqual([])
    // A decline is final for this payment: a later Pay is refused.
    expect((await postPay(h, m.payment.paymentId, "paid")).status).toBe(409)
  })

  it("a post after the window lapsed (service clock) shows an error page, 409 SV006, and changes nothing", async () => {
    const m = await bookRoom(h, w, "lotus", "10:00", "11:00", 3)
    await advanceTo(h, "09:05", 0) // the booking was made at 09:00 on the harness Monday
    const res = await postPay(h, m.payment.paymentId, "paid")
    expect(res.status).toBe(409)
    const html = await res.text()
    expect(html).toContain("SV006")
    expect(html).toContain("Nothing was changed")
    const got = await getMeeting(h, w, m._id)
    expect(got.status).toBe("cancelled")
    expect((await paymentRows(h, m._id))[0]!.status).toBe("expired")
    // GET still answers, with the closed window and no buttons.
    const page = await getPage(m.payment.paymentId)
    expect(page.status).toBe(200)
    expect(page.html).toContain("Payment window closed")
    expect(page.html).not.toContain('value="paid"')
  })

  it("an extension whose window closed says the booking keeps its earlier times, not to book again", async () => {
    const m = await bookRoom(h, w, "lotus", "14:00", "15:00", 4)
    expect((await postPay(h, m.payment.paymentId, "paid")).status).toBe(200)
    const ext = await h.request("PATCH", `/meetings/${m._id}`, { token: w.token, body: { endDateTime: m.endDateTime.replace("15:00", "16:00") } })
    expect(ext.body.data?.status, JSON.stringify(ext.body)).toBe("unpaid")
    await h.advance(5)
    const page = await getPage(ext.body.data.payment.paymentId)
    expect(page.html).toContain("Payment window closed")
    expect(page.html).toContain("the booking keeps its earlier times")
    expect(page.html).not.toContain("book again")
    expect((await getMeeting(h, w, m._id)).endDateTime).toBe(m.endDateTime)
  })

  it("a post for a voided payment (booking cancelled) is 409 SV006 and changes nothing", async () => {
    const m = await bookRoom(h, w, "lotus", "12:00", "13:00", 3)
    const cancel = await h.request("POST", `/meetings/${m._id}/cancel`, { token: w.token })
    expect(cancel.status).toBe(202)
    const res = await postPay(h, m.payment.paymentId, "paid")
    expect(res.status).toBe(409)
    expect(await res.text()).toContain("cancelled")
    expect((await getMeeting(h, w, m._id)).status).toBe("cancelled")
    expect((await paymentRows(h, m._id))[0]!.status).toBe("voided")
  })

  it("concurrent Pay presses on one payment: exactly one pays, the others are 409, one BOOK", async () => {
    const m = await bookRoom(h, w, "orchid", "10:00", "11:00", 4)
    const results = await Promise.all(
      Array.from({ length: 8 }, () => postPay(h, m.payment.paymentId, "paid").then((r) => r.status)),
    )
    expect(results.filter((s) => s === 200)).toHaveLength(1)
    expect(results.filter((s) => s === 409)).toHaveLength(7)
    expect((await eventsOf(h, m._id)).map((e) => e.type)).toEqual(["ROOM_BOOK"])
    expect((await getMeeting(h, w, m._id)).status).toBe("active")
  })

  it("an unknown payment is a 404 page; a post without a valid outcome is 400", async () => {
    expect((await getPage("0123456789abcdef01234567")).status).toBe(404)
    expect((await postPay(h, "0123456789abcdef01234567", "paid")).status).toBe(404)
    const m = await bookRoom(h, w, "lotus", "14:00", "15:00", 3)
    expect((await postPay(h, m.payment.paymentId, "maybe")).status).toBe(400)
    expect((await getMeeting(h, w, m._id)).status).toBe("unpaid")
  })

  it("an outcome given twice (paid and failed) is 400 and changes nothing: a decline is final, so an ambiguous post must not be one", async () => {
    const m = await bookRoom(h, w, "lotus", "15:00", "16:00", 3)
    const res = await h.booted.app.request(`/pay/${m.payment.paymentId}`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: "outcome=paid&outcome=failed",
    })
    expect(res.status).toBe(400)
    expect(await res.text()).toContain("outcome: must be given once")
    expect((await getMeeting(h, w, m._id)).status).toBe("unpaid")
    expect((await postPay(h, m.payment.paymentId, "paid")).status).toBe(200)
  })
})
