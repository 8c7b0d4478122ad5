import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { e2eTarget, uniqueSuffix, type E2ETarget } from "../support/e2e-target.ts"

describe("bookings over HTTP", () => {
  let t: E2ETarget
  let token: string
  let ids: any
  const sfx = uniqueSuffix()
  const project = `bk-${sfx}`
  beforeAll(async () => {
    t = await e2eTarget()
    const manifest = {
      projects: [
        {
          key: project,
          name: "Bookings E2E",
          timezone: "Asia/Bangkok",
          zones: [{ key: "a", name: "A", floors: [{ key: "a-1", name: "A1" }] }],
          rooms: [{ key: "r1", name: "E2E Room", zone: "a", floor: "a-1", capacity: 6 }],
          desks: [{ key: "d1", name: "E2E Desk", zone: "a", floor: "a-1" }],
        },
      ],
      apps: [{ key: `bk-app-${sfx}`, appId: `bk-app-${sfx}`, appSecret: "e2e-secret-123", projects: [project] }],
    }
    const applied = await t.admin("PUT", "/manifest", manifest)
    expect(applied.status).toBe(200)
    ids = applied.body.data.projects[project]
    const res = await t.call("POST", "/auth/accessToken", {
      body: { grant_type: "app_credentials", app_id: `bk-app-${sfx}`, app_secret: "e2e-secret-123" },
    })
    token = res.body.access_token
  })
  afterAll(async () => t?.close())

  it("search, book, conflict, list, check in and check out a room", async () => {
    // Times follow the server's clock (manual in-process, real against a live server).
    const now = Date.parse((await t.admin("GET", "/clock")).body.data.now)
    const start = new Date(Math.ceil((now + 5 * 60_000) / 60_000) * 60_000)
    const end = new Date(start.getTime() + 30 * 60_000)
    const window = `startDateTime=${encodeURIComponent(start.toISOString())}&endDateTime=${encodeURIComponent(end.toISOString())}`

    const free = await t.call("GET", `/meeting-rooms?projectId=${ids.id}&${window}`, { token })
    expect(free.status).toBe(200)
    expect(free.body.data.map((r: any) => r._id)).toEqual([ids.rooms.r1])

    const body = { meetingRoomId: ids.rooms.r1, title: "E2E", startDateTime: start.toISOString(), endDateTime: end.toISOString() }
    const created = await t.call("POST", "/meetings", { token, body })
    expect(created.status).toBe(201)
    expect(created.body.data).toMatchObject({ status: "active", meetingRoomName: "E2E Room" })
    expect(created.body.data.startDateTime).toMatch(/\+07:00$/)
    const id = created.body.data._id

    const clash = await t.call("POST", "/meetings", { token, body })
    expect(clash.status).toBe(409)
    expect(clash.body.code).toBe("SV012")

    const busy = await t.call("GET", `/meeting-rooms?projectId=${ids.id}&${window}`, { token })
    expect(busy.body.data).toEqual([])

    const from = encodeURIComponent(new Date(now).toISOString())
    const to = encodeURIComponent(new Date(now + 86_400_000).toISOString())
    const listed = await t.call("GET", `/meetings?from=${from}&to=${to}&projectId=${ids.id}`, { token })
    expect(listed.status).toBe(200)
    expect(listed.body.meta).toMatchObject({ offset: 0, total: 1 })

    const checkIn = await t.call("POST", `/meetings/${id}/check-in`, { token })
    expect(checkIn.status).toBe(202)
    expect(checkIn.body.data.status).toBe("checked-in")
    const cancel = await t.call("POST", `/meetings/${id}/cancel`, { token })
    expect(cancel.status).toBe(409)
    expect(cancel.body.code).toBe("SV006")
    const checkOut = await t.call("POST", `/meetings/${id}/check-out`, { token })
    expect(checkOut.status).toBe(202)
    expect(checkOut.body.data.status).toBe("done")
  })

  it("desks: availability with timePeriod and pagination meta", async () => {
    const res = await t.call("GET", `/desks?projectId=${ids.id}&limit=5`, { token })
    expect(res.status).toBe(200)
    expect(res.body.meta).toEqual({ limit: 5, offset: 0, total: 1 })
    const bad = await t.call("GET", `/desks?projectId=${ids.id}&timePeriod=morning`, { token })
    expect(bad.status).toBe(400)
    expect(bad.body.code).toBe("SV001")
  })

  it("validation failures are 400 SV001 with an array of messages", async () => {
    const res = await t.call("POST", "/meetings", { token, body: { meetingRoomId: "x", deskId: "y", startDateTime: "soon" } })
    expect(res.status).toBe(400)
    expect(res.body.code).toBe("SV001")
    expect(res.body.message.length).toBeGreaterThanOrEqual(4)
  })
})
