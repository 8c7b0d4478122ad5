import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { pickFreePort, startServer, type ServerProcess } from "../crash/server-process.ts"
import { startReceiver, type Receiver } from "../integration/webhooks/receiver.ts"
import { freshPostgresDatabase } from "../support/databases.ts"

/**
 * Issue 16: three real server processes on one fresh PostgreSQL database, driven round-robin
 * as a load balancer would, behave as one service. The tests run in order and share the
 * deployment; every time is read from the deployment's (manual) clock.
 *
 * Skipped against an external server (KEYSPACE_E2E_URL, .ci/runtime-smoke): it starts its own.
 */
const ADMIN = "scale-out-admin-token-0123456789"
const CLOCK_START = "2030-01-07T02:00:00.000Z" // Monday 09:00 in Asia/Bangkok
const SECRET = "scale-out-app-secret-1"
const HOOK_SECRET = "w".repeat(40)
const LIFECYCLE_EVENTS = ["ROOM_BOOK", "ROOM_REMINDER", "ROOM_NO_SHOW_WARNING", "ROOM_CANCEL", "ROOM_ENDING_SOON"]

const everyDay = Object.fromEntries(
  ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"].map((d) => [d, { availableTime: { start: "00:00:00", end: "23:59:00" } }]),
)
const ROOMS = 12
interface Hook {
  readonly key: string
  readonly url: string
}
/** Without `secret` the manifest leaves the app alone (its secret is rotated by the operator endpoint). */
const manifest = (o: { secret?: string; hooks: readonly Hook[]; removedHooks?: readonly string[]; closed?: string }) => ({
  projects: [
    {
      key: "so",
      name: "Scale-out Tower",
      timezone: "Asia/Bangkok",
      zones: [{ key: "a", name: "A", floors: [{ key: "a-1", name: "A1" }] }],
      rooms: Array.from({ length: ROOMS }, (_, i) => ({
        key: `r${i}`,
        name: `Room ${i}`,
        zone: "a",
        floor: "a-1",
        capacity: 6,
        status: o.closed === `r${i}` ? "inactive" : "active",
        config: { dayConfig: everyDay },
      })),
      units: [{ key: "u1", addressNo: "1/1", zone: "a", unitId: "U-1" }],
      accessGroups: [{ key: "lobby", name: "Lobby" }],
      webhooks: o.hooks.map((h) => ({ key: h.key, url: h.url, secret: HOOK_SECRET, events: LIFECYCLE_EVENTS })),
      ...(o.removedHooks === undefined ? {} : { removedWebhooks: o.removedHooks }),
    },
  ],
  ...(o.secret === undefined
    ? {}
    : { apps: [{ key: "app", appId: "so-app", appSecret: o.secret, projects: ["so"], partnerAccessGroups: ["lobby"], canActAs: true }] }),
})

interface Reply {
  readonly status: number
  readonly body: any
}

