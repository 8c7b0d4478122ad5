import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { ENGINES } from "../../support/databases.ts"
import { startHarness, type Harness } from "../../support/harness.ts"
import { at, bookRoom, qs, setUpWorld, type BookingWorld } from "./booking-fixtures.ts"

describe.each(ENGINES)("POST /meetings on %s", (engine) => {
  let h: Harness
  let w: BookingWorld
  beforeAll(async () => {
    h = await startHarness(engine)
    w = await setUpWorld(h)
  })
  afterAll(async () => h?.close())

  const post = (token: string, body: unknown) => h.request("POST", "/meetings", { token, body })
  const expect400 = (res: { status: number; body: any }) => {
    expect(res.status).toBe(400)
    expect(res.body.code).toBe("SV001")
    expect(res.body.success).toBe(false)
    expect(Array.isArray(res.body.message)).toBe(true)
    return res.body.message as string[]
  }
  const meetingsOn = async (day: number, token = w.app) =>
    (await h.request("GET", `/meetings?${qs({ from: at(day, "00:00"), to: at(day + 1, "00:00") })}`, { token })).body

  it("a free room booking is 201 active with a pinCode and every Meeting field of the spec", async () => {
    const res = await bookRoom(h, w.alice, w.hq.rooms.lotus, 1, "10:00", "11:00", {
      body: "agenda",
      attendees: [{ email: "BOB@hq.example" }, { email: "guest@else.example", type: "optional" }],
      estimatedAttendance: 3,
    })
    expect(res.status).toBe(201)
    expect(res.body).toMatchObject({ code: "SV000", success: true })
    const m = res.body.data
    expect(m).toMatchObject({
      meetingRoomId: w.hq.rooms.lotus,
      meetingRoomName: "Lotus",
      title: "Sync",
      body: "agenda",
      status: "active",
      startDateTime: "2030-01-08T10:00:00+07:00",
      endDateTime: "2030-01-08T11:00:00+07:00",
      organizer: { userId: w.hq.users.alice, email: "alice@hq.example", name: "Alice Ng", displayName: "Alice Ng" },
      billingSummaries: [],
      checkInDateTime: null,
      checkOutDateTime: null,
      estimatedAttendance: 3,
    })
    expect(m._id).toMatch(/^[0-9a-f]{24}$/)
    expect(m.pinCode).toMatch(/^\d{6}$/)
    expect(m.attendees).toEqual([
      { userId: w.hq.users.bob, email: "BOB@hq.example", name: "Bob Lee", type: "required", responseStatus: "needsAction" },
      { userId: null, email: "guest@else.example", name: "guest@else.example", type: "optional", responseStatus: "needsAction" },
    ])
    expect(m.histories).toEqual([{ action: "create", at: "2030-01-07T02:00:00.000Z", by: w.hq.users.alice }])
    expect(m.deskId).toBeUndefined()
    expect(m.seriesMasterId).toBeUndefined()
    expect(m.occurrenceEventId).toBeUndefined()
    expect(typeof m.createdAt).toBe("string")
    expect(typeof m.updatedAt).toBe("string")
  })

  it("attendees resolve to the booking project's people only: another project's user is never disclosed, by id or by email", async () => {
    const inFar = (attendees: unknown[]) =>
      post(w.otherApp, { meetingRoomId: w.far.rooms.far, title: "Far", startDateTime: at(2, "10:00"), endDateTime: at(2, "10:30"), attendees })
    // Alice is of project hq; the other app books in project elsewhere.
    expect(expect400(await inFar([{ email: "x@else.example", id: w.hq.users.alice }]))).toEqual(["attendees.0.id: no user has this id"])
    const byEmail = await inFar([{ email: "alice@hq.example" }])
    expect(byEmail.status).toBe(201)
    expect(byEmail.body.data.attendees).toEqual([
      { userId: null, email: "alice@hq.example", name: "alice@hq.example", type: "required", responseStatus: "needsAction" },
    ])
  })

  it("request date-times need an offset; seconds are truncated and responses use the project's offset", async () => {
    const res = await post(w.app, {
      meetingRoomId: w.hq.rooms.orchid,
      title: "Z",
      startDateTime: "2030-01-08T06:00:59Z",
      endDateTime: "2030-01-08T07:00:30.999Z",
    })
    expect(res.status).toBe(201)
    expect(res.body.data.startDateTime).toBe("2030-01-08T13:00:00+07:00")
    expect(res.body.data.endDateTime).toBe("2030-01-08T14:00:00+07:00")
    const missing = await post(w.app, { meetingRoomId: w.hq.rooms.orchid, title: "Z", startDateTime: "2030-01-08T10:00:00", endDateTime: "2030-01-08T11:00:00" })
    const messages = expect400(missing)
    expect(messages.filter((m) => m.includes("offset"))).toHaveLength(2)
  })

  it("an app token books as the app's own service identity", async () => {
    const res = await bookRoom(h, w.app, w.hq.rooms.orchid, 2, "09:00", "09:30")
    expect(res.status).toBe(201)
    expect(res.body.data.organizer).toEqual({ userId: w.ids.apps.app, email: null, name: "app", displayName: "app" })
  })

  it("exactly one of meetingRoomId or deskId is required (400 SV001)", async () => {
    const base = { title: "x", startDateTime: at(1, "10:00"), endDateTime: at(1, "11:00") }
    expect400(await post(w.app, base))
    const both = expect400(await post(w.app, { ...base, meetingRoomId: w.hq.rooms.orchid, deskId: w.hq.desks.d1 }))
    expect(both.join()).toContain("exactly one of meetingRoomId or deskId")
  })

  it("a room booking needs endDateTime and takes no timePeriod", async () => {
    const m = expect400(await post(w.app, { meetingRoomId: w.hq.rooms.orchid, title: "x", startDateTime: at(1, "10:00"), timePeriod: "morning" }))
    expect(m.join()).toContain("endDateTime: is required")
    expect(m.join()).toContain("timePeriod: is only for desks")
  })

  it("a desk takes exactly one of endDateTime or timePeriod", async () => {
    const base = { deskId: w.hq.desks.d1, title: "x", startDateTime: at(1, "08:00") }
    expect400(await post(w.app, base))
    expect400(await post(w.app, { ...base, endDateTime: at(1, "10:00"), timePeriod: "morning" }))
  })

  it("validation lists one message per violated constraint", async () => {
    const m = expect400(
      await post(w.app, {
        meetingRoomId: "not-an-id",
        startDateTime: "tomorrow",
        endDateTime: at(1, "11:00"),
        attendees: [{ email: "nope" }, { type: "maybe" }],
        estimatedAttendance: -1,
        paymentChannel: "cash",
        frontendRedirectUrl: "javascript:alert(1)",
        draft: "yes",
      }),
    )
    for (const field of ["meetingRoomId", "title", "startDateTime", "attendees.0.email", "attendees.1.email", "attendees.1.type", "estimatedAttendance", "paymentChannel", "frontendRedirectUrl", "draft"])
      expect(m.some((x) => x.startsWith(`${field}:`)), field).toBe(true)
  })

  it("malformed JSON or a non-object body is 400 SV001", async () => {
    expect400(await post(w.app, "{nope"))
    expect400(await post(w.app, [1, 2]))
    expect400(await h.request("POST", "/meetings", { token: w.app }))
  })

  it("an unknown meetingRoomId or deskId is 404 SV005", async () => {
    const res = await bookRoom(h, w.app, "0123456789abcdef01234567", 1, "10:00", "11:00")
    expect(res.status).toBe(404)
    expect(res.body.code).toBe("SV005")
    const desk = await post(w.app, { deskId: "0123456789abcdef01234567", title: "x", startDateTime: at(1, "08:00"), timePeriod: "allDay" })
    expect(desk.status).toBe(404)
  })

  it("tenancy: an asset of another app's project is 404 SV005, never booked", async () => {
    const res = await bookRoom(h, w.app, w.far.rooms.far, 1, "10:00", "11:00")
    expect(res.status).toBe(404)
    expect(res.body.code).toBe("SV005")
  })

  it("without a token the endpoints answer 401 SV002", async () => {
    const res = await h.request("POST", "/meetings", { body: {} })
    expect(res.status).toBe(401)
    expect(res.body.code).toBe("SV002")
  })

  describe("asset rules (spec Meetings rule 2) give 400 SV001", () => {
    it("outside dayConfig operating hours", async () => {
      const m = expect400(await bookRoom(h, w.app, w.hq.rooms.lotus, 1, "17:30", "18:30"))
      expect(m.join()).toContain("operating hours")
    })
    it("a weekday missing from dayConfig is not bookable", async () => {
      const m = expect400(await bookRoom(h, w.app, w.hq.rooms.lotus, 5, "10:00", "11:00"))
      expect(m.join()).toContain("not bookable on Sat")
    })
    it("overlapping a break time", async () => {
      const m = expect400(await bookRoom(h, w.app, w.hq.rooms.lotus, 1, "11:30", "12:30"))
      expect(m.join()).toContain("break time")
    })
    it("closer than minimumLeadTime", async () => {
      const m = expect400(await bookRoom(h, w.app, w.hq.rooms.rules, 0, "10:00", "11:00"))
      expect(m.join()).toContain("minimumLeadTime")
    })
    it("starting beyond maxAdvanceBookingDays", async () => {
      const m = expect400(await bookRoom(h, w.app, w.hq.rooms.rules, 8, "10:00", "11:00"))
      expect(m.join()).toContain("maxAdvanceBookingDays")
    })
    it("longer than maxDurationMinutes", async () => {
      const m = expect400(await bookRoom(h, w.app, w.hq.rooms.rules, 1, "09:00", "12:00"))
      expect(m.join()).toContain("maxDurationMinutes")
    })
    it("several days without bookMultipleDayRoom", async () => {
      const res = await post(w.app, { meetingRoomId: w.hq.rooms.orchid, title: "x", startDateTime: at(1, "10:00"), endDateTime: at(2, "10:00") })
      expect(expect400(res).join()).toContain("several days")
    })
    it("a start in the past", async () => {
      expect(expect400(await bookRoom(h, w.app, w.hq.rooms.orchid, 0, "08:00", "08:30")).join()).toContain("past")
    })
    it("an end not after the start", async () => {
      expect400(await bookRoom(h, w.app, w.hq.rooms.orchid, 1, "10:00", "10:00"))
      expect400(await bookRoom(h, w.app, w.hq.rooms.orchid, 1, "10:00", "09:00"))
    })
    it("every broken rule is listed at once", async () => {
      const m = expect400(await bookRoom(h, w.app, w.hq.rooms.rules, 0, "09:30", "18:30"))
      expect(m.length).toBeGreaterThanOrEqual(3)
    })
    it("an inactive room or a suspended desk cannot be booked", async () => {
      expect(expect400(await bookRoom(h, w.app, w.hq.rooms.closed, 1, "10:00", "11:00")).join()).toContain("inactive")
      const desk = await post(w.app, { deskId: w.hq.desks.d4, title: "x", startDateTime: at(1, "08:00"), timePeriod: "allDay" })
      expect(expect400(desk).join()).toContain("suspended")
    })
  })

  describe("no double booking", () => {
    it("an overlapping booking of the same room is 409 SV012", async () => {
      expect((await bookRoom(h, w.app, w.hq.rooms.orchid, 3, "10:00", "11:00")).status).toBe(201)
      const res = await bookRoom(h, w.alice, w.hq.rooms.orchid, 3, "10:30", "11:30")
      expect(res.status).toBe(409)
      expect(res.body).toMatchObject({ code: "SV012", success: false })
    })
    it("back-to-back bookings do not conflict (half-open intervals)", async () => {
      expect((await bookRoom(h, w.app, w.hq.rooms.orchid, 3, "11:00", "12:00")).status).toBe(201)
      expect((await bookRoom(h, w.app, w.hq.rooms.orchid, 3, "09:00", "10:00")).status).toBe(201)
    })
    it("the same slot of another room is free", async () => {
      expect((await bookRoom(h, w.app, w.hq.rooms.bed, 3, "10:00", "11:00")).status).toBe(201)
    })
    it("a cancelled booking frees its slot", async () => {
      const first = await bookRoom(h, w.app, w.hq.rooms.orchid, 3, "13:00", "14:00")
      expect((await h.request("POST", `/meetings/${first.body.data._id}/cancel`, { token: w.app })).status).toBe(202)
      expect((await bookRoom(h, w.alice, w.hq.rooms.orchid, 3, "13:00", "14:00")).status).toBe(201)
    })
  })

  describe("desks", () => {
    const desk = (period: string, day = 2, deskKey = "d1") =>
      post(w.alice, { deskId: w.hq.desks[deskKey], title: "Focus", startDateTime: at(day, "07:00"), timePeriod: period })

    it("timePeriod morning is opening to 12:00, afternoon 12:00 to closing, allDay opening to closing", async () => {
      const morning = await desk("morning")
      expect(morning.status).toBe(201)
      expect(morning.body.data).toMatchObject({ deskId: w.hq.desks.d1, startDateTime: at(2, "08:00"), endDateTime: at(2, "12:00"), timePeriod: "morning" })
      expect(morning.body.data.meetingRoomName).toBeUndefined()
      const afternoon = await desk("afternoon")
      expect(afternoon.body.data).toMatchObject({ startDateTime: at(2, "12:00"), endDateTime: at(2, "18:00") })
      const allDay = await desk("allDay", 2, "d2")
      expect(allDay.body.data).toMatchObject({ startDateTime: at(2, "08:00"), endDateTime: at(2, "18:00") })
    })
    it("a desk period overlapping a booked one is 409 SV012", async () => {
      const res = await desk("allDay")
      expect(res.status).toBe(409)
      expect(res.body.code).toBe("SV012")
    })
    it("a desk booked with endDateTime follows the same rules", async () => {
      const res = await post(w.app, { deskId: w.hq.desks.d3, title: "x", startDateTime: at(2, "09:00"), endDateTime: at(2, "10:00") })
      expect(res.status).toBe(201)
      const late = await post(w.app, { deskId: w.hq.desks.d3, title: "x", startDateTime: at(2, "17:00"), endDateTime: at(2, "19:00") })
      expect400(late)
    })
    it("recurrence is for meeting rooms only", async () => {
      const res = await post(w.app, { deskId: w.hq.desks.d3, title: "x", startDateTime: at(3, "08:00"), timePeriod: "morning", recurrence: "FREQ=DAILY;COUNT=2" })
      expect(expect400(res).join()).toContain("recurrence")
    })
  })

  describe("draft (spec Meetings rule 3)", () => {
    it("draft true creates nothing and returns a price preview", async () => {
      const before = await meetingsOn(4)
      const res = await bookRoom(h, w.alice, w.hq.rooms.jasmine, 4, "10:00", "12:00", {
        draft: true,
        discountCode: "welcome10",
        draftEndDateTimes: [at(4, "11:00"), at(4, "23:00")],
      })
      expect(res.status).toBe(200)
      expect(res.body.data).toMatchObject({
        draft: true,
        meetingRoomId: w.hq.rooms.jasmine,
        status: "unpaid",
        available: true,
        price: { subtotal: 1000, total: 900, discounts: [{ code: "WELCOME10", value: 100, name: "Welcome" }] },
      })
      expect(res.body.data.draftEndDateTimes[0]).toMatchObject({ endDateTime: at(4, "11:00"), available: true, price: { total: 450 } })
      expect(res.body.data.draftEndDateTimes[1].available).toBe(false)
      expect(res.body.data.draftEndDateTimes[1].violations.join()).toContain("operating hours")
      expect(res.body.data._id).toBeUndefined()
      const after = await meetingsOn(4)
      expect(after.meta.total).toBe(before.meta.total)
      // The slot is still free: a real create succeeds.
      expect((await bookRoom(h, w.alice, w.hq.rooms.orchid, 4, "10:00", "12:00", { draft: true })).body.data.available).toBe(true)
    })
    it("a draft on a taken slot reports available false", async () => {
      await bookRoom(h, w.app, w.hq.rooms.orchid, 4, "14:00", "15:00")
      const res = await bookRoom(h, w.alice, w.hq.rooms.orchid, 4, "14:30", "15:30", { draft: true })
      expect(res.status).toBe(200)
      expect(res.body.data.available).toBe(false)
    })
    it("draftEndDateTimes without draft true is 400 SV001", async () => {
      expect400(await bookRoom(h, w.alice, w.hq.rooms.orchid, 4, "10:00", "11:00", { draftEndDateTimes: [at(4, "12:00")] }))
    })
    it("an unknown discountCode on a paid room is 400 SV001", async () => {
      expect400(await bookRoom(h, w.alice, w.hq.rooms.jasmine, 4, "10:00", "11:00", { draft: true, discountCode: "NOPE" }))
    })
  })

  describe("paid assets", () => {
    it("a room with a non-zero chargeRate is booked unpaid and holds its slot", async () => {
      const res = await bookRoom(h, w.bob, w.hq.rooms.jasmine, 1, "10:00", "11:30")
      expect(res.status).toBe(201)
      expect(res.body.data.status).toBe("unpaid")
      expect(res.body.data.pinCode).toMatch(/^\d{6}$/)
      const clash = await bookRoom(h, w.alice, w.hq.rooms.jasmine, 1, "11:00", "12:00")
      expect(clash.status).toBe(409)
      expect(clash.body.code).toBe("SV012")
    })
    it("an unpaid booking can be cancelled", async () => {
      const res = await bookRoom(h, w.bob, w.hq.rooms.jasmine, 1, "13:00", "14:00")
      const cancel = await h.request("POST", `/meetings/${res.body.data._id}/cancel`, { token: w.bob })
      expect(cancel.status).toBe(202)
      expect(cancel.body.data.status).toBe("cancelled")
    })
    it("an organizer holds at most KEYSPACE_MAX_UNPAID_HOLDS unpaid bookings (429 SV040)", async () => {
      const carolHolds = [] as number[]
      for (const hour of ["08", "09", "10"]) carolHolds.push((await bookRoom(h, w.carol, w.hq.rooms.jasmine, 6, `${hour}:00`, `${hour}:30`)).status)
      expect(carolHolds).toEqual([201, 201, 201])
      const fourth = await bookRoom(h, w.carol, w.hq.rooms.jasmine, 6, "11:00", "11:30")
      expect(fourth.status).toBe(429)
      expect(fourth.body.code).toBe("SV040")
    })
  })
})
