import { Effect } from "effect"
import { describe, expect, it } from "vitest"
import { Meetings } from "../../core/booking/meeting-queries.ts"
import { SLOT, T0 } from "./booking-model.ts"
import { MEMORY_WORLD, memoryRuntime } from "./memory-driver.ts"

describe("memory profile", () => {
  it("the read side (Meetings.get) sees what the Bookings use case wrote", async () => {
    const { driver, runtime } = await memoryRuntime()
    try {
      const { outcome, id } = await driver.create(0, 0, T0 + SLOT, T0 + 3 * SLOT)
      expect(outcome).toBe("Success")
      expect(await driver.act(id!, "Cancel", "organizer")).toBe("Success")
      const principal = {
        appId: MEMORY_WORLD.app,
        appKey: "model",
        grant: "act_as" as const,
        projectIds: [MEMORY_WORLD.project],
        subjectUserId: MEMORY_WORLD.organizers[0]!,
      }
      const shown = await runtime.runPromise(Effect.flatMap(Effect.service(Meetings), (m) => m.get(principal, id!)))
      expect(shown.slot.status).toBe("cancelled")
      expect(shown.histories.map((h) => h.action)).toEqual(["create", "cancel"])
    } finally {
      await driver.dispose()
    }
  })
})
