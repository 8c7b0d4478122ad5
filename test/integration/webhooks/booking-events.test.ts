import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { recordBookingEvents } from "../../../adapters/postgres/outbox.ts"
import { verifyDelivery } from "../../../clients/typescript/src/webhooks.ts"
import type { Manifest } from "../../../core/tenancy/manifest.ts"
import { ENGINES } from "../../support/databases.ts"
import { startHarness, type Harness } from "../../support/harness.ts"
import { SECRET, clockNow, eventually } from "./fixtures.ts"
import { startReceiver, type Receiver } from "./receiver.ts"

/** Local time of Monday 2030-01-07 (+07:00) plus `day` days; the harness clock starts 09:00. */
const local = (hhmm: string, day = 0) => {
  const d = new Date(Date.UTC(2030, 0, 7 + day))
  return `${d.toISOString().slice(0, 10)}T${hhmm}:00+07:00`
}

const ALL_BOOKING_TYPES = ["BOOK", "MODIFY", "CANCEL", "REMINDER", "NO_SHOW_WARNING", "ENDING_SOON"].flatMap((k) => [
  `ROOM_${k}`,
  `DESK_${k}`,
])

const everyDay = {
  dayConfig: Object.fromEntries(
    ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"].map((d) => [d, { availableTime: { start: "00:00:00", end: "23:59:00" } }]),
  ),
}

const manifest = (url: string): Manifest =>
  ({
    projects: [
      {
        key: "wh-bookings",
        name: "Webhook Tower",
        timezone: "Asia/Bangkok",
        zones: [{ key: "a", name: "Tower A", floors: [{ key: "a-7", name: "Floor 7" }] }],
        rooms: [{ key: "lotus", name: "Lotus", zone: "a", floor: "a-7", capacity: 8, config: everyDay }],
        desks: [{ key: "d12", name: "Desk 12", index: 12, zone: "a", floor: "a-7", capacity: 1, config: everyDay }],
        users: [
          { key: "alice", firstName: "Alice", lastName: "Ng", email: "alice@wh.example", role: "member",
            links: [{ app: "wh-app", externalUserId: "wh-alice" }] },
          { key: "bob", firstName: "Bob", lastName: "Lee", email: "bob@wh.example", role: "member" },
        ],
        webhooks: [{ key: "all", url, secret: SECRET, events: ALL_BOOKING_TYPES, auth: { scheme: "signature-only" } }],
      },
    ],
    apps: [{ key: "wh-app", appId: "wh-app", appSecret: "wh-app-secret-1", projects: ["wh-bookings"], canActAs: true }],
  }) as Manifest

