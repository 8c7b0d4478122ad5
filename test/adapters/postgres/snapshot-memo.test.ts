import { describe, expect, it } from "vitest"
import { makeEpochCaches } from "../../../adapters/postgres/cache-epoch.ts"

/** A cache-epoch reader whose snapshot the test moves, counting the reads it answers. */
const reader = () => {
  const state = { snapshot: "1:1:", reads: 0 }
  return { state, read: async () => ({ epoch: 1n, snapshot: (state.reads++, state.snapshot) }) }
}

describe("answers kept by database snapshot (SnapshotMemo)", () => {
  it("an answer is reused while a later sync reads the same snapshot, and read again once anything committed", async () => {
    const { state, read } = reader()
    const memo = makeEpochCaches(read).bySnapshot<number>("t", 4)
    let loads = 0
    const load = async () => ++loads
    expect(await memo.get("k", load)).toBe(1)
    expect(await memo.get("k", load)).toBe(1)
    state.snapshot = "1:2:"
    expect(await memo.get("k", load)).toBe(2)
    expect(state.reads).toBe(3)
  })

  it("a request that arrived before the last sync was sent needs no sync of its own; one that arrived after it does", async () => {
    const { state, read } = reader()
    const caches = makeEpochCaches(read)
    const memo = caches.bySnapshot<number>("t", 4)
    const arrived = performance.now()
    await caches.sync() // the bearer check's sync, sent after the request arrived
    let loads = 0
    expect(await memo.get("k", async () => ++loads, arrived)).toBe(1)
    expect(state.reads).toBe(1)
    // Committed elsewhere; a request arriving now must not get the kept answer.
    state.snapshot = "1:2:"
    expect(await memo.get("k", async () => ++loads, performance.now())).toBe(2)
    expect(state.reads).toBe(2)
  })

  it("a request joins a cache-epoch read in flight that was sent after it arrived, and waits for the next one otherwise", async () => {
    let release: () => void = () => {}
    let reads = 0
    const caches = makeEpochCaches(() => {
      reads++
      return new Promise((resolve) => (release = () => resolve({ epoch: 1n, snapshot: `s${reads}` })))
    })
    const early = performance.now()
    const first = caches.sync()
    const joined = caches.sync(early)
    const late = caches.sync(performance.now())
    release()
    await Promise.all([first, joined])
    expect(reads).toBe(2) // the late caller's own read started after the first ended
    release()
    await late
    expect(caches.snapshot()).toBe("s2")
  })

  it("a completed read sent after the request arrived serves it, though a newer read is in flight", async () => {
    let release: () => void = () => {}
    let reads = 0
    const caches = makeEpochCaches(() => {
      reads++
      return new Promise((resolve) => (release = () => resolve({ epoch: 1n, snapshot: `s${reads}` })))
    })
    const arrived = performance.now()
    const first = caches.sync()
    release()
    await first
    const newer = caches.sync(performance.now())
    expect(reads).toBe(2)
    await caches.sync(arrived) // resolves with the newer read still unanswered
    expect(caches.snapshot()).toBe("s1")
    release()
    await newer
    expect(caches.snapshot()).toBe("s2")
  })

  it("a kept answer is handed over without waiting only when a sync sent after the request arrived read its snapshot", async () => {
    const { state, read } = reader()
    const caches = makeEpochCaches(read)
    const memo = caches.bySnapshot<number>("t", 4)
    const arrived = performance.now()
    expect(memo.settled("k", arrived)).toBeUndefined()
    expect(await memo.get("k", async () => 7, arrived)).toBe(7)
    expect(memo.settled("k", arrived)).toEqual({ value: 7 })
    expect(memo.settled("k", performance.now())).toBeUndefined()
    state.snapshot = "1:2:"
    await caches.sync()
    expect(memo.settled("k", arrived)).toBeUndefined()
  })

  it("a failed read is not kept", async () => {
    const { read } = reader()
    const memo = makeEpochCaches(read).bySnapshot<number>("t", 4)
    await expect(memo.get("k", () => Promise.reject(new Error("down")))).rejects.toThrow("down")
    expect(await memo.get("k", async () => 7)).toBe(7)
  })
})
