import fc from "fast-check"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { startHarness, type Harness } from "../support/harness.ts"
import { bookingsProperty, SLOT, T0 } from "./booking-model.ts"
import { modelWorld, postgresDriver } from "./postgres-driver.ts"
import type { ModelWorld } from "./use-case-driver.ts"

const RUNS = Number(process.env.KEYSPACE_MODEL_RUNS ?? 25)

describe("Bookings use case, model-based, PostgreSQL stores", () => {
  let h: Harness
  let world: ModelWorld
  beforeAll(async () => {
    h = await startHarness("postgres", {}, { background: false })
    world = await modelWorld(h)
  }, 60_000)
  afterAll(() => h?.close())

  it(
    "the same commands as on the memory stores agree with the model (KEYSPACE_MODEL_RUNS sequences)",
    async () => {
      await fc.assert(bookingsProperty(postgresDriver(h, world)), { numRuns: RUNS })
    },
    300_000,
  )

  it("two creates racing for one slot: exactly one is created, the other is SlotTaken", async () => {
    const driver = await postgresDriver(h, world)()
    try {
      for (let i = 0; i < 5; i++) {
        const start = T0 + (i + 1) * 4 * SLOT
        const outcomes = await Promise.all([
          driver.create(0, 0, start, start + 2 * SLOT),
          driver.create(1, 0, start + SLOT, start + 3 * SLOT),
        ])
        expect(outcomes.map((o) => o.outcome).sort()).toEqual(["SlotTaken", "Success"])
      }
    } finally {
      await driver.dispose()
    }
  }, 60_000)
})
