import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { ADMIN_TOKEN, CLOCK_START, startHarness, type Harness } from "../support/harness.ts"
import { formatAt } from "../fuzz/request-arbitraries.ts"
import { runWitnesses, setUpFuzzWorld, type FuzzWorld } from "../fuzz/fuzz-world.ts"

/**
 * Regression, found by the crash test: concurrent creates of overlapping (not equal) slots
 * can deadlock inside the exclusion-constraint check; PostgreSQL aborts one with 40P01, which
 * answered 500 SV004. It must be 409 SV012 like any other lost race.
 */
describe("overlapping concurrent creates on PostgreSQL", () => {
  let h: Harness
  let w: FuzzWorld
  beforeAll(async () => {
    h = await startHarness("postgres")
    w = await setUpFuzzWorld(h.request, ADMIN_TOKEN)
  })
  afterAll(async () => h?.close())

  it("overlapping concurrent creates answer 201 or 409 SV012, never 500 (exclusion-check deadlock)", { timeout: 60_000 }, async () => {
    const start = Date.parse(CLOCK_START)
    for (let round = 0; round < 6; round++) {
      const base = start + (60 + round * 300) * 60_000
      const results = await Promise.all(
        Array.from({ length: 24 }, (_, i) => {
          const s = base + ((i * 7) % 60) * 60_000
          return h.request("POST", "/meetings", {
            token: w.tokens.app,
            body: { meetingRoomId: w.hq.rooms.r1, title: `race ${round}/${i}`, startDateTime: formatAt(s, 420), endDateTime: formatAt(s + 45 * 60_000, 420) },
          })
        }),
      )
      for (const r of results) expect([201, 409], JSON.stringify(r.body)).toContain(r.status)
      for (const r of results.filter((x) => x.status === 409)) expect(r.body.code).toBe("SV012")
    }
    expect(await runWitnesses(h.booted.services.database.db)).toEqual({})
  })
})
