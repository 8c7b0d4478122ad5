import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { bookingsTable } from "../../../adapters/postgres/schema.ts"
import type { Manifest } from "../../../core/tenancy/manifest.ts"
import { ENGINES } from "../../support/databases.ts"
import { startHarness, type Harness } from "../../support/harness.ts"
import { at, bookingManifest, setUpWorld, type BookingWorld } from "./booking-fixtures.ts"

/**
 * Limits a client can reach with one request (docs/decisions.md, session 20): a booking lasts at
 * most 366 days, and its price must fit one payment (21,474,836.47 THB). Each is 400 SV001 with
 * nothing written, where they were a 500 (the payment's amount column) or seconds of a blocked
 * event loop (hours and prices judged day by day over centuries).
 */
const withLimitRooms = (): Manifest => {
  const m = bookingManifest()
  const hq = m.projects![0]!
  const room = (key: string, extra: object) => ({ key, name: key, zone: "a", floor: "a-1", capacity: 8, ...extra })
  return {
    ...m,
    projects: [
      {
        ...hq,
        rooms: [
          ...hq.rooms!,
          room("long-stay", { config: { bookMultipleDayRoom: true } }),
          room("dear", { chargeRate: { perHour: 10_000_000, perDay: 0 }, config: { bookMultipleDayRoom: true } }),
        ],
      },
      ...m.projects!.slice(1),
    ],
  }
}

