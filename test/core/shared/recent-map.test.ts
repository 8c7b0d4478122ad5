import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { recentMap } from "../../../core/shared/recent-map.ts"

/** The rule as a list: most recent last, the least recent dropped beyond `max`. */
const modelOf = (max: number) => {
  let entries: Array<[string, number]> = []
  const touch = (k: string, v: number) => {
    entries = [...entries.filter(([key]) => key !== k), [k, v]]
  }
  return {
    get: (k: string) => {
      const e = entries.find(([key]) => key === k)
      if (e) touch(k, e[1])
      return e?.[1]
    },
    peek: (k: string) => entries.find(([key]) => key === k)?.[1],
    set: (k: string, v: number) => {
      touch(k, v)
      if (entries.length > max) entries = entries.slice(1)
    },
    delete: (k: string) => void (entries = entries.filter(([key]) => key !== k)),
    clear: () => void (entries = []),
    values: () => entries.map(([, v]) => v),
  }
}

const key = fc.constantFrom("a", "b", "c", "d", "e")
const op = fc.oneof(
  fc.record({ op: fc.constant("get" as const), key }),
  fc.record({ op: fc.constant("peek" as const), key }),
  fc.record({ op: fc.constant("set" as const), key, value: fc.integer() }),
  fc.record({ op: fc.constant("delete" as const), key }),
  fc.record({ op: fc.constant("clear" as const) }),
)

describe("recent map: a Map bounded to max entries that drops the least recently used first", () => {
  it("answers and evicts as the least-recently-used rule says, whatever the sequence (repeated hits on the last key included)", () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 4 }), fc.array(op, { maxLength: 60 }), (max, ops) => {
        const real = recentMap<string, number>(max)
        const model = modelOf(max)
        for (const o of ops) {
          if (o.op === "get") expect(real.get(o.key)).toBe(model.get(o.key))
          else if (o.op === "peek") expect(real.peek(o.key)).toBe(model.peek(o.key))
          else if (o.op === "set") {
            real.set(o.key, o.value)
            model.set(o.key, o.value)
          } else if (o.op === "delete") {
            real.delete(o.key)
            model.delete(o.key)
          } else {
            real.clear()
            model.clear()
          }
          expect([...real.values()]).toEqual(model.values())
          expect(real.size()).toBe(model.values().length)
        }
      }),
      { numRuns: 500 },
    )
  })
})
