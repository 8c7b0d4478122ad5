import fc from "fast-check"
import { createRequire } from "node:module"
import { dirname, join } from "node:path"
import { pathToFileURL } from "node:url"
import { describe, expect, it } from "vitest"

/*
 * postgres-js keeps its pool's connections (idle, busy, ...) and each connection's sent queries
 * in `Queue`s. As released (3.4.9), `shift()` leaves a hole that stays until the queue drains
 * and `remove()` scans from the array's start; scripts/patch-dependencies.mjs guards both. These
 * tests run the installed module, both builds (the bundle and tsx load the ES one).
 */
interface Queue<T> {
  readonly length: number
  readonly push: (x: T) => T
  readonly shift: () => T | undefined
  readonly remove: (x: T) => T | null
}
type QueueOf = <T>(initial?: ReadonlyArray<T>) => Queue<T>

const driverDir = join(dirname(createRequire(import.meta.url).resolve("postgres")), "..", "..")
const builds: ReadonlyArray<[string, () => Promise<QueueOf>]> = [
  ["ES module", async () => (await import(pathToFileURL(join(driverDir, "src", "queue.js")).href)).default as QueueOf],
  ["CommonJS", async () => createRequire(import.meta.url)(join(driverDir, "cjs", "src", "queue.js")) as QueueOf],
]

/** An array that reports the largest size it reached when it was searched (`remove` searches it). */
const observed = () => {
  const seen = { largest: 0 }
  class Observed<T> extends Array<T> {
    override indexOf(x: T, from?: number): number {
      seen.largest = Math.max(seen.largest, this.length)
      return super.indexOf(x, from)
    }
  }
  return { seen, Observed }
}

describe.each(builds)("the driver's connection queues (%s build)", (_, load) => {
  it("a pool that once opened every connection keeps its idle queue as small as the connections in it, query after query", async () => {
    const Queue = await load()
    const { seen, Observed } = observed()
    const connections = Observed.from(Array.from({ length: 10 }, (_, i) => ({ id: i })))
    const idle = Queue(connections)
    // The pool's own steps for each query at two in flight: take the least recently used idle
    // connection, move it out of the idle queue (`move` removes it from the queue it was in),
    // and put back the one whose query answered.
    const inFlight: Array<{ id: number }> = []
    for (let query = 0; query < 100_000; query++) {
      const c = idle.shift()!
      idle.remove(c)
      inFlight.push(c)
      if (inFlight.length === 2) idle.push(inFlight.shift()!)
    }
    expect(idle.length).toBe(9)
    // Unguarded, the array held a hole per query (100,000) and each query searched them all.
    expect(seen.largest).toBeLessThanOrEqual(2 * 64 + 10)
  })

  it("keeps first-in first-out order and removes exactly the queued item asked for (any sequence of operations)", async () => {
    const Queue = await load()
    const op = fc.oneof(
      fc.record({ kind: fc.constant("push" as const) }),
      fc.record({ kind: fc.constant("shift" as const) }),
      fc.record({ kind: fc.constant("remove" as const), pick: fc.nat() }),
    )
    fc.assert(
      fc.property(fc.array(op, { maxLength: 600 }), (ops) => {
        const queue = Queue<{ n: number }>()
        const model: Array<{ n: number }> = []
        let next = 0
        for (const o of ops) {
          if (o.kind === "push") {
            const x = { n: next++ }
            queue.push(x)
            model.push(x)
          } else if (o.kind === "shift") {
            if (model.length === 0) continue // the pool shifts only a queue with a length
            expect(queue.shift()).toBe(model.shift())
          } else {
            // Half the time an item no longer queued: it is not found.
            const x = o.pick % 2 === 0 && model.length > 0 ? model[o.pick % model.length]! : { n: -1 }
            const at = model.indexOf(x)
            if (at !== -1) model.splice(at, 1)
            expect(queue.remove(x)).toBe(at === -1 ? null : x)
          }
          expect(queue.length).toBe(model.length)
        }
      }),
      { numRuns: 300 },
    )
  })
})
