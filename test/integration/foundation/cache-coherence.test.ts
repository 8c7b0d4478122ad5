import postgres from "postgres"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { boot, type Booted } from "../../../adapters/wiring/boot.ts"
import { ADMIN_TOKEN, CLOCK_START, startHarness, type Harness } from "../../support/harness.ts"
import { APP, at, bookingManifest } from "../bookings/booking-fixtures.ts"

/**
 * Issue 13: the token, app and asset caches of one process never outlive a change committed by
 * another on the same PostgreSQL database (postgres/cache-epoch.ts). Two booted services on one
 * database stand in for two processes.
 */
describe("caches across processes on one PostgreSQL database", () => {
  let a: Harness
  let b: Booted
  let sql: postgres.Sql
  let token: string
  let orchid: string
  const onB = async (method: string, path: string, body?: unknown, bearer = token) => {
    const res = await b.app.request(path, {
      method,
      headers: { authorization: `Bearer ${bearer}`, "content-type": "application/json" },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    })
    return { status: res.status, body: (await res.json()) as any }
  }

  beforeAll(async () => {
    a = await startHarness("postgres")
    const url = a.booted.services.config.databaseUrl!
    b = await boot(
      { DATABASE_URL: url, KEYSPACE_SEED: "none", KEYSPACE_CLOCK: "manual", KEYSPACE_CLOCK_START: CLOCK_START, KEYSPACE_ADMIN_TOKEN: ADMIN_TOKEN, KEYSPACE_LOG_LEVEL: "silent" },
      { print: () => {}, background: false },
    )
    sql = postgres(url, { max: 1, onnotice: () => {} })
    const ids = await a.applyManifest(bookingManifest())
    orchid = ids.projects.hq.rooms.orchid
    token = await a.tokenFor(APP.appId, APP.appSecret)
  }, 60_000)
  afterAll(async () => {
    await sql?.end()
    await b?.close()
    await a?.close()
  })

  /** The manifest applied through A with one room or desk of the first project inactive. */
  const deactivateOnA = async (list: "rooms" | "desks", key: string) => {
    const m = bookingManifest() as any
    m.projects[0][list].find((x: any) => x.key === key).status = "inactive"
    await a.applyManifest(m)
  }
  /** B refuses the create with a client error at once (never 201, never 5xx). */
  const expectRefusedOnB = async (body: Record<string, unknown>) => {
    const r = await onB("POST", "/meetings", body)
    expect(r.status).not.toBe(201)
    expect(r.status).toBeLessThan(500)
  }

  it("a room deactivated by the manifest on one process refuses bookings on another at once", async () => {
    const first = await onB("POST", "/meetings", { meetingRoomId: orchid, title: "warm", startDateTime: at(1, "10:00"), endDateTime: at(1, "11:00") })
    expect(first.status).toBe(201)
    await deactivateOnA("rooms", "orchid")
    await expectRefusedOnB({ meetingRoomId: orchid, title: "after", startDateTime: at(1, "12:00"), endDateTime: at(1, "13:00") })
  })

  it("a desk known to B from its listing, deactivated by the manifest on A, refuses bookings on B at once", async () => {
    const ids = (await a.applyManifest(bookingManifest())).projects.hq
    const desk = ids.desks.d2 as string
    // B lists the project's desks (it then knows them all) and books one from what it knows.
    expect((await onB("GET", `/desks?projectId=${ids.id}`)).body.data.map((d: any) => d._id)).toContain(desk)
    expect((await onB("POST", "/meetings", { deskId: desk, title: "listed", startDateTime: at(3, "10:00"), endDateTime: at(3, "11:00") })).status).toBe(201)
    await deactivateOnA("desks", "d2")
    await expectRefusedOnB({ deskId: desk, title: "after", startDateTime: at(3, "12:00"), endDateTime: at(3, "13:00") })
    await a.applyManifest(bookingManifest())
  })

  it("a room or desk booked on one process leaves the other's availability search at once", async () => {
    const ids = (await a.applyManifest(bookingManifest())).projects.hq
    const project = ids.id as string
    const window = `startDateTime=${encodeURIComponent(at(2, "10:00"))}&endDateTime=${encodeURIComponent(at(2, "11:00"))}`
    const roomIds = async () => (await onB("GET", `/meeting-rooms?projectId=${project}&${window}`)).body.data.map((r: any) => r._id)
    const desks = async () => (await onB("GET", `/desks?projectId=${project}&${window}`)).body
    // Warm B's availability for the window (twice: the second answer is the reused one).
    expect(await roomIds()).toContain(orchid)
    expect(await roomIds()).toContain(orchid)
    const desk = ids.desks.d1 as string
    const before = await desks()
    expect(before.data.map((d: any) => d._id)).toContain(desk)
    expect((await desks()).meta.total).toBe(before.meta.total)
    // Booked through A: B's next searches leave them out.
    const room = await a.request("POST", "/meetings", { token, body: { meetingRoomId: orchid, title: "on A", startDateTime: at(2, "10:30"), endDateTime: at(2, "11:30") } })
    expect(room.status).toBe(201)
    expect(await roomIds()).not.toContain(orchid)
    const booked = await a.request("POST", "/meetings", { token, body: { deskId: desk, title: "on A", startDateTime: at(2, "09:30"), endDateTime: at(2, "10:30") } })
    expect(booked.status).toBe(201)
    const after = await desks()
    expect(after.data.map((d: any) => d._id)).not.toContain(desk)
    expect(after.meta.total).toBe(before.meta.total - 1)
    // Cancelled on A: free again on B.
    expect((await a.request("POST", `/meetings/${room.body.data._id}/cancel`, { token, body: {} })).status).toBeLessThan(300)
    expect(await roomIds()).toContain(orchid)
  })

  it("a meeting booked or cancelled on one process is in the other's GET /meetings at once", async () => {
    const project = (await a.applyManifest(bookingManifest())).projects.hq.id as string
    const window = `projectId=${project}&from=${encodeURIComponent(at(3, "00:00"))}&to=${encodeURIComponent(at(4, "00:00"))}`
    const listed = async () => (await onB("GET", `/meetings?${window}`)).body
    // Warm B's listing of the day (twice: the second answer is the reused one).
    const before = await listed()
    expect((await listed()).meta.total).toBe(before.meta.total)
    const made = await a.request("POST", "/meetings", { token, body: { meetingRoomId: orchid, title: "listed on B", startDateTime: at(3, "10:00"), endDateTime: at(3, "11:00") } })
    expect(made.status).toBe(201)
    const after = await listed()
    expect(after.meta.total).toBe(before.meta.total + 1)
    expect(after.data.map((m: any) => m._id)).toContain(made.body.data._id)
    // Cancelled on A: B's next page shows the new status, not the kept one.
    expect((await a.request("POST", `/meetings/${made.body.data._id}/cancel`, { token, body: {} })).status).toBeLessThan(300)
    const cancelled = (await listed()).data.find((m: any) => m._id === made.body.data._id)
    expect(cancelled?.status ?? "gone").not.toBe(made.body.data.status)
  })

  /** POST /meetings on B with this token; the status and how many bookings now carry the title. */
  const createOnB = async (bearer: string, title: string, day: number, extra: Record<string, unknown> = {}) => {
    const res = await onB("POST", "/meetings", { meetingRoomId: orchid, title, startDateTime: at(day, "14:00"), endDateTime: at(day, "15:00"), ...extra }, bearer)
    const [{ n }] = await sql<[{ n: number }]>`select count(*)::int as n from bookings where title = ${title}`
    return { ...res, written: n }
  }

  // The create's rows come from the caches (token, app, room): they follow a change made elsewhere too.
  it("a create on one process with a token another process revoked is refused, and nothing is written", async () => {
    await a.applyManifest(bookingManifest())
    const own = await a.tokenFor(APP.appId, APP.appSecret)
    // B keeps the token and its caches (a first create, answered).
    expect((await createOnB(own, "kept token", 5)).status).toBe(201)
    await sql`update tokens set revoked_at = now() where token_hash = encode(sha256(${own}::bytea), 'hex')`
    const free = await createOnB(own, "after revocation", 6)
    expect(free.status).toBe(401)
    expect(free.body.code).toBe("SV002")
    expect(free.written).toBe(0)
    // Nor a draft, nor a body the create refuses: the refusal of the token comes first.
    expect((await createOnB(own, "draft after revocation", 6, { draft: true })).status).toBe(401)
    expect((await createOnB(own, "bad after revocation", 6, { endDateTime: "soon" })).status).toBe(401)
  })

  it("a create after another process moved the cache epoch is written once", async () => {
    expect((await createOnB(token, "before the move", 7)).status).toBe(201)
    await sql`update cache_epoch set value = value + 1 where id = 1`
    const moved = await createOnB(token, "after the move", 8)
    expect(moved.status).toBe(201)
    expect(moved.written).toBe(1)
    // Its slot is taken now: the next create of it on B is a 409, not a second booking.
    const again = await createOnB(token, "after the move", 8)
    expect(again.status).toBe(409)
    expect(again.written).toBe(1)
  })

  it("an access token revoked by another process is refused at once", async () => {
    expect((await onB("GET", "/meetings")).status).not.toBe(401)
    await sql`update tokens set revoked_at = now() where kind = 'access'`
    const res = await onB("GET", "/meetings")
    expect(res.status).toBe(401)
    expect(res.body.code).toBe("SV002")
  })
})
