import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { ENGINES } from "../../support/databases.ts"
import { startHarness, type Harness } from "../../support/harness.ts"
import { at, bookRoom, qs, setUpWorld, type BookingWorld } from "./booking-fixtures.ts"

describe.each(ENGINES)("GET /meetings on %s", (engine) => {
  let h: Harness
  let w: BookingWorld
  const ids: Record<string, string> = {}
  beforeAll(async () => {
    h = await startHarness(engine)
    w = await setUpWorld(h)
    const made = async (key: string, res: Promise<{ status: number; body: any }>) => {
      const r = await res
      expect(r.status, JSON.stringify(r.body)).toBe(201)
      ids[key] = r.body.data._id
    }
    // Wednesday (day 2): three room bookings and one desk booking.
    await made("a", bookRoom(h, w.alice, w.hq.rooms.lotus, 2, "09:00", "10:00", { attendees: [{ email: "guest@x.example" }] }))
    await made("b", bookRoom(h, w.bob, w.hq.rooms.orchid, 2, "09:30", "11:00"))
    await made("c", bookRoom(h, w.app, w.hq.rooms.lotus, 2, "13:00", "14:00", { attendees: [{ email: "bob@hq.example" }] }))
    await made(
      "d",
      h.request("POST", "/meetings", { token: w.bob, body: { deskId: w.hq.desks.d2, title: "Desk", startDateTime: at(2, "08:00"), timePeriod: "allDay" } }),
    )
    await made("e", bookRoom(h, w.alice, w.hq.rooms.orchid, 3, "09:00", "10:00"))
    await h.request("POST", `/meetings/${ids.c}/cancel`, { token: w.app })
  })
  afterAll(async () => h?.close())

  const list = async (params: Record<string, any>, token = w.app) => {
    const res = await h.request("GET", `/meetings?${qs({ from: at(2, "00:00"), to: at(3, "00:00"), ...params })}`, { token })
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    return res.body
  }
  const idsOf = (body: any) => body.data.map((m: any) => m._id)

  it("from and to are both required (400 SV001)", async () => {
    for (const p of [{}, { from: at(2, "00:00") }, { to: at(3, "00:00") }, { from: "2030-01-09", to: at(3, "00:00") }]) {
      const res = await h.request("GET", `/meetings?${qs(p)}`, { token: w.app })
      expect(res.status).toBe(400)
      expect(res.body.code).toBe("SV001")
      expect(Array.isArray(res.body.message)).toBe(true)
    }
    expect((await h.request("GET", `/meetings?${qs({ from: at(3, "00:00"), to: at(2, "00:00") })}`, { token: w.app })).status).toBe(400)
  })

  it("a date-time an offset carries outside the years 0001-9999 in UTC is 400 SV001, on every read that takes one", async () => {
    const early = "0001-01-01T00:00+01:00"
    const late = "9999-12-31T23:30-01:00"
    for (const path of [
      `/meetings?${qs({ from: early, to: at(3, "00:00") })}`,
      `/meetings?${qs({ from: at(2, "00:00"), to: late })}`,
      `/meeting-rooms?${qs({ projectId: w.hq.id, startDateTime: early, endDateTime: at(3, "00:00") })}`,
      `/desks?${qs({ projectId: w.hq.id, startDateTime: at(2, "00:00"), endDateTime: late })}`,
    ]) {
      const res = await h.request("GET", path, { token: w.app })
      expect(res.status, `${path}: ${JSON.stringify(res.body)}`).toBe(400)
      expect(res.body.code).toBe("SV001")
    }
  })

  it("lists every booking overlapping [from, to) in start order, with meta", async () => {
    const body = await list({})
    expect(idsOf(body)).toEqual([ids.d, ids.a, ids.b, ids.c])
    expect(body.meta).toEqual({ limit: 100, offset: 0, total: 4 })
    const narrow = await list({ from: at(2, "10:00"), to: at(2, "10:30") })
    expect(idsOf(narrow)).toEqual([ids.d, ids.b])
  })

  it("pagination: limit 0-3000 and offset", async () => {
    expect((await list({ limit: 2, offset: 1 })).data.map((m: any) => m._id)).toEqual([ids.a, ids.b])
    expect(await list({ limit: 0 })).toMatchObject({ data: [], meta: { limit: 0, offset: 0, total: 4 } })
    for (const bad of [{ limit: 3001 }, { offset: -1 }, { limit: 1.5 }, { offset: 1_000_000_001 }]) {
      const res = await h.request("GET", `/meetings?${qs({ from: at(2, "00:00"), to: at(3, "00:00"), ...bad })}`, { token: w.app })
      expect(res.status).toBe(400)
    }
    // The bounds themselves pass, however written (README Limits: offset at most 1,000,000,000).
    expect(await list({ offset: 1_000_000_000 })).toMatchObject({ data: [], meta: { offset: 1_000_000_000, total: 4 } })
    expect((await list({ limit: "0003000" })).meta.limit).toBe(3000)
  })

  it("filters: meetingRoomId, meetingRoomIds, deskId, deskIds, assetType", async () => {
    expect(idsOf(await list({ meetingRoomId: w.hq.rooms.lotus }))).toEqual([ids.a, ids.c])
    expect(idsOf(await list({ meetingRoomIds: [w.hq.rooms.lotus, w.hq.rooms.orchid] }))).toEqual([ids.a, ids.b, ids.c])
    expect(idsOf(await list({ deskId: w.hq.desks.d2 }))).toEqual([ids.d])
    expect(idsOf(await list({ deskIds: [w.hq.desks.d1] }))).toEqual([])
    expect(idsOf(await list({ meetingRoomId: w.hq.rooms.orchid, deskIds: [w.hq.desks.d2] }))).toEqual([ids.d, ids.b])
    expect(idsOf(await list({ assetType: "desk" }))).toEqual([ids.d])
    expect(idsOf(await list({ assetType: "room" }))).toEqual([ids.a, ids.b, ids.c])
    expect((await h.request("GET", `/meetings?${qs({ from: at(2, "00:00"), to: at(3, "00:00"), assetType: "car" })}`, { token: w.app })).status).toBe(400)
  })

  it("filters: organizerId, organizerEmails, attendeeEmails, statuses", async () => {
    expect(idsOf(await list({ organizerId: w.hq.users.bob }))).toEqual([ids.d, ids.b])
    expect(idsOf(await list({ organizerEmails: ["ALICE@hq.example"] }))).toEqual([ids.a])
    expect(idsOf(await list({ attendeeEmails: ["bob@HQ.example", "guest@x.example"] }))).toEqual([ids.a, ids.c])
    expect(idsOf(await list({ statuses: ["cancelled"] }))).toEqual([ids.c])
    expect(idsOf(await list({ statuses: "active,cancelled" }))).toEqual([ids.d, ids.a, ids.b, ids.c])
    const bad = await h.request("GET", `/meetings?${qs({ from: at(2, "00:00"), to: at(3, "00:00"), statuses: ["gone"], organizerEmails: ["x"] })}`, { token: w.app })
    expect(bad.status).toBe(400)
    expect(bad.body.message).toHaveLength(2)
  })

  it("rows are full Meetings; non-recurring rows carry neither seriesMasterId nor occurrenceEventId", async () => {
    const body = await list({ meetingRoomId: w.hq.rooms.orchid })
    expect(body.data[0]).toMatchObject({ _id: ids.b, meetingRoomName: "Orchid", status: "active", startDateTime: at(2, "09:30") })
    expect(body.data[0].histories[0].action).toBe("create")
    expect(body.data[0]).not.toHaveProperty("seriesMasterId")
    expect(body.data[0]).not.toHaveProperty("occurrenceEventId")
    // bob's booking: the app it was booked through sees the pinCode, another member does not.
    expect(body.data[0].pinCode).toMatch(/^\d{6}$/)
    expect((await list({ meetingRoomId: w.hq.rooms.orchid }, w.alice)).data[0].pinCode).toBeUndefined()
    // The same listing repeated between commits (whole answers are kept by snapshot): each
    // caller still gets its own view.
    for (const [token, shown] of [[w.app, true], [w.bob, true], [w.alice, false], [w.bob, true], [w.app, true]] as const)
      expect("pinCode" in (await list({ meetingRoomId: w.hq.rooms.orchid }, token)).data[0]).toBe(shown)
  })
})
