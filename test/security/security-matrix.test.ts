import { sql } from "drizzle-orm"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { execute } from "../../adapters/postgres/database.ts"
import { ADMIN_TOKEN, CLOCK_START, startHarness, type Harness } from "../support/harness.ts"
import { formatAt } from "../fuzz/request-arbitraries.ts"
import { runWitnesses, setUpFuzzWorld, type FuzzWorld } from "../fuzz/fuzz-world.ts"

/**
 * Security matrix: every route x {no token, expired token, a token of an app of another
 * project, a delegated token of a member without rights, an operator call without the admin
 * token}, plus mass-assignment attempts. Each is refused or has no effect, and the database
 * shows it (row counts, the target booking, witness queries).
 */
const START = Date.parse(CLOCK_START)
const at = (minutes: number) => formatAt(START + minutes * 60_000, 420)

interface Route {
  readonly name: string
  readonly method: string
  readonly path: string
  readonly body?: unknown
  readonly write: boolean
}

describe("security matrix", () => {
  let h: Harness
  let w: FuzzWorld
  let expired: FuzzWorld["tokens"]
  let meeting: string
  let alicePin: string
  const db = () => h.booted.services.database.db
  const count = async (table: string) =>
    Number((await execute<{ n: number }>(db(), sql.raw(`select count(*)::int as n from ${table}`)))[0]!.n)

  beforeAll(async () => {
    h = await startHarness("pglite", {
      KEYSPACE_ACCESS_TOKEN_TTL: "60",
      KEYSPACE_ACT_AS_TOKEN_TTL: "60",
      KEYSPACE_PARTNER_RATE_LIMIT: "1000000",
    })
    // Tokens minted now expire once the clock moves two minutes; then a fresh set is minted.
    expired = (await setUpFuzzWorld(h.request, ADMIN_TOKEN)).tokens
    await h.advance(2)
    w = await setUpFuzzWorld(h.request, ADMIN_TOKEN)
    const created = await h.request("POST", "/meetings", {
      token: w.tokens.alice,
      body: { meetingRoomId: w.hq.rooms.r1, title: "Alice only", startDateTime: at(12), endDateTime: at(72) },
    })
    expect(created.status).toBe(201)
    meeting = created.body.data._id
    alicePin = created.body.data.pinCode
    const member = await h.request("PUT", "/partner/members/ext-alice", { token: w.tokens.app, body: { firstName: "Alice", lastName: "Ng" } })
    expect(member.status).toBe(200)
  })
  afterAll(async () => h?.close())

  const specRoutes = (): Route[] => [
    { name: "rooms", method: "GET", path: `/meeting-rooms?projectId=${w.hq.id}`, write: false },
    { name: "room", method: "GET", path: `/meeting-rooms/${w.hq.rooms.r1}`, write: false },
    { name: "desks", method: "GET", path: `/desks?projectId=${w.hq.id}`, write: false },
    { name: "desk", method: "GET", path: `/desks/${w.hq.desks.d1}`, write: false },
    { name: "create", method: "POST", path: "/meetings", write: true,
      body: { meetingRoomId: w.hq.rooms.r2, title: "intruder", startDateTime: at(120), endDateTime: at(180) } },
    { name: "list", method: "GET", path: `/meetings?projectId=${w.hq.id}&from=${encodeURIComponent(at(-600))}&to=${encodeURIComponent(at(6000))}`, write: false },
    { name: "detail", method: "GET", path: `/meetings/${meeting}`, write: false },
    { name: "update", method: "PATCH", path: `/meetings/${meeting}`, body: { title: "hijacked" }, write: true },
    { name: "cancel", method: "POST", path: `/meetings/${meeting}/cancel`, body: {}, write: true },
    { name: "check-in", method: "POST", path: `/meetings/${meeting}/check-in`, body: {}, write: true },
    { name: "check-out", method: "POST", path: `/meetings/${meeting}/check-out`, body: {}, write: true },
    { name: "member-put", method: "PUT", path: "/partner/members/ext-alice", body: { firstName: "Mallory", lastName: "X" }, write: true },
    { name: "member-get", method: "GET", path: "/partner/members/ext-alice", write: false },
    { name: "member-delete", method: "DELETE", path: "/partner/members/ext-alice", write: true },
    { name: "credentials", method: "PUT", path: "/partner/members/ext-alice/credentials", body: { cards: [{ cardNo: "1234567890" }] }, write: true },
  ]
  const operatorRoutes = (): Route[] => [
    { name: "manifest", method: "PUT", path: "/admin/v1/manifest", body: { projects: [] }, write: true },
    { name: "clock", method: "GET", path: "/admin/v1/clock", write: false },
    { name: "advance", method: "POST", path: "/admin/v1/clock/advance", body: { minutes: 600 }, write: true },
    { name: "reject", method: "POST", path: `/admin/v1/meetings/${meeting}/reject`, body: {}, write: true },
    { name: "visitor", method: "POST", path: `/admin/v1/projects/${w.hq.id}/visitor-events`, body: { type: "VMS_HOST_CANCELLED", data: {} }, write: true },
    { name: "deliveries", method: "GET", path: `/admin/v1/webhooks/${w.hq.webhooks.ops}/deliveries`, write: false },
    { name: "enable", method: "POST", path: `/admin/v1/webhooks/${w.hq.webhooks.ops}/enable`, write: true },
    { name: "redeliver", method: "POST", path: `/admin/v1/deliveries/${"0".repeat(24)}/redeliver`, write: true },
  ]

  const send = (r: Route, token: string | undefined) => h.request(r.method, r.path, { token, body: r.body })
  const snapshot = async () => ({
    bookings: await count("bookings"),
    histories: await count("booking_histories"),
    outbox: await count("outbox_events"),
    members: await count("users"),
    cards: await count("member_cards"),
    clock: (await h.admin("GET", "/clock")).body.data.now,
    meeting: (await execute<{ status: string; title: string }>(db(), sql`select status, title from bookings where id = ${meeting}`))[0],
  })

  it("no token and an expired token: every spec and operator route answers 401 SV002", async () => {
    const before = await snapshot()
    for (const r of [...specRoutes(), ...operatorRoutes()]) {
      for (const [label, token] of [["none", undefined], ["expired app", expired.app], ["expired act_as", expired.alice], ["garbage", "x.y.z"]] as const) {
        const res = await send(r, token)
        expect([res.status, res.body?.code], `${label} ${r.method} ${r.path}`).toEqual([401, "SV002"])
      }
    }
    expect(await snapshot()).toEqual(before)
  })

  it("operator routes refuse every non-admin token (app, delegated, another project's) with 401", async () => {
    const before = await snapshot()
    for (const r of operatorRoutes())
      for (const token of [w.tokens.app, w.tokens.carol, w.tokens.other, `${ADMIN_TOKEN}x`, ADMIN_TOKEN.slice(0, -1)]) {
        const res = await send(r, token)
        expect([res.status, res.body?.code], `${r.method} ${r.path}`).toEqual([401, "SV002"])
      }
    expect(await snapshot()).toEqual(before)
  })

  it("an app of another project (and its delegated member) never reaches this project's data", async () => {
    const before = await snapshot()
    for (const r of specRoutes()) {
      for (const token of [w.tokens.other, w.tokens.eve]) {
        const res = await send(r, token)
        const what = `${r.method} ${r.path}: ${res.status} ${(JSON.stringify(res.body) ?? "").slice(0, 200)}`
        if (r.name.startsWith("member") || r.name === "credentials") {
          // Partner ids are per app: the other app names its own (absent) member, never ours.
          // A delegated token is refused outright (spec Authentication 6).
          if (token === w.tokens.eve) expect([res.status, res.body?.code], what).toEqual([403, "SV003"])
          else if (res.status === 200) expect(res.body.data.projectId ?? w.far.id, what).toBe(w.far.id)
          else expect(res.status, what).toBeLessThan(500)
        } else {
          expect([403, 404], what).toContain(res.status)
        }
      }
    }
    const after = await snapshot()
    // The other app's PUT created its own member in its own project, nothing of ours moved.
    expect({ ...after, members: 0 }).toEqual({ ...before, members: 0 })
    const alice = await h.request("GET", "/partner/members/ext-alice", { token: w.tokens.app })
    expect(alice.body.data).toMatchObject({ status: "active", projectId: w.hq.id, profile: { firstName: "Alice" } })
    const meetings = await h.request("GET", `/meetings?from=${encodeURIComponent(at(-600))}&to=${encodeURIComponent(at(6000))}`, { token: w.tokens.other })
    expect(meetings.body.data.map((m: any) => m._id)).not.toContain(meeting)
  })

  it("an app spanning two projects cannot use the partner routes (403 SV003)", async () => {
    for (const r of specRoutes().filter((x) => x.name.startsWith("member") || x.name === "credentials")) {
      const res = await send(r, w.tokens.multi)
      expect([res.status, res.body?.code], r.path).toEqual([403, "SV003"])
    }
  })

  it("a delegated member without rights cannot change another member's booking, nor use partner routes", async () => {
    const before = await snapshot()
    for (const r of specRoutes().filter((x) => x.write && x.name !== "create")) {
      const res = await send(r, w.tokens.bob)
      expect([403], `${r.method} ${r.path}: ${JSON.stringify(res.body)}`).toContain(res.status)
    }
    for (const wrongPin of ["000000", "", alicePin.split("").reverse().join("") === alicePin ? "999999x" : alicePin.split("").reverse().join("")]) {
      const res = await h.request("POST", `/meetings/${meeting}/cancel`, { token: w.tokens.bob, body: { pinCode: wrongPin } })
      expect(res.status, `wrong pin ${wrongPin}`).toBe(403)
    }
    const detail = await h.request("GET", `/meetings/${meeting}`, { token: w.tokens.bob })
    expect(detail.status).toBe(200)
    expect(detail.body.data.pinCode, "the PIN is shown only to the organizer").toBeUndefined()
    expect(await snapshot()).toEqual(before)
  })

  it("mass assignment: status, organizer, price, projectId, _id and friends in bodies have no effect", async () => {
    const hostile = {
      status: "checked-in", organizer: { userId: w.ids.projects.hq.users.carol, email: "carol@hq.example", name: "Carol" },
      organizerUserId: w.ids.projects.hq.users.carol, price: { subtotal: 0, total: 0, discounts: [] }, projectId: w.far.id,
      _id: "0123456789abcdef01234567", id: "0123456789abcdef01234567", pinCode: "000000", createdByAppId: w.ids.apps.other,
      checkIns: [{ userId: "x", at: 0 }], histories: [], payment: { paymentId: "p" },
    }
    const created = await h.request("POST", "/meetings", {
      token: w.tokens.bob,
      body: { ...hostile, meetingRoomId: w.hq.rooms.paid, title: "mass", startDateTime: at(300), endDateTime: at(360) },
    })
    expect(created.status).toBe(201)
    const id = created.body.data._id
    expect(id).not.toBe(hostile._id)
    const [row] = await execute<any>(db(), sql`select status, organizer_user_id, project_id, created_by_app_id, pin_code, price, check_ins from bookings where id = ${id}`)
    expect(row.status).toBe("unpaid")
    expect(row.organizer_user_id).toBe(w.ids.projects.hq.users.bob)
    expect(row.project_id).toBe(w.hq.id)
    expect(row.created_by_app_id).toBe(w.ids.apps.app)
    expect(row.price.total, "the price is the room's, not the body's").toBeGreaterThan(0)
    expect(row.check_ins).toEqual([])
    expect((await execute(db(), sql`select 1 from bookings where id = ${hostile._id}`)).length).toBe(0)

    const patched = await h.request("PATCH", `/meetings/${meeting}`, {
      token: w.tokens.alice,
      body: { ...hostile, meetingRoomId: w.hq.rooms.r3, title: "renamed" },
    })
    expect(patched.status).toBe(200)
    const [m] = await execute<any>(db(), sql`select status, asset_id, organizer_user_id, project_id, pin_code from bookings where id = ${meeting}`)
    expect(m).toEqual({ status: "active", asset_id: w.hq.rooms.r1, organizer_user_id: w.ids.projects.hq.users.alice, project_id: w.hq.id, pin_code: alicePin })

    const member = await h.request("PUT", "/partner/members/ext-alice", {
      token: w.tokens.app,
      body: { firstName: "Alice", lastName: "Ng", status: "deactivated", memberId: "0123456789abcdef01234567", projectId: w.far.id, source: "federated", userType: "visitor", accessGroupIds: [] },
    })
    expect(member.status).toBe(200)
    const read = await h.request("GET", "/partner/members/ext-alice", { token: w.tokens.app })
    // alice came from the manifest: a resolved member keeps its source (spec rule 7).
    expect(read.body.data).toMatchObject({ status: "active", projectId: w.hq.id, source: "manifest", userType: "member" })
    expect(read.body.data.memberId).not.toBe("0123456789abcdef01234567")
    expect(read.body.data.accessGroupIds.length).toBeGreaterThan(0)
  })

  it("the database is consistent after the matrix", async () => {
    expect(await runWitnesses(db())).toEqual({})
  })
})
