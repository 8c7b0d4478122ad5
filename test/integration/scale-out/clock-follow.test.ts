import { sql } from "drizzle-orm"
import postgres from "postgres"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { execute } from "../../../adapters/postgres/database.ts"
import { ADVANCE_LOCK_KEYS, CLOCK_CHANNEL } from "../../../adapters/postgres/shared-clock.ts"
import type { Booted } from "../../../adapters/wiring/boot.ts"
import { bootBeside, startHarness, type Harness } from "../../support/harness.ts"
import { local, setUpSchedulerWorld, type SchedulerWorld, TICKS_OFF } from "../scheduler/scheduler-fixtures.ts"
import { seedWorldBookings } from "../scheduler/seed-bookings.ts"
import { eventually } from "../webhooks/fixtures.ts"


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
    w = await setUpSchedulerWorld(a, { rooms: 20, meetingConfig: TICKS_OFF })
    b = await bootBeside(a)
  }, 120_000)
  afterAll(async () => {
    await b?.close()
    await a?.close()
  })

  it("a process that sees the clock moved by another applies the ticks the move made due once the advance is over, or its process died", async () => {
    const db = a.booted.services.database.db
    const seeded = await seedWorldBookings(a, w, { perRoom: 2, firstStart: Date.parse(local("10:00")), durationMin: 10, meetingConfig: TICKS_OFF })
    expect(seeded).toBe(40)
    // An advancing process: it holds the advance lock, moves the row and NOTIFYs, then dies
    // before applying anything (its session ends, which frees the lock).
    const to = Date.parse(local("12:00"))
    const advancer = postgres(a.booted.services.config.databaseUrl!, { max: 1, onnotice: () => {} })
    const [clockLocks, advance] = ADVANCE_LOCK_KEYS
    await advancer`select pg_advisory_lock(${clockLocks}::int, ${advance}::int)`
    await advancer.begin(async (tx) => {
      await tx`update service_clock set now_ms = ${to} where id = 1`
      await tx`select pg_notify(${CLOCK_CHANNEL}, ${String(to)})`
    })
    const done = async () =>
      (await execute<{ done: number }>(db, sql`select count(*)::int as done from bookings where status = 'done' and title = 'Load'`))[0]!.done
    // While the advance is under way the other process leaves its ticks to it (the advance's order).
    await new Promise((resolve) => setTimeout(resolve, 1_500))
    expect(await done()).toBe(0)
    await advancer.end()
    await eventually(async () => expect(await done()).toBe(40), 30_000)
  }, 60_000)
})
