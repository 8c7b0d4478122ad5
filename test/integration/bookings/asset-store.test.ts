import { Effect, Exit } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { deskRef, roomRef } from "../../../core/booking/asset.ts"
import { AssetStore } from "../../../core/ports/asset-store.ts"
import { ENGINES } from "../../support/databases.ts"
import { startHarness, type Harness } from "../../support/harness.ts"
import { setUpWorld, type BookingWorld } from "./booking-fixtures.ts"

describe.each(ENGINES)("AssetStore on %s", (engine) => {
  let h: Harness
  let w: BookingWorld
  beforeAll(async () => {
    h = await startHarness(engine)
    w = await setUpWorld(h)
  })
  afterAll(async () => h?.close())

  const find = (ref: Parameters<AssetStore["Service"]["find"]>[0]) =>
    h.booted.runtime.runPromiseExit(Effect.gen(function* () { return yield* (yield* AssetStore).find(ref) }))

  it("find gives the asset with its project's time zone and resolved meeting config", async () => {
    const exit = await find(roomRef(w.hq.rooms.lotus))
    expect(Exit.isSuccess(exit)).toBe(true)
    if (!Exit.isSuccess(exit)) return
    const asset = exit.value
    expect(asset).toMatchObject({ kind: "room", id: w.hq.rooms.lotus, name: "Lotus", timeZone: "Asia/Bangkok", projectId: w.hq.id })
    expect(asset.meetingConfig.preStartMinutes).toBeTypeOf("number")
    expect(asset.config?.dayConfig?.Mon?.breakTimes).toEqual([{ start: "12:00:00", end: "13:00:00" }])
  })

  it("find of an unknown id, or of a desk named as a room, fails NotFound", async () => {
    for (const ref of [roomRef("0123456789abcdef01234567"), roomRef(w.hq.desks.d1), deskRef(w.hq.rooms.lotus)]) {
      const exit = await find(ref)
      expect(Exit.isFailure(exit)).toBe(true)
      expect(JSON.stringify(exit)).toContain("NotFound")
    }
  })

  it("find answers the same cached record twice (no re-read when warm)", async () => {
    await h.booted.services.caches.sync() // what the bearer middleware does first on every request
    const a = await find(roomRef(w.hq.rooms.orchid))
    const b = await find(roomRef(w.hq.rooms.orchid))
    expect(Exit.isSuccess(a) && Exit.isSuccess(b) && a.value === b.value).toBe(true)
  })
})
