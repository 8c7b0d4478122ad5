import { sql } from "drizzle-orm"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { execute } from "../../../adapters/postgres/database.ts"
import { ENGINES } from "../../support/databases.ts"
import { startHarness, type Harness } from "../../support/harness.ts"
import { actAsToken, at, bookRoom, setUpWorld, type BookingWorld } from "./booking-fixtures.ts"

describe.each(ENGINES)("no double booking by construction on %s", (engine) => {
  let h: Harness
  let w: BookingWorld
  beforeAll(async () => {
    h = await startHarness(engine)
    w = await setUpWorld(h)
  })
  afterAll(async () => h?.close())

  it("100 concurrent POST /meetings for one room and slot give exactly one 201 and 99 409 SV012", async () => {
    const tokens = [w.app, w.alice, w.bob, w.carol]
    const results = await Promise.all(
      Array.from({ length: 100 }, (_, i) =>
        bookRoom(h, tokens[i % tokens.length]!, w.hq.rooms.race, 1, "10:00", "11:00", { title: `race ${i}` }),
      ),
    )
    const statuses = results.map((r) => r.status)
    expect(statuses.filter((s) => s === 201)).toHaveLength(1)
    expect(statuses.filter((s) => s === 409)).toHaveLength(99)
    for (const r of results.filter((x) => x.status === 409)) expect(r.body.code).toBe("SV012")
    const [row] = await execute<{ n: number }>(
      h.booted.services.database.db,
      sql`select count(*)::int as n from booking_slots where asset_id = ${w.hq.rooms.race}`,
    )
    expect(row!.n).toBe(1)
  })

  it("concurrent overlapping moves by PATCH leave at most one booking in the contested slot", async () => {
    const a = (await bookRoom(h, w.alice, w.hq.rooms.race, 2, "09:00", "10:00")).body.data
    const b = (await bookRoom(h, w.bob, w.hq.rooms.race, 2, "11:00", "12:00")).body.data
    const [ra, rb] = await Promise.all([
      h.request("PATCH", `/meetings/${a._id}`, { token: w.alice, body: { startDateTime: at(2, "10:00"), endDateTime: at(2, "11:00") } }),
      h.request("PATCH", `/meetings/${b._id}`, { token: w.bob, body: { startDateTime: at(2, "10:30"), endDateTime: at(2, "11:30") } }),
    ])
    expect([ra.status, rb.status].sort()).toEqual([200, 409])
  })

  it("the database refuses an overlapping live slot even when written directly", async () => {
    const [slot] = await execute<{ booking_id: string }>(
      h.booted.services.database.db,
      sql`select booking_id from booking_slots where asset_id = ${w.hq.rooms.race} and status = 'active' limit 1`,
    )
    const insert = h.booted.services.database.db.execute(
      sql`insert into booking_slots (id, booking_id, project_id, asset_id, start_at, end_at, status, created_at, updated_at)
          values ('ffffffffffffffffffffffff', ${slot!.booking_id}, ${w.hq.id}, ${w.hq.rooms.race},
                  '2030-01-08T03:30:00Z', '2030-01-08T03:45:00Z', 'unpaid', '2030-01-07T02:00:00Z', '2030-01-07T02:00:00Z')`,
    )
    await expect(insert).rejects.toMatchObject({ cause: { code: "23P01" } })
  })

  it("concurrent cancel and check-in of one booking: exactly one wins", async () => {
    const alice = await actAsToken(h, "ext-alice")
    const m = (await bookRoom(h, alice, w.hq.rooms.orchid, 0, "09:05", "09:30")).body.data
    const [c, i] = await Promise.all([
      h.request("POST", `/meetings/${m._id}/cancel`, { token: alice }),
      h.request("POST", `/meetings/${m._id}/check-in`, { token: alice }),
    ])
    expect([c.status, i.status].sort()).toEqual([202, 409])
  })
})
