import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { ENGINES } from "../../support/databases.ts"
import { startHarness, type Harness } from "../../support/harness.ts"
import { at, bookingManifest, qs, setUpWorld, type BookingWorld } from "./booking-fixtures.ts"

/*
 * A window's slots are read as those starting in the 24 hours before it or inside it, plus the
 * longer ones from their own index (adapters/postgres/slot-window.ts). These bookings sit on
 * both sides of that split for the window [day 3 00:00, day 4 00:00), local time:
 *   long:  day 1 10:00 -> day 4 10:00 (72 h, started two days before the window)
 *   over:  day 2 00:00 -> day 3 00:01 (24 h 1 min, started exactly 24 h before the window)
 *   day:   day 2 00:30 -> day 3 00:30 (exactly 24 h: a short slot)
 *   hour:  day 3 09:00 -> day 3 10:00 in Orchid
 * and `before` (day 1 00:00 -> day 3 00:00) ends as the window starts: not in it.
 */
describe.each(ENGINES)("a window holds every slot overlapping it, however long, on %s", (engine) => {
  let h: Harness
  let w: BookingWorld
  const ids: Record<string, string> = {}
  const suites = ["long", "over", "day", "before"] as const
  beforeAll(async () => {
    h = await startHarness(engine)
    const manifest = bookingManifest() as any
    for (const key of suites)
      manifest.projects[0].rooms.push({ key: `suite-${key}`, name: `Suite ${key}`, zone: "a", floor: "a-1", capacity: 2, config: { bookMultipleDayRoom: true } })
    w = await setUpWorld(h, manifest)
    const book = async (key: string, roomId: string, start: string, end: string) => {
      const res = await h.request("POST", "/meetings", { token: w.app, body: { meetingRoomId: roomId, title: key, startDateTime: start, endDateTime: end } })
      expect(res.status, JSON.stringify(res.body)).toBe(201)
      ids[key] = res.body.data._id
    }
    await book("long", w.hq.rooms["suite-long"], at(1, "10:00"), at(4, "10:00"))
    await book("over", w.hq.rooms["suite-over"], at(2, "00:00"), at(3, "00:01"))
    await book("day", w.hq.rooms["suite-day"], at(2, "00:30"), at(3, "00:30"))
    await book("hour", w.hq.rooms.orchid, at(3, "09:00"), at(3, "10:00"))
    await book("before", w.hq.rooms["suite-before"], at(1, "00:00"), at(3, "00:00"))
  })
  afterAll(async () => h?.close())

  const list = async (params: Record<string, any> = {}) => {
    const res = await h.request("GET", `/meetings?${qs({ from: at(3, "00:00"), to: at(4, "00:00"), ...params })}`, { token: w.app })
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    return { ids: res.body.data.map((m: any) => m._id), total: res.body.meta.total }
  }

  it("GET /meetings lists and counts slots longer than a day that started days before the window, in start order", async () => {
    expect(await list()).toEqual({ ids: [ids.long, ids.over, ids.day, ids.hour], total: 4 })
    expect((await list({ limit: 0 })).total).toBe(4)
  })

  it("pages run across the long slots and the short ones as one start order", async () => {
    expect(await list({ limit: 1, offset: 1 })).toEqual({ ids: [ids.over], total: 4 })
    expect(await list({ limit: 2, offset: 1 })).toEqual({ ids: [ids.over, ids.day], total: 4 })
    expect(await list({ limit: 2, offset: 2 })).toEqual({ ids: [ids.day, ids.hour], total: 4 })
    expect(await list({ limit: 5, offset: 4 })).toEqual({ ids: [], total: 4 })
  })

  it("filters on the booking (rooms, asset type) see the long slots too", async () => {
    expect(await list({ meetingRoomIds: [w.hq.rooms["suite-long"], w.hq.rooms.orchid] })).toEqual({ ids: [ids.long, ids.hour], total: 2 })
    expect(await list({ assetType: "room", limit: 1, offset: 1 })).toEqual({ ids: [ids.over], total: 4 })
    expect(await list({ statuses: ["active"], limit: 2 })).toEqual({ ids: [ids.long, ids.over], total: 4 })
  })

  it("room availability leaves out a room held by a slot that started days before the window", async () => {
    const free = async (start: string, end: string) =>
      (await h.request("GET", `/meeting-rooms?${qs({ projectId: w.hq.id, startDateTime: start, endDateTime: end })}`, { token: w.app })).body.data.map(
        (r: any) => r.name,
      )
    const morning = await free(at(3, "09:00"), at(3, "10:00"))
    expect(morning).not.toContain("Suite long")
    expect(morning).not.toContain("Orchid")
    expect(morning).toEqual(expect.arrayContaining(["Suite over", "Suite day", "Suite before"]))
    const midnight = await free(at(3, "00:00"), at(3, "00:10"))
    expect(midnight).not.toContain("Suite long")
    expect(midnight).not.toContain("Suite over")
    expect(midnight).not.toContain("Suite day")
    expect(midnight).toContain("Suite before")
  })
})
