import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { ENGINES } from "../../support/databases.ts"
import { startHarness, type Harness } from "../../support/harness.ts"
import { at, bookRoom, qs, setUpWorld, type BookingWorld } from "./booking-fixtures.ts"

describe.each(ENGINES)("rooms and desks search on %s", (engine) => {
  let h: Harness
  let w: BookingWorld
  beforeAll(async () => {
    h = await startHarness(engine)
    w = await setUpWorld(h)
    // Tuesday: Orchid busy 10-11, Desk 1 booked in the morning.
    expect((await bookRoom(h, w.alice, w.hq.rooms.orchid, 1, "10:00", "11:00")).status).toBe(201)
    const desk = await h.request("POST", "/meetings", {
      token: w.alice,
      body: { deskId: w.hq.desks.d1, title: "x", startDateTime: at(1, "08:00"), timePeriod: "morning" },
    })
    expect(desk.status).toBe(201)
  })
  afterAll(async () => h?.close())

  const rooms = (params: Record<string, any>, token = w.app) => h.request("GET", `/meeting-rooms?${qs(params)}`, { token })
  const desks = (params: Record<string, any>, token = w.app) => h.request("GET", `/desks?${qs(params)}`, { token })
  const names = (res: { body: any }) => res.body.data.map((r: any) => r.name).sort()

  describe("GET /meeting-rooms", () => {
    it("projectId is required (400 SV001)", async () => {
      const res = await rooms({})
      expect(res.status).toBe(400)
      expect(res.body.code).toBe("SV001")
      expect(res.body.message[0]).toContain("projectId")
    })
    it("a projectId outside the caller's projects is 403 SV003", async () => {
      const res = await rooms({ projectId: w.far.id })
      expect(res.status).toBe(403)
      expect(res.body.code).toBe("SV003")
    })
    it("lists the project's rooms with the MeetingRoom fields, not paginated", async () => {
      const res = await rooms({ projectId: w.hq.id })
      expect(res.status).toBe(200)
      expect(res.body.meta).toBeUndefined()
      expect(names(res)).toEqual(["Bed Room", "Closed Room", "Jasmine", "Lotus", "Orchid", "Race Room", "Rules Room", "Series Room"])
      const lotus = res.body.data.find((r: any) => r.name === "Lotus")
      expect(lotus).toMatchObject({
        _id: w.hq.rooms.lotus,
        email: "lotus@hq.example",
        capacity: 8,
        status: "active",
        type: "normal",
        brandId: w.hq.brandId,
        projectId: w.hq.id,
        zoneId: w.hq.zones.a,
        floorId: w.hq.floors["a-1"],
        equipmentsAvailability: { camera: true, display: true, mic: true, projector: false, speaker: true },
        pictureUrls: [],
        facilities: [],
        isPublic: true,
        chargeRate: { perHour: 0, perDay: 0 },
      })
      expect(lotus.config.dayConfig.Mon.breakTimes).toEqual([{ start: "12:00:00", end: "13:00:00" }])
      expect(lotus.unavailableReason).toBeUndefined()
    })
    it("filters: zoneId, floorId, locationId, ids, name, status, type, minCapacity", async () => {
      const p = { projectId: w.hq.id }
      expect(names(await rooms({ ...p, zoneId: w.hq.zones.b }))).toEqual(["Bed Room"])
      expect(names(await rooms({ ...p, floorId: w.hq.floors["b-1"] }))).toEqual(["Bed Room"])
      expect(names(await rooms({ ...p, locationId: w.hq.zones.b }))).toEqual(["Bed Room"])
      expect(names(await rooms({ ...p, ids: [w.hq.rooms.lotus, w.hq.rooms.orchid] }))).toEqual(["Lotus", "Orchid"])
      expect(names(await rooms({ ...p, ids: `${w.hq.rooms.lotus},${w.hq.rooms.orchid}` }))).toEqual(["Lotus", "Orchid"])
      expect(names(await rooms({ ...p, name: "ROOM" }))).toEqual(["Bed Room", "Closed Room", "Race Room", "Rules Room", "Series Room"])
      expect(names(await rooms({ ...p, status: ["inactive"] }))).toEqual(["Closed Room"])
      expect(names(await rooms({ ...p, type: "bedroom" }))).toEqual(["Bed Room"])
      expect(names(await rooms({ ...p, minCapacity: 12 }))).toEqual(["Jasmine", "Series Room"])
    })
    it("invalid filters are 400 SV001 with one message each", async () => {
      const res = await rooms({ projectId: w.hq.id, minCapacity: 0, type: "cave", status: ["open"], zoneId: "z" })
      expect(res.status).toBe(400)
      expect(res.body.message).toHaveLength(4)
    })
    it("a window needs both startDateTime and endDateTime, end after start", async () => {
      expect((await rooms({ projectId: w.hq.id, startDateTime: at(1, "10:00") })).status).toBe(400)
      expect((await rooms({ projectId: w.hq.id, endDateTime: at(1, "10:00") })).status).toBe(400)
      expect((await rooms({ projectId: w.hq.id, startDateTime: at(1, "10:00"), endDateTime: at(1, "09:00") })).status).toBe(400)
      expect((await rooms({ projectId: w.hq.id, startDateTime: "2030-01-08T10:00:00", endDateTime: at(1, "11:00") })).status).toBe(400)
    })
    it("an inverted window is reported with the query's other faults, in one 400 (rooms and desks)", async () => {
      const window = { projectId: w.hq.id, startDateTime: at(1, "10:00"), endDateTime: at(1, "09:00") }
      const room = await rooms({ ...window, minCapacity: 0 })
      expect(room.body.message).toEqual([expect.stringMatching(/^minCapacity: /), "endDateTime: must be after startDateTime"])
      const desk = await desks({ ...window, limit: -1 })
      expect(desk.body.message).toEqual([expect.stringMatching(/^limit: /), "endDateTime: must be after startDateTime"])
    })
    it("with a window, rooms with a conflicting booking are excluded", async () => {
      const res = await rooms({ projectId: w.hq.id, startDateTime: at(1, "10:30"), endDateTime: at(1, "11:30") })
      expect(res.status).toBe(200)
      expect(names(res)).not.toContain("Orchid")
      expect(names(res)).toContain("Lotus")
      const touching = await rooms({ projectId: w.hq.id, startDateTime: at(1, "11:00"), endDateTime: at(1, "12:00") })
      expect(names(touching)).toContain("Orchid")
    })
    it("free rooms not bookable for the window carry unavailableReason OPERATING_HOURS or BREAK_TIME", async () => {
      const late = await rooms({ projectId: w.hq.id, ids: [w.hq.rooms.lotus, w.hq.rooms.orchid], startDateTime: at(1, "18:30"), endDateTime: at(1, "19:00") })
      const byName = Object.fromEntries(late.body.data.map((r: any) => [r.name, r]))
      expect(byName.Lotus.unavailableReason).toBe("OPERATING_HOURS")
      expect(byName.Orchid.unavailableReason).toBeUndefined()
      const lunch = await rooms({ projectId: w.hq.id, ids: [w.hq.rooms.lotus], startDateTime: at(1, "11:30"), endDateTime: at(1, "12:30") })
      expect(lunch.body.data[0].unavailableReason).toBe("BREAK_TIME")
      const saturday = await rooms({ projectId: w.hq.id, ids: [w.hq.rooms.lotus], startDateTime: at(5, "10:00"), endDateTime: at(5, "11:00") })
      expect(saturday.body.data[0].unavailableReason).toBe("OPERATING_HOURS")
    })
    it("with a window, chargeRate.amount is the window's price", async () => {
      const res = await rooms({ projectId: w.hq.id, ids: [w.hq.rooms.jasmine], startDateTime: at(1, "10:00"), endDateTime: at(1, "11:30") })
      expect(res.body.data[0].chargeRate).toEqual({ perHour: 500, perDay: 3000, amount: 750 })
    })
    it("GET /meeting-rooms/{id} includes the room's booking calendar", async () => {
      const res = await h.request("GET", `/meeting-rooms/${w.hq.rooms.orchid}`, { token: w.app })
      expect(res.status).toBe(200)
      expect(res.body.data).toMatchObject({ _id: w.hq.rooms.orchid, name: "Orchid" })
      expect(res.body.data.calendar.bookings).toEqual([
        { meetingId: expect.stringMatching(/^[0-9a-f]{24}$/), startDateTime: at(1, "10:00"), endDateTime: at(1, "11:00"), status: "active" },
      ])
      const narrow = await h.request("GET", `/meeting-rooms/${w.hq.rooms.orchid}?${qs({ from: at(2, "00:00"), to: at(3, "00:00") })}`, { token: w.app })
      expect(narrow.body.data.calendar).toEqual({ from: at(2, "00:00"), to: at(3, "00:00"), bookings: [] })
    })
    it("a calendar window whose end is not after its start is 400 SV001, as every window", async () => {
      for (const kind of ["meeting-rooms", "desks"]) {
        const id = kind === "desks" ? w.hq.desks.d1 : w.hq.rooms.orchid
        const res = await h.request("GET", `/${kind}/${id}?${qs({ from: at(3, "00:00"), to: at(2, "00:00") })}`, { token: w.app })
        expect(res.status, kind).toBe(400)
        expect(res.body).toMatchObject({ code: "SV001", message: ["to: must be after from"] })
      }
    })
    it("GET /meeting-rooms/{id} is 404 SV005 for an unknown id or another project's room", async () => {
      for (const id of ["0123456789abcdef01234567", w.far.rooms.far]) {
        const res = await h.request("GET", `/meeting-rooms/${id}`, { token: w.app })
        expect(res.status).toBe(404)
        expect(res.body.code).toBe("SV005")
      }
      expect((await h.request("GET", "/meeting-rooms/nope", { token: w.app })).status).toBe(400)
    })
  })

  describe("GET /desks", () => {
    it("lists the caller's desks with meta {limit, offset, total}; default limit from configuration", async () => {
      const res = await desks({})
      expect(res.status).toBe(200)
      expect(res.body.meta).toEqual({ limit: 100, offset: 0, total: 4 })
      expect(res.body.data.map((d: any) => d.name)).toEqual(["Desk 1", "Desk 2", "Desk 3", "Desk 4"])
      expect(res.body.data[0]).toMatchObject({
        _id: w.hq.desks.d1,
        index: 1,
        email: "desk1@hq.example",
        status: "active",
        isPublic: true,
        brandId: w.hq.brandId,
        projectId: w.hq.id,
        capacity: 1,
        chargeRate: { perHour: 0, perDay: 0 },
      })
    })
    it("limit 0-3000 and offset >= 0 page the result", async () => {
      expect((await desks({ limit: 2, offset: 1 })).body.data.map((d: any) => d.name)).toEqual(["Desk 2", "Desk 3"])
      const none = await desks({ limit: 0 })
      expect(none.body).toMatchObject({ data: [], meta: { limit: 0, offset: 0, total: 4 } })
      expect((await desks({ offset: 10 })).body.data).toEqual([])
      for (const bad of [{ limit: 3001 }, { limit: -1 }, { offset: -1 }, { limit: "ten" }]) {
        const res = await desks(bad)
        expect(res.status).toBe(400)
        expect(res.body.code).toBe("SV001")
      }
    })
    it("filters: projectId, brandId, zoneId, floorId, locationId, ids, name, email, status, statuses", async () => {
      const n = async (p: Record<string, any>) => (await desks(p)).body.data.map((d: any) => d.name)
      expect(await n({ projectId: w.hq.id })).toHaveLength(4)
      expect(await n({ brandId: w.hq.brandId })).toHaveLength(4)
      expect(await n({ zoneId: w.hq.zones.b })).toEqual(["Desk 4"])
      expect(await n({ floorId: w.hq.floors["a-2"] })).toEqual(["Desk 1", "Desk 2", "Desk 3"])
      expect(await n({ locationId: w.hq.floors["b-1"] })).toEqual(["Desk 4"])
      expect(await n({ ids: [w.hq.desks.d2] })).toEqual(["Desk 2"])
      expect(await n({ name: "desk 3" })).toEqual(["Desk 3"])
      expect(await n({ email: "DESK2@hq.example" })).toEqual(["Desk 2"])
      expect(await n({ status: "suspended" })).toEqual(["Desk 4"])
      expect(await n({ statuses: ["active", "suspended"] })).toHaveLength(4)
      expect((await desks({ status: "broken" })).status).toBe(400)
      expect((await desks({ projectId: w.far.id })).status).toBe(403)
    })
    // Desk 4 is suspended: it cannot be booked, so availability leaves it out (issue 14.3).
    it("availability removes booked desks and meta.total counts the free ones", async () => {
      const res = await desks({ startDateTime: at(1, "09:00"), endDateTime: at(1, "10:00") })
      expect(res.body.data.map((d: any) => d.name)).toEqual(["Desk 2", "Desk 3"])
      expect(res.body.meta.total).toBe(2)
      const page = await desks({ startDateTime: at(1, "09:00"), endDateTime: at(1, "10:00"), limit: 1, offset: 1 })
      expect(page.body).toMatchObject({ data: [{ name: "Desk 3" }], meta: { limit: 1, offset: 1, total: 2 } })
    })
    it("timePeriod is resolved against each desk's hours", async () => {
      const afternoon = await desks({ startDateTime: at(1, "00:00"), timePeriod: "afternoon", statuses: ["active"] })
      expect(afternoon.body.data.map((d: any) => d.name)).toEqual(["Desk 1", "Desk 2", "Desk 3"])
      const morning = await desks({ startDateTime: at(1, "00:00"), timePeriod: "morning", statuses: ["active"] })
      expect(morning.body.data.map((d: any) => d.name)).toEqual(["Desk 2", "Desk 3"])
      expect(morning.body.meta.total).toBe(2)
    })
    it("an availability filter is startDateTime plus exactly one of endDateTime or timePeriod", async () => {
      for (const p of [
        { startDateTime: at(1, "09:00") },
        { endDateTime: at(1, "09:00") },
        { timePeriod: "morning" },
        { startDateTime: at(1, "09:00"), endDateTime: at(1, "10:00"), timePeriod: "morning" },
        { startDateTime: at(1, "09:00"), timePeriod: "evening" },
      ]) {
        const res = await desks(p)
        expect(res.status, JSON.stringify(p)).toBe(400)
        expect(res.body.code).toBe("SV001")
      }
    })
    it("GET /desks/{id} includes the desk's booking calendar; other projects' desks are 404", async () => {
      const res = await h.request("GET", `/desks/${w.hq.desks.d1}`, { token: w.app })
      expect(res.status).toBe(200)
      expect(res.body.data.calendar.bookings).toEqual([
        { meetingId: expect.any(String), startDateTime: at(1, "08:00"), endDateTime: at(1, "12:00"), status: "active" },
      ])
      expect((await h.request("GET", `/desks/${w.far.desks["far-desk"]}`, { token: w.app })).status).toBe(404)
    })
  })
})
