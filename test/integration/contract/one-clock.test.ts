import { sql } from "drizzle-orm"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { ENGINES } from "../../support/databases.ts"
import { CLOCK_START, startHarness, type Harness } from "../../support/harness.ts"
import { APP, at, bookRoom, setUpWorld, type BookingWorld } from "../bookings/booking-fixtures.ts"
import { applyHooks, hostCancelled } from "../webhooks/fixtures.ts"

const rowsOf = async (h: Harness, query: ReturnType<typeof sql>): Promise<any[]> => {
  const r: any = await h.booted.services.database.db.execute(query)
  return Array.isArray(r) ? r : r.rows
}

describe.each(ENGINES)("one clock on %s", (engine) => {
  let h: Harness
  let w: BookingWorld
  beforeAll(async () => {
    h = await startHarness(engine, { KEYSPACE_ALLOW_INSECURE_WEBHOOKS: "1" })
    w = await setUpWorld(h)
  })
  afterAll(async () => h?.close())

  it("every timestamp the service writes comes from the service clock, never the database's", async () => {
    // The manual clock runs in 2030, far from the machine's real clock: any database now() shows.
    const { projectId } = await applyHooks(h, "clocked", [
      { key: "ops", url: "http://127.0.0.1:9/hook", events: ["VMS_HOST_CANCELLED", "ROOM_BOOK"] },
    ])
    await h.advance(7)
    expect((await bookRoom(h, w.alice, w.hq.rooms.orchid, 1, "10:00", "11:00")).status).toBe(201)
    const paid = await bookRoom(h, w.bob, w.hq.rooms.jasmine, 1, "10:00", "11:00", { paymentChannel: "prompt-pay" })
    expect(paid.status).toBe(201)
    const series = await h.request("POST", "/meetings", {
      token: w.alice,
      body: { meetingRoomId: w.hq.rooms.series, title: "Weekly", startDateTime: at(2, "10:00"), endDateTime: at(2, "11:00"), recurrence: "FREQ=DAILY;COUNT=3" },
    })
    expect(series.status).toBe(201)
    expect((await h.request("POST", `/meetings/${series.body.data._id}/cancel`, { token: w.alice, body: {} })).status).toBe(202)
    const member = await h.request("PUT", "/partner/members/ext-clocked", { token: w.app, body: { firstName: "Ida", lastName: "Em", employeeId: "C-1" } })
    expect(member.status).toBe(200)
    const visitor = await h.admin("POST", `/projects/${projectId}/visitor-events`, {
      type: "VMS_HOST_CANCELLED",
      data: hostCancelled(projectId, CLOCK_START),
    })
    expect(visitor.status).toBe(202)
    await h.advance(3 * 24 * 60)

    const now = Date.parse((await h.admin("GET", "/clock")).body.data.now)
    const columns = await rowsOf(
      h,
      sql`select table_name, column_name from information_schema.columns
          where table_schema = 'public' and column_name in ('created_at', 'updated_at')
          order by table_name, column_name`,
    )
    expect(columns.length).toBeGreaterThan(20)
    const seen: string[] = []
    for (const { table_name, column_name } of columns) {
      const values = await rowsOf(h, sql.raw(`select "${column_name}" as v from "${table_name}"`))
      for (const { v } of values) {
        const t = new Date(v).getTime()
        expect(t, `${table_name}.${column_name} = ${new Date(v).toISOString()}`).toBeGreaterThanOrEqual(Date.parse(CLOCK_START))
        expect(t, `${table_name}.${column_name}`).toBeLessThanOrEqual(now)
      }
      if (values.length > 0) seen.push(table_name)
    }
    expect(seen).toEqual(expect.arrayContaining(["rooms", "desks", "bookings", "booking_histories", "outbox_events", "scheduled_ticks", "payments", "webhook_deliveries", "users", "tokens"]))
    // No column of the schema defaults to the database's clock any more.
    const defaults = await rowsOf(
      h,
      sql`select table_name, column_name from information_schema.columns
          where table_schema = 'public' and column_default ilike '%now()%'`,
    )
    expect(defaults).toEqual([])
  })

  it("rooms' and desks' createdAt in the API is the service clock's", async () => {
    const token = await h.tokenFor(APP.appId, APP.appSecret)
    const rooms = await h.request("GET", `/meeting-rooms?projectId=${w.hq.id}`, { token })
    const desks = await h.request("GET", `/desks?projectId=${w.hq.id}`, { token })
    expect(rooms.body.data.length + desks.body.data.length).toBeGreaterThan(5)
    for (const asset of [...rooms.body.data, ...desks.body.data]) expect(asset.createdAt).toBe(CLOCK_START)
  })
})