describe.each(ENGINES)("booking events on %s", (engine) => {
  let h: Harness
  let rx: Receiver
  let ids: any
  /** A fresh act_as token (they expire on the service clock). */
  const alice = async () => {
    const res = await h.request("POST", "/auth/accessToken", {
      body: { grant_type: "act_as", app_id: "wh-app", app_secret: "wh-app-secret-1", subject: "wh-alice" },
    })
    return res.body.access_token as string
  }
  beforeAll(async () => {
    h = await startHarness(engine, { KEYSPACE_ALLOW_INSECURE_WEBHOOKS: "1" })
    rx = await startReceiver()
    ids = (await h.applyManifest(manifest(rx.url))).projects["wh-bookings"]
  })
  afterAll(async () => {
    await rx?.close()
    await h?.close()
  })

  /** The next delivery of `type` after `from` (index into rx.received). */
  const next = async (type: string, from = 0) =>
    eventually(() => {
      const r = rx.received.slice(from).find((x) => x.body?.type === type)
      if (!r) throw new Error(`no ${type} yet; got ${rx.received.slice(from).map((x) => x.body?.type).join(", ")}`)
      return r
    })

  const base = (at: string) => ({ projectId: ids.id, userId: ids.users.alice, timestamp: at })

  it("a room booking's BOOK, MODIFY and user CANCEL carry exactly the spec's fields", async () => {
    const from = rx.received.length
    const created = await h.request("POST", "/meetings", {
      token: await alice(),
      body: {
        meetingRoomId: ids.rooms.lotus,
        title: "Planning",
        startDateTime: local("10:00"),
        endDateTime: local("11:00"),
        attendees: [{ email: "bob@wh.example" }],
      },
    })
    expect(created.status, JSON.stringify(created.body)).toBeLessThan(300)
    const meetingId = created.body.data._id

    const book = await next("ROOM_BOOK", from)
    const now = await clockNow(h)
    const v = await verifyDelivery({ secret: SECRET, headers: book.headers as never, rawBody: book.rawBody, now })
    expect(v.ok).toBe(true)
    expect(book.body).toMatchObject({ type: "ROOM_BOOK", version: 1, projectId: ids.id, occurredAt: new Date(now).toISOString() })
    expect(book.body.data).toEqual({
      ...base(book.body.occurredAt),
      roomName: "Lotus",
      floorName: "Floor 7",
      bookingDate: "2030-01-07T10:00:00+07:00",
      startTime: "10:00",
      endTime: "11:00",
      attendees: [expect.any(String)],
      userName: expect.any(String),
      userEmail: "alice@wh.example",
    })
    expect(book.rawBody).not.toMatch(/pinCode/i)

    const patched = await h.request("PATCH", `/meetings/${meetingId}`, {
      token: await alice(),
      body: { startDateTime: local("10:30"), endDateTime: local("11:30") },
    })
    expect(patched.status, JSON.stringify(patched.body)).toBe(200)
    const modify = await next("ROOM_MODIFY", from)
    expect(modify.body.data).toEqual({
      ...base(modify.body.occurredAt),
      roomName: "Lotus",
      floorName: "Floor 7",
      oldStartTime: "10:00",
      oldEndTime: "11:00",
      newStartTime: "10:30",
      newEndTime: "11:30",
      userName: expect.any(String),
    })

    const cancelled = await h.request("POST", `/meetings/${meetingId}/cancel`, { token: await alice(), body: {} })
    expect(cancelled.status, JSON.stringify(cancelled.body)).toBe(202)
    const cancel = await next("ROOM_CANCEL", from)
    expect(cancel.body.data).toEqual({
      ...base(cancel.body.occurredAt),
      roomName: "Lotus",
      floorName: "Floor 7",
      bookingDate: "2030-01-07T10:30:00+07:00",
      userName: expect.any(String),
    })
    const all = rx.received.slice(from)
    expect(new Set(all.map((r) => r.body.id)).size).toBe(all.length)
  })

  it("a desk booking is DESK_* with deskName and never roomName", async () => {
    const from = rx.received.length
    const desk = await h.request("POST", "/meetings", {
      token: await alice(),
      body: { deskId: ids.desks.d12, title: "Desk", startDateTime: local("09:00", 1), endDateTime: local("12:00", 1) },
    })
    expect(desk.status, JSON.stringify(desk.body)).toBeLessThan(300)
    const deskBook = await next("DESK_BOOK", from)
    expect(deskBook.body.data).toEqual({
      ...base(deskBook.body.occurredAt),
      deskName: "Desk 12",
      floorName: "Floor 7",
      bookingDate: "2030-01-08T09:00:00+07:00",
      startTime: "09:00",
      endTime: "12:00",
      userName: expect.any(String),
      userEmail: "alice@wh.example",
    })
  })

  it("lifecycle events in the outbox (REMINDER, NO_SHOW_WARNING, ENDING_SOON, auto CANCEL) are delivered before the clock advance answers", async () => {
    const created = await h.request("POST", "/meetings", {
      token: await alice(),
      body: { meetingRoomId: ids.rooms.lotus, title: "Ticks", startDateTime: local("16:00", 2), endDateTime: local("17:00", 2) },
    })
    expect(created.status, JSON.stringify(created.body)).toBeLessThan(300)
    const bookingId = created.body.data._id
    const from = rx.received.length
    const at = Date.parse(local("15:45", 2))
    // What the lifecycle scheduler writes when its ticks fire (same function, same transaction rule).
    await h.booted.services.database.db.transaction((tx) =>
      recordBookingEvents(tx, h.booted.services.newId, { projectId: ids.id, bookingId, assetKind: "room" }, [
        { kind: "REMINDER", bookingId, at, minutesUntilStart: 15 },
        { kind: "NO_SHOW_WARNING", bookingId, at: at + 25 * 60_000, minutesUntilAutoCancel: 5 },
        { kind: "ENDING_SOON", bookingId, at: at + 60 * 60_000, minutesUntilEnd: 15 },
        { kind: "CANCEL", bookingId, at: at + 30 * 60_000, reason: "no-show" },
      ]),
    )
    await h.advance(0)
    // The booking's own ROOM_BOOK may arrive in this window too; it is not what this test is about.
    const got = rx.received.slice(from).filter((r) => r.body.type !== "ROOM_BOOK")
    expect(got.map((r) => r.body.type).sort()).toEqual(["ROOM_CANCEL", "ROOM_ENDING_SOON", "ROOM_NO_SHOW_WARNING", "ROOM_REMINDER"])
    const byType = Object.fromEntries(got.map((r) => [r.body.type, r.body]))
    const located = { roomName: "Lotus", floorName: "Floor 7", userName: expect.any(String) }
    expect(byType.ROOM_REMINDER.occurredAt).toBe(new Date(at).toISOString())
    expect(byType.ROOM_REMINDER.data).toEqual({
      ...base(new Date(at).toISOString()), ...located,
      startTime: "16:00", endTime: "17:00", minutesUntilStart: 15, userEmail: "alice@wh.example",
    })
    expect(byType.ROOM_NO_SHOW_WARNING.data).toEqual({
      ...base(byType.ROOM_NO_SHOW_WARNING.occurredAt), ...located,
      startTime: "16:00", endTime: "17:00", minutesUntilAutoCancel: 5,
    })
    expect(byType.ROOM_ENDING_SOON.data).toEqual({
      ...base(byType.ROOM_ENDING_SOON.occurredAt), ...located, endTime: "17:00", minutesUntilEnd: 15,
    })
    expect(byType.ROOM_CANCEL.data).toEqual({
      ...base(byType.ROOM_CANCEL.occurredAt), ...located,
      bookingDate: "2030-01-09T16:00:00+07:00",
      cancelReason: "No-show \u2014 auto-cancelled by system",
    })
  })

  it("REMINDER, NO_SHOW_WARNING and no-show CANCEL fired by the lifecycle scheduler are delivered before each clock advance answers", async () => {
    const created = await h.request("POST", "/meetings", {
      token: await alice(),
      body: { meetingRoomId: ids.rooms.lotus, title: "Chain", startDateTime: local("10:00", 3), endDateTime: local("11:00", 3) },
    })
    expect(created.status, JSON.stringify(created.body)).toBeLessThan(300)
    const from = rx.received.length
    await h.admin("POST", "/clock/advance", { to: local("09:45", 3) })
    // Earlier tests' bookings fire their own ticks on this advance too: pick this one's.
    const reminder = rx.received
      .slice(from)
      .find((r) => r.body?.type === "ROOM_REMINDER" && r.body.data.startTime === "10:00")
    expect(reminder, JSON.stringify(rx.received.slice(from).map((r) => [r.body.type, r.body.data]))).toBeDefined()
    expect(reminder!.body.data).toEqual({
      ...base(reminder!.body.occurredAt),
      roomName: "Lotus",
      floorName: "Floor 7",
      startTime: "10:00",
      endTime: "11:00",
      minutesUntilStart: 15,
      userName: expect.any(String),
      userEmail: "alice@wh.example",
    })
    expect(reminder!.body.occurredAt).toBe(new Date(Date.parse(local("09:45", 3))).toISOString())

    // Nobody checks in: the warning, then the no-show cancel, each delivered within its advance.
    let mark = rx.received.length
    await h.admin("POST", "/clock/advance", { to: local("10:10", 3) })
    const warning = rx.received.slice(mark).find((r) => r.body?.type === "ROOM_NO_SHOW_WARNING" && r.body.data.startTime === "10:00")
    expect(warning?.body.data).toMatchObject({ minutesUntilAutoCancel: 5, endTime: "11:00" })
    mark = rx.received.length
    await h.admin("POST", "/clock/advance", { to: local("10:15", 3) })
    const cancel = rx.received.slice(mark).find((r) => r.body?.type === "ROOM_CANCEL")
    expect(cancel?.body.data).toMatchObject({
      bookingDate: "2030-01-10T10:00:00+07:00",
      cancelReason: "No-show \u2014 auto-cancelled by system",
    })
  })

  it("an event with no subscribed registration creates no delivery and leaves no backlog", async () => {
    const { webhookOutboxQueueTable } = await import("../../../adapters/postgres/schema.ts")
    await h.advance(0)
    expect(await h.booted.services.database.db.select().from(webhookOutboxQueueTable)).toEqual([])
  })
})
