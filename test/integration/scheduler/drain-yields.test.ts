import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { makeEmbeddedScheduler } from "../../../adapters/scheduler/embedded.ts"
import { applyTickFor } from "../../../adapters/wiring/layers/lifecycle.ts"
import { startHarness, type Harness } from "../../support/harness.ts"
import { local, setUpSchedulerWorld, type SchedulerWorld, TICKS_OFF } from "./scheduler-fixtures.ts"
import { seedWorldBookings } from "./seed-bookings.ts"


/**
 * A clock advance over many due ticks on the embedded database (PGlite runs in the server's own
 * thread, so its queries never wait for I/O) gives the event loop a turn between batches: the
 * server answers `/healthz` and takes a SIGTERM meanwhile (a crash probe saw a 126 s advance
 * hold a `/healthz` for 113 s, and a stop wait for all of it).
 */
describe("a long drain on PGlite", () => {
  let h: Harness
  let w: SchedulerWorld
  beforeAll(async () => {
    h = await startHarness("pglite", {}, { background: false })
    w = await setUpSchedulerWorld(h, { rooms: 20, meetingConfig: TICKS_OFF })
  }, 120_000)
  afterAll(async () => h?.close())

  it("gives the event loop a turn between batches", async () => {
    const seeded = await seedWorldBookings(h, w, { perRoom: 10, firstStart: Date.parse(local("10:00")), durationMin: 10, meetingConfig: TICKS_OFF })
    expect(seeded).toBe(200)
    const scheduler = makeEmbeddedScheduler(h.booted.services, applyTickFor(h.booted.services))
    let turns = 0
    const timer = setInterval(() => turns++, 0)
    let turnsWhileDraining = 0
    await scheduler.drainUntil(Date.parse(local("23:00"))).then(() => (turnsWhileDraining = turns))
    clearInterval(timer)
    // 200 end ticks in batches of 16: a turn after each batch.
    expect(turnsWhileDraining).toBeGreaterThanOrEqual(10)
  }, 60_000)
})
