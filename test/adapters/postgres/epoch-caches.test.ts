import { describe, expect, it } from "vitest"
import { makeEpochCaches } from "../../../adapters/postgres/cache-epoch.ts"

/** A cache-epoch reader whose counter the test moves (as a commit elsewhere would). */
const counter = () => {
  const state = { epoch: 1n }
  return { state, caches: makeEpochCaches(async () => ({ epoch: state.epoch, snapshot: String(state.epoch) })) }
}

describe("caches emptied whenever the cache epoch moves", () => {
  it("a value read before the counter moved is not kept under the new counter (several keys read at once)", async () => {
    const { state, caches } = counter()
    const projects = caches.cache<string, string>("projects", { max: 10 })
    await caches.sync()
    const readUnder = caches.epoch()
    // Read now; meanwhile a commit elsewhere moves the counter and a sync learns it.
    state.epoch = 2n
    await caches.sync()
    projects.keep("p1", "read before the move", readUnder)
    expect(projects.get("p1")).toBeUndefined()
    projects.keep("p1", "read after the move", caches.epoch())
    expect(projects.get("p1")).toBe("read after the move")
  })
})
