import fc from "fast-check"
import { describe, it } from "vitest"
import { lifecycleProperty } from "./booking-lifecycle-model.ts"

describe("booking store model (fc.commands + fc.modelRun)", () => {
  it("no two live bookings of one asset overlap, terminal states never change, rejected commands change nothing (1,000 random sequences)", () => {
    fc.assert(lifecycleProperty(), { numRuns: 1000 })
  })
})
