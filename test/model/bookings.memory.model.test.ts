import fc from "fast-check"
import { describe, it } from "vitest"
import { bookingsProperty } from "./booking-model.ts"
import { memoryDriver } from "./memory-driver.ts"

describe("Bookings use case, model-based, memory stores", () => {
  it(
    "no two live bookings of one room overlap, terminal states never change, every outcome is the model's (1,000 random sequences)",
    async () => {
      await fc.assert(bookingsProperty(memoryDriver), { numRuns: Number(process.env.KEYSPACE_MODEL_RUNS ?? 1000) })
    },
    // 1,000 sequences take 15-40 s on the shared 2-core box (one runtime per sequence).
    180_000,
  )
})