describe.skipIf(Boolean(process.env.KEYSPACE_E2E_URL))("three processes on one PostgreSQL", () => {
  let db: { url: string; drop: () => Promise<void> }
  let rx: Receiver
  let rx2: Receiver
  let env: Record<string, string>
  const servers: ServerProcess[] = []
  let ids: any
  let next = 0
  /** The app's secret after the operator rotates it (the manifest-change test). */
  let rotated = ""

  /** Round-robin over the live processes, or one named process. */
  const call = async (method: string, path: string, o: { token?: string; body?: unknown; via?: number } = {}): Promise<Reply> => {
    const live = servers.filter((s) => s.child.exitCode === null && s.child.signalCode === null)
    const server = o.via === undefined ? live[next++ % live.length]! : servers[o.via]!
    const headers: Record<string, string> = {}
    if (o.token) headers.authorization = `Bearer ${o.token}`
    if (o.body !== undefined) headers["content-type"] = "application/json"
    const res = await fetch(server.url + path, {
      method,
      headers,
      body: o.body === undefined ? undefined : JSON.stringify(o.body),
      signal: AbortSignal.timeout(60_000),
    })
    const text = await res.text()
    return { status: res.status, body: text === "" ? undefined : JSON.parse(text) }
  }
  const admin = (method: string, path: string, body?: unknown, via?: number) =>
    call(method, `/admin/v1${path}`, { token: ADMIN, body, ...(via === undefined ? {} : { via }) })
  const clockOn = async (via: number) => (await admin("GET", "/clock", undefined, via)).body.data.now as string
  const now = async () => Date.parse(await clockOn(0))
  const advanceTo = async (to: number, via: number) => {
    const res = await admin("POST", "/clock/advance", { to: new Date(to).toISOString() }, via)
    expect(res.status, JSON.stringify(res.body)).toBe(200)
  }
  const tokenPair = async (secret = SECRET, via?: number) => {
    const res = await call("POST", "/auth/accessToken", {
      body: { grant_type: "app_credentials", app_id: "so-app", app_secret: secret },
      ...(via === undefined ? {} : { via }),
    })
    expect(res.status, JSON.stringify(res.body)).toBe(201)
    return res.body as { access_token: string; refresh_token: string; expires_in: number }
  }
  const token = async () => (await tokenPair()).access_token
  const book = (tok: string, room: string, start: number, minutes: number, via?: number) =>
    call("POST", "/meetings", {
      token: tok,
      body: {
        meetingRoomId: ids.rooms[room],
        title: `scale-out ${room}`,
        startDateTime: new Date(start).toISOString(),
        endDateTime: new Date(start + minutes * 60_000).toISOString(),
      },
      ...(via === undefined ? {} : { via }),
    })
  const quarterAfter = (t: number, plusMinutes: number) => Math.ceil(t / 900_000) * 900_000 + plusMinutes * 60_000

  beforeAll(async () => {
    db = await freshPostgresDatabase()
    rx = await startReceiver()
    rx2 = await startReceiver()
    env = {
      DATABASE_URL: db.url,
      KEYSPACE_SEED: "none",
      KEYSPACE_CLOCK: "manual",
      KEYSPACE_CLOCK_START: CLOCK_START,
      KEYSPACE_ADMIN_TOKEN: ADMIN,
      KEYSPACE_ALLOW_INSECURE_WEBHOOKS: "1",
      KEYSPACE_LOG_LEVEL: "error",
    }
    // All three start at once, as a deployment's replicas do (migrations under the lock).
    const ports = [await pickFreePort(), await pickFreePort(), await pickFreePort()]
    servers.push(...(await Promise.all(ports.map((p) => startServer(env, p, { startTimeoutMs: 120_000 })))))
    // Two registrations: "ops" (rx) is removed by the manifest-change test, "keep" (rx2) stays.
    const applied = await admin("PUT", "/manifest", manifest({ secret: SECRET, hooks: [{ key: "ops", url: rx.url }, { key: "keep", url: rx2.url }] }))
    expect(applied.status, JSON.stringify(applied.body)).toBe(200)
    ids = applied.body.data.projects.so
  }, 240_000)

  afterAll(async () => {
    await Promise.all(servers.map((s) => s.kill("SIGKILL")))
    await rx?.close()
    await rx2?.close()
    await db?.drop()
  }, 60_000)

  it("the clock advanced on one process is the time read on the others at once", async () => {
    const start = await clockOn(0)
    expect(await clockOn(1)).toBe(start)
    expect(await clockOn(2)).toBe(start)
    await advanceTo(Date.parse(start) + 10 * 60_000, 1)
    const moved = new Date(Date.parse(start) + 10 * 60_000).toISOString()
    expect([await clockOn(0), await clockOn(1), await clockOn(2)]).toEqual([moved, moved, moved])
  })

  it("a token minted on one process works on every process; refresh rotates across processes; expiry holds everywhere", async () => {
    const pair = await tokenPair(SECRET, 0)
    for (const via of [0, 1, 2]) expect((await call("GET", `/meeting-rooms?projectId=${ids.id}`, { token: pair.access_token, via })).status).toBe(200)
    const rotated = await call("POST", "/auth/accessToken", { body: { grant_type: "refresh_token", refresh_token: pair.refresh_token }, via: 1 })
    expect(rotated.status).toBe(201)
    // The spent refresh token is refused on the other processes too.
    for (const via of [2, 0]) {
      const again = await call("POST", "/auth/accessToken", { body: { grant_type: "refresh_token", refresh_token: pair.refresh_token }, via })
      expect(again.status).toBe(401)
    }
    expect((await call("GET", `/meeting-rooms?projectId=${ids.id}`, { token: rotated.body.access_token, via: 2 })).status).toBe(200)
    // The access token lapses on the deployment's clock, whichever process moved it.
    await advanceTo((await now()) + (rotated.body.expires_in + 60) * 1000, 2)
    for (const via of [0, 1]) {
      const res = await call("GET", `/meeting-rooms?projectId=${ids.id}`, { token: rotated.body.access_token, via })
      expect(res.status).toBe(401)
      expect(res.body.code).toBe("SV002")
    }
  })

  it("a slot contended over all three processes is booked exactly once (one 201, the rest 409 SV012)", async () => {
    const tok = await token()
    const start = quarterAfter(await now(), 60)
    const replies = await Promise.all(Array.from({ length: 30 }, () => book(tok, "r0", start, 30)))
    const statuses = replies.map((r) => r.status)
    expect(statuses.filter((s) => s === 201)).toHaveLength(1)
    expect(replies.filter((r) => r.status !== 201).every((r) => r.status === 409 && r.body.code === "SV012")).toBe(true)
    const id = replies.find((r) => r.status === 201)!.body.data._id
    expect((await call("POST", `/meetings/${id}/cancel`, { token: tok })).status).toBeLessThan(300)
  }, 120_000)

  it("reminders, no-shows and completions are applied once, each webhook event delivered once", async () => {
    let tok = await token()
    const from = rx.received.length
    const start = quarterAfter(await now(), 60)
    // Rooms 1-2 nobody checks in (no-show), rooms 3-4 are checked in and run to their end.
    const made: Record<string, string> = {}
    for (const room of ["r1", "r2", "r3", "r4"]) {
      const res = await book(tok, room, start, 60)
      expect(res.status, JSON.stringify(res.body)).toBe(201)
      made[room] = res.body.data._id
    }
    await advanceTo(start - 15 * 60_000, 0) // reminders
    tok = await token()
    for (const room of ["r3", "r4"]) expect((await call("POST", `/meetings/${made[room]}/check-in`, { token: tok })).status).toBe(202)
    await advanceTo(start + 10 * 60_000, 1) // no-show warnings
    await advanceTo(start + 15 * 60_000, 2) // no-show cancels
    await advanceTo(start + 45 * 60_000, 0) // ending soon
    await advanceTo(start + 60 * 60_000, 1) // end: done
    tok = await token()
    for (const via of [0, 1, 2]) {
      const statuses = await Promise.all(
        ["r1", "r2", "r3", "r4"].map(async (room) => (await call("GET", `/meetings/${made[room]}`, { token: tok, via })).body.data.status),
      )
      expect(statuses).toEqual(["cancelled", "cancelled", "done", "done"])
    }

    const expected: Array<[string, string]> = []
    for (const room of ["Room 1", "Room 2"])
      for (const type of ["ROOM_BOOK", "ROOM_REMINDER", "ROOM_NO_SHOW_WARNING", "ROOM_CANCEL"]) expected.push([room, type])
    for (const room of ["Room 3", "Room 4"]) for (const type of ["ROOM_BOOK", "ROOM_REMINDER", "ROOM_ENDING_SOON"]) expected.push([room, type])
    const mine = () => rx.received.slice(from).filter((r) => ["Room 1", "Room 2", "Room 3", "Room 4"].includes(r.body?.data?.roomName))
    for (let i = 0; i < 600 && mine().length < expected.length; i++) await new Promise((r) => setTimeout(r, 100))
    // Any duplicate would come from a second process sending the same delivery: give it time.
    await new Promise((r) => setTimeout(r, 2_000))
    const got = mine()
    const pairs = got.map((r) => `${r.body.data.roomName} ${r.body.type}`).sort()
    expect(pairs).toEqual(expected.map(([room, type]) => `${room} ${type}`).sort())
    const deliveryIds = got.map((r) => r.headers["x-service-delivery"])
    expect(new Set(deliveryIds).size).toBe(deliveryIds.length)
  }, 180_000)

  it("a manifest change (room deactivated, app secret rotated, webhook removed) is effective on every process at once", async () => {
    const applied = await admin("PUT", "/manifest", manifest({ hooks: [{ key: "keep", url: rx2.url }], removedHooks: ["ops"], closed: "r5" }), 2)
    expect(applied.status, JSON.stringify(applied.body)).toBe(200)
    const secret = await admin("POST", "/apps/so-app/secret", undefined, 0)
    expect(secret.status, JSON.stringify(secret.body)).toBe(200)
    rotated = secret.body.data.appSecret
    expect(rotated).not.toBe(SECRET)

    const start = quarterAfter(await now(), 60)
    for (const via of [0, 1, 2]) {
      const old = await call("POST", "/auth/accessToken", { body: { grant_type: "app_credentials", app_id: "so-app", app_secret: SECRET }, via })
      expect(old.status).toBe(401)
      const fresh = await tokenPair(rotated, via)
      const closed = await book(fresh.access_token, "r5", start, 30, via)
      expect(closed.status, JSON.stringify(closed.body)).toBe(400)
      const rooms = await call("GET", `/meeting-rooms?projectId=${ids.id}&limit=50`, { token: fresh.access_token, via })
      expect(rooms.body.data.find((r: any) => r._id === ids.rooms.r5)?.status).toBe("inactive")
    }

    // One booking created on each process after the removal: the registration still there
    // gets each ROOM_BOOK once (so the check below is not vacuous), the removed one none.
    const tok = (await tokenPair(rotated, 1)).access_token
    const made: string[] = []
    for (const via of [0, 1, 2]) {
      const res = await book(tok, "r6", start + via * 30 * 60_000, 30, via)
      expect(res.status, JSON.stringify(res.body)).toBe(201)
      made.push(res.body.data._id)
    }
    const room6 = (r: Receiver) => r.received.filter((x) => x.body?.type === "ROOM_BOOK" && x.body.data?.roomName === "Room 6")
    for (let i = 0; i < 600 && room6(rx2).length < made.length; i++) await new Promise((r) => setTimeout(r, 100))
    // A process still sending to the removed registration would do it alongside: give it time.
    await new Promise((r) => setTimeout(r, 2_000))
    expect(room6(rx2)).toHaveLength(made.length)
    expect(new Set(room6(rx2).map((x) => x.headers["x-service-delivery"])).size).toBe(made.length)
    expect(rx.received.filter((x) => x.body?.data?.roomName === "Room 6")).toEqual([])
  }, 120_000)

  it("a member offboarded on one process is offboarded on every process at once", async () => {
    const tok = (await tokenPair(rotated)).access_token
    const path = "/partner/members/ext-scale-out"
    const put = await call("PUT", path, { token: tok, via: 0, body: { firstName: "Scale", lastName: "Out", unit: { addressNo: "1/1" } } })
    expect(put.status, JSON.stringify(put.body)).toBe(200)
    expect((await call("DELETE", path, { token: tok, via: 1 })).status).toBe(204)
    for (const via of [2, 0, 1]) {
      const res = await call("PUT", `${path}/credentials`, { token: tok, via, body: { cards: [] } })
      expect(res.status).toBe(409)
      expect(res.body.code).toBe("SV006")
    }
  })

  it("the partner rate limit is one budget across the processes (30 per window, then 429 SV036)", async () => {
    const tok = (await tokenPair(rotated)).access_token
    // A fresh window on the deployment's clock: earlier tests' partner calls have left it.
    await advanceTo((await now()) + 61_000, 0)
    const replies: Reply[] = []
    for (let i = 0; i < 36; i++) replies.push(await call("GET", "/partner/members/nobody", { token: tok }))
    const limited = replies.filter((r) => r.status === 429)
    expect(limited).toHaveLength(6)
    expect(limited.every((r) => r.body.code === "SV036")).toBe(true)
    expect(replies.slice(0, 30).every((r) => r.status !== 429)).toBe(true)
  }, 120_000)

  it("a process killed with SIGKILL mid-load: the others carry on and nothing acknowledged is lost", async () => {
    const tok = (await tokenPair(rotated)).access_token
    const base = quarterAfter(await now(), 24 * 60)
    const slots = Array.from({ length: 60 }, (_, i) => ({ room: `r${7 + (i % 5)}`, start: base + Math.floor(i / 5) * 30 * 60_000 }))
    const acknowledged: string[] = []
    let failed = 0
    let sent = 0
    let killed: Promise<unknown> | undefined
    const worker = async () => {
      for (;;) {
        const slot = slots[sent++]
        if (!slot) return
        if (sent === 20) killed = servers[1]!.kill("SIGKILL")
        // A request to the dying process fails (not acknowledged): the balancer retries elsewhere.
        for (let attempt = 0; attempt < 5; attempt++) {
          const res = await book(tok, slot.room, slot.start, 30).catch(() => undefined)
          if (res?.status === 201) {
            acknowledged.push(res.body.data._id)
            break
          }
          if (res?.status === 409) break // committed by a request whose answer was lost
          failed++
        }
      }
    }
    await Promise.all([worker(), worker(), worker(), worker()])
    // The exit is reported asynchronously: wait for it rather than race it.
    await killed
    expect(servers[1]!.child.signalCode).toBe("SIGKILL")
    expect(acknowledged.length).toBeGreaterThan(40)
    for (const id of acknowledged) {
      const res = await call("GET", `/meetings/${id}`, { token: tok })
      expect(res.status).toBe(200)
      expect(res.body.data.status).toBe("active")
    }
    // Every booking committed (acknowledged or not) has its ROOM_BOOK delivered, by whichever
    // process relays it: the killed one's claims rolled back, its leases lapse and are taken over.
    const listed = await call("GET", `/meetings?projectId=${ids.id}&from=${encodeURIComponent(new Date(base).toISOString())}&to=${encodeURIComponent(new Date(base + 13 * 3_600_000).toISOString())}&limit=100`, { token: tok })
    const committed = listed.body.meta.total as number
    expect(committed).toBeGreaterThanOrEqual(acknowledged.length)
    const loadRooms = new Set(["Room 7", "Room 8", "Room 9", "Room 10", "Room 11"])
    const booked = () => new Set(rx2.received.filter((r) => r.body?.type === "ROOM_BOOK" && loadRooms.has(r.body.data?.roomName)).map((r) => r.headers["x-service-delivery"]))
    const waitForDeliveries = async (tenths: number) => {
      for (let i = 0; i < tenths && booked().size < committed; i++) await new Promise((r) => setTimeout(r, 100))
    }
    await waitForDeliveries(300)
    // An attempt the kill cut short may stand as a failed attempt whose retry is due on the
    // service clock (1, 2, 4, 8 min), which is manual here: move it past the retries.
    if (booked().size < committed) await advanceTo((await now()) + 16 * 60_000, 0)
    await waitForDeliveries(600)
    expect(booked().size).toBe(committed)
    // The survivors still move the clock (the killed process held no lock that outlives it).
    await advanceTo((await now()) + 60_000, 2)
    // A replacement joins the running deployment on its clock.
    const replacement = await startServer(env, await pickFreePort(), { startTimeoutMs: 120_000 })
    servers[1] = replacement
    expect(await clockOn(1)).toBe(await clockOn(0))
    void failed
  }, 180_000)
})
