import { sql } from "drizzle-orm"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { execute } from "../../../adapters/postgres/database.ts"
import { CLOCK_CHANNEL } from "../../../adapters/postgres/shared-clock.ts"
import { boot, type Booted } from "../../../adapters/wiring/boot.ts"
import { ADMIN_TOKEN, CLOCK_START, startHarness, type Harness } from "../../support/harness.ts"
import { local, setUpSchedulerWorld, type SchedulerWorld } from "../scheduler/scheduler-fixtures.ts"
import { seedBookings } from "../scheduler/seed-bookings.ts"
import { eventually } from "../webhooks/fixtures.ts"

const DISABLED = { preStartMinutes: -1, postStartWarnMinutes: -1, postStartExpireMinutes: -1, preEndMinutes: -1 }

/**
 * docs/deployment.md: ticks an advance made due are applied by the advancing process, and by
 * every other process as soon as it sees the clock move. A process that moved the clock and
 * stopped before applying them (a crash mid-advance) no longer leaves them waiting for the
 * next advance (found by a crash probe: bookings stayed active a day past their end).
 */
describe("another process's clock move, on PostgreSQL", () => {
  let a: Harness
  let b: Booted
  let w: SchedulerWorld
  beforeAll(async () => {
    a = await startHarness("postgres", {}, { background: false })
    w = await setUpSchedulerWorld(a, { rooms: 20, meetingConfig: DISABLED })
    b = await boot(
      {
        DATABASE_URL: a.booted.services.config.databaseUrl,
        KEYSPACE_SEED: "none",
        KEYSPACE_CLOCK: "manual",
        KEYSPACE_CLOCK_START: CLOCK_START,
        KEYSPACE_ADMIN_TOKEN: ADMIN_TOKEN,
        KEYSPACE_LOG_LEVEL: "silent",
      },
      { print: () => {} },
    )
  }, 120_000)
  afterAll(async () => {
    await b?.close()
    await a?.close()
  })

  it("a process that sees the clock moved by another applies the ticks the move made due", async () => {
    const db = a.booted.services.database.db
    const seeded = await seedBookings(db, {
      projectId: w.ids.id,
      appRowId: w.app,
      roomIds: Array.from({ length: 20 }, (_, i) => w.ids.rooms[`r${i}`] as string),
      createdAt: Date.parse(CLOCK_START),
      perRoom: 2,
      firstStart: Date.parse(local("10:00")),
      durationMin: 10,
      meetingConfig: DISABLED,
    })
    expect(seeded).toBe(40)
    // What an advancing process does before it applies anything: the row moved, the NOTIFY sent.
    const to = Date.parse(local("12:00"))
    await db.transaction(async (tx) => {
      await tx.execute(sql`update service_clock set now_ms = ${to} where id = 1`)
      await tx.execute(sql`select pg_notify(${CLOCK_CHANNEL}, ${String(to)})`)
    })
    await eventually(async () => {
      const [row] = await execute<{ done: number }>(db, sql`select count(*)::int as done from bookings where status = 'done' and title = 'Load'`)
      expect(row!.done).toBe(40)
    }, 30_000)
  }, 60_000)
})
