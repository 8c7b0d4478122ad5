import { sql } from "drizzle-orm"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { execute, wakeAfterCommit } from "../../../adapters/postgres/database.ts"
import { TICKS_CHANNEL } from "../../../adapters/postgres/tick-store.ts"
import { ENGINES } from "../../support/databases.ts"
import { startHarness, type Harness } from "../../support/harness.ts"
import { setUpSchedulerWorld, type SchedulerWorld, TICKS_OFF } from "./scheduler-fixtures.ts"
import { seedBookings } from "./seed-bookings.ts"


/**
 * On the system clock the background worker sleeps until the next due tick (no polling loop,
 * no clock advance) and applies it on time; overdue ticks found at start fire at once.
 */
describe.each(ENGINES)("embedded scheduler on the system clock (%s)", (engine) => {
  let h: Harness
  let w: SchedulerWorld
  beforeAll(async () => {
    h = await startHarness(engine, { KEYSPACE_CLOCK: "system" })
    w = await setUpSchedulerWorld(h, { rooms: 2, meetingConfig: TICKS_OFF })
  })
  afterAll(async () => h?.close())

  const statusOf = async (id: string) =>
    (await execute<{ status: string }>(h.booted.services.database.db, sql`select status from bookings where id = ${id}`))[0]!.status

  it("a tick due in a second is applied when due, without any request", async () => {
    const db = h.booted.services.database.db
    const end = Date.now() + 1500
    await seedBookings(db, {
      projectId: w.ids.id,
      appRowId: w.app,
      roomIds: [w.ids.rooms.r0],
      perRoom: 1,
      firstStart: end - 10 * 60_000,
      durationMin: 10,
      createdAt: end - 60 * 60_000,
      meetingConfig: TICKS_OFF,
      idPrefix: "d",
    })
    const [{ id }] = await execute<{ id: string }>(db, sql`select id from bookings where id like 'd%'`) as [{ id: string }]
    // Rows written behind the scheduler's back: wake it, as the tick store does after commit.
    wakeAfterCommit(db, TICKS_CHANNEL)
    expect(await statusOf(id)).toBe("active")
    let status = "active"
    for (let i = 0; i < 100 && status === "active"; i++) {
      await new Promise((r) => setTimeout(r, 50))
      status = await statusOf(id)
    }
    expect(status).toBe("done")
    const [tick] = await execute<{ lag: number }>(
      db,
      sql`select (extract(epoch from fired_at - due_at) * 1000)::float8 as lag from scheduled_ticks where booking_id = ${id}`,
    )
    // Applied at its due time or just after (never before).
    expect(tick!.lag).toBeGreaterThanOrEqual(0)
    expect(tick!.lag).toBeLessThan(3000)
  })
})