describe.each(ENGINES)("booking limits on %s", (engine) => {
  let h: Harness
  let w: BookingWorld
  beforeAll(async () => {
    h = await startHarness(engine)
    w = await setUpWorld(h, withLimitRooms())
  })
  afterAll(async () => h?.close())

  const post = (body: object) => h.request("POST", "/meetings", { token: w.app, body: { title: "Stay", ...body } })
  const liveMeetings = async () => (await h.booted.services.database.db.select().from(bookingsTable)).length

  it("a booking longer than 366 days is 400 SV001, answered at once, on an asset that allows several days", async () => {
    const before = await liveMeetings()
    const started = performance.now()
    const res = await post({ meetingRoomId: w.hq.rooms["long-stay"], startDateTime: at(1, "09:00"), endDateTime: "9030-01-08T09:00:00+07:00" })
    expect(performance.now() - started).toBeLessThan(2_000) // seconds per century before
    expect(res.status).toBe(400)
    expect(res.body).toMatchObject({ code: "SV001", success: false, message: ["the booking must not be longer than 366 days"] })
    expect(await liveMeetings()).toBe(before)
  })

  it("366 days is a booking the asset may take", async () => {
    const res = await post({ meetingRoomId: w.hq.rooms["long-stay"], startDateTime: at(1, "09:00"), endDateTime: "2031-01-09T09:00:00+07:00" })
    expect(res.status).toBe(201)
  })

  it("a draft end longer than 366 days is 400 SV001 naming the candidate", async () => {
    const res = await post({
      meetingRoomId: w.hq.rooms["long-stay"],
      draft: true,
      startDateTime: at(400, "09:00"),
      endDateTime: at(400, "10:00"),
      draftEndDateTimes: [at(400, "11:00"), "3030-01-08T09:00:00+07:00"],
    })
    expect(res.status).toBe(400)
    expect(res.body.message).toEqual(["draftEndDateTimes.1: the booking must not be longer than 366 days"])
  })

  it("a price above what one payment carries (21,474,836.47 THB) is 400 SV001, nothing written", async () => {
    const before = await liveMeetings()
    const res = await post({ meetingRoomId: w.hq.rooms.dear, startDateTime: at(2, "09:00"), endDateTime: at(2, "12:00") })
    expect(res.status).toBe(400)
    expect(res.body.message).toEqual(["the price (30000000 THB) is more than one payment can carry (21474836.47 THB)"])
    expect(await liveMeetings()).toBe(before)
  })

  it("an extension whose price one payment cannot carry is 400 SV001, the booking unchanged", async () => {
    const made = await post({ meetingRoomId: w.hq.rooms.dear, startDateTime: at(3, "09:00"), endDateTime: at(3, "10:00") })
    expect(made.status).toBe(201)
    const id = made.body.data._id
    // Paid first: a booking waiting for its payment is not extended (409).
    const paid = await h.booted.app.request(`/pay/${made.body.data.payment.paymentId}`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: "outcome=paid",
      redirect: "manual",
    })
    expect(paid.status).toBeLessThan(400)
    const res = await h.request("PATCH", `/meetings/${id}`, { token: w.app, body: { endDateTime: at(3, "13:00") } })
    expect(res.status).toBe(400)
    expect(res.body.message).toEqual(["the price (30000000 THB) is more than one payment can carry (21474836.47 THB)"])
    const after = await h.request("GET", `/meetings/${id}`, { token: w.app })
    expect(after.body.data).toMatchObject({ endDateTime: at(3, "10:00"), status: "active" })
  })

  it("a manifest number beyond what is stored, a rate above ten million THB, or an asset config the booking rules cannot read is 400 SV001, a message each", async () => {
    const res = await h.admin("PUT", "/manifest", {
      projects: [
        {
          key: "annex",
          name: "Annex",
          timezone: "Asia/Bangkok",
          zones: [{ key: "a", name: "A", floors: [{ key: "a-1", name: "A1" }] }],
          rooms: [
            {
              key: "r",
              name: "R",
              zone: "a",
              floor: "a-1",
              capacity: 2_147_483_648,
              chargeRate: { perHour: 1e300, perDay: 0 },
              config: {
                maxDurationMinutes: 0,
                dayConfig: { Mon: { availableTime: { start: "18:00:00", end: "08:00:00" }, breakTimes: [{ start: "13:00:00", end: "12:00:00" }] } },
              },
            },
          ],
          desks: [{ key: "d", name: "D", zone: "a", floor: "a-1", index: 2_147_483_648 }],
        },
      ],
    })
    expect(res.status).toBe(400)
    expect(res.body.message).toEqual([
      "projects.0.rooms.0.capacity: Expected a value less than or equal to 2147483647",
      "projects.0.rooms.0.chargeRate.perHour: Expected a value less than or equal to 10000000",
      "projects.0.rooms.0.config.dayConfig.Mon.availableTime.end: must be later than start",
      "projects.0.rooms.0.config.dayConfig.Mon.breakTimes.0.end: must be later than start",
      "projects.0.rooms.0.config.maxDurationMinutes: must be an integer >= 1",
      "projects.0.desks.0.index: Expected a value less than or equal to 2147483647",
    ])
  })

  it("a draft's candidate end whose price one payment cannot carry is not available, with the create's message", async () => {
    const res = await post({
      meetingRoomId: w.hq.rooms.dear,
      startDateTime: at(2, "09:00"),
      endDateTime: at(2, "10:00"),
      draft: true,
      draftEndDateTimes: [at(2, "11:00"), at(2, "12:00")],
    })
    expect(res.status).toBe(200)
    const [two, three] = res.body.data.draftEndDateTimes
    expect(two).toMatchObject({ available: true, violations: [], amount: 20_000_000 })
    expect(three).toMatchObject({
      available: false,
      unavailableReason: "BOOKING_RULES",
      violations: ["the price (30000000 THB) is more than one payment can carry (21474836.47 THB)"],
    })
  })

  it("a create that breaks the asset's rules and names an unknown discount code gets one message for each", async () => {
    const res = await post({ meetingRoomId: w.hq.rooms.dear, startDateTime: at(2, "09:00"), endDateTime: "9030-01-08T09:00:00+07:00", discountCode: "NO-SUCH-CODE" })
    expect(res.status).toBe(400)
    expect(res.body.message).toEqual(["the booking must not be longer than 366 days", "discountCode: unknown or inactive discount code"])
  })

  it("a meetingConfig that opens check-in at the start and cancels no-shows at the start (both 0) is 400 SV001: no booking could be checked in", async () => {
    const manifest = (meetingConfig: Record<string, number>) => ({
      projects: [
        {
          key: "annex",
          name: "Annex",
          timezone: "Asia/Bangkok",
          zones: [{ key: "a", name: "A", floors: [{ key: "a-1", name: "A1" }] }],
          rooms: [{ key: "r", name: "R", zone: "a", floor: "a-1", config: { meetingConfig } }],
        },
      ],
    })
    const refused = await h.admin("PUT", "/manifest", manifest({ preStartMinutes: 0, postStartExpireMinutes: 0 }))
    expect(refused.status).toBe(400)
    expect(refused.body.code).toBe("SV001")
    expect(refused.body.message).toEqual([
      "projects.0.rooms.0.config.meetingConfig.postStartExpireMinutes: must be above 0 when check-in opens at the start (preStartMinutes 0): every booking would be cancelled as a no-show before anyone could check in",
    ])
    // Either alone leaves a window: check-in from the start until the deadline, or from 15 minutes before.
    expect((await h.admin("PUT", "/manifest", manifest({ preStartMinutes: 0, postStartExpireMinutes: 1 }))).status).toBe(200)
    expect((await h.admin("PUT", "/manifest", manifest({ preStartMinutes: -1, postStartExpireMinutes: 0 }))).status).toBe(200)
  })
})
