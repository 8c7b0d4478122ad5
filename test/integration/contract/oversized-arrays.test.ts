import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { contractManifest } from "../../support/contract-manifest.ts"
import { startHarness, type Harness } from "../../support/harness.ts"
import { at, setUpWorld, type BookingWorld } from "../bookings/booking-fixtures.ts"

describe("a request's arrays are bounded before their items are checked (400 SV001, the answer bounded too)", () => {
  let h: Harness
  let w: BookingWorld
  beforeAll(async () => {
    h = await startHarness("pglite")
    w = await setUpWorld(h)
  })
  afterAll(async () => h?.close())

  it("an array of more than 1,000 items is one message naming it, not one per bad item", async () => {
    const started = Date.now()
    const res = await h.request("POST", "/meetings", {
      token: w.alice,
      body: { meetingRoomId: w.hq.rooms.orchid, title: "Big", startDateTime: at(1, "10:00"), endDateTime: at(1, "11:00"), attendees: Array(400_000).fill(0) },
    })
    expect(res.status).toBe(400)
    expect(res.body).toMatchObject({ code: "SV001", success: false })
    expect(res.body.message).toEqual(["attendees: at most 1000 items (400000 sent)"])
    // Bounded work: the items were never decoded one by one (seconds before).
    expect(Date.now() - started).toBeLessThan(5_000)
  })

  it("the credentials route, whose body may be 15 MiB for a face: cards beyond the bound are refused the same way", async () => {
    const res = await h.request("PUT", "/partner/members/ext-big/credentials", {
      token: w.app,
      body: { cards: Array.from({ length: 300_000 }, () => ({ cardNo: 5 })) },
    })
    expect(res.status).toBe(400)
    expect(res.body.message).toEqual(["cards: at most 1000 items (300000 sent)"])
  })

  it("under the bound an array keeps its own rule (attendees: at most 500), and every bad item is named", async () => {
    const body = { meetingRoomId: w.hq.rooms.orchid, title: "Big", startDateTime: at(1, "10:00"), endDateTime: at(1, "11:00") }
    const many = await h.request("POST", "/meetings", {
      token: w.alice,
      body: { ...body, attendees: Array.from({ length: 600 }, (_, i) => ({ email: `p${i}@hq.example` })) },
    })
    expect(many.status).toBe(400)
    expect(many.body.message).toEqual(["attendees: at most 500 attendees"])
    const bad = await h.request("POST", "/meetings", { token: w.alice, body: { ...body, attendees: [0, 0] } })
    expect(bad.body.message.filter((m: string) => m.startsWith("attendees."))).toHaveLength(2)
  })

  it("the manifest's arrays are bounded at 100,000 items, checked before any item is decoded", async () => {
    const manifest = contractManifest() as any
    manifest.projects[0].rooms = Array(100_001).fill(0)
    const res = await h.admin("PUT", "/manifest", manifest)
    expect(res.status).toBe(400)
    expect(res.body.message).toEqual(["projects.0.rooms: at most 100000 items (100001 sent)"])
  })

  it("the manifest takes large arrays; an answer names at most 1,000 violations and counts the rest", async () => {
    const manifest = contractManifest() as any
    const room = manifest.projects[0].rooms[0]
    manifest.projects[0].rooms = Array.from({ length: 1_500 }, (_, i) => ({ ...room, key: `bad-${i}`, capacity: "many" }))
    const res = await h.admin("PUT", "/manifest", manifest)
    expect(res.status).toBe(400)
    expect(res.body.message).toHaveLength(1_001)
    expect(res.body.message.at(-1)).toBe("and 500 more violations")
  })
})
