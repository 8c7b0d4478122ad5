import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { MAX_JSON_DEPTH, nestsDeeperThan } from "../../../adapters/http/validation.ts"

/** The nesting depth of a parsed JSON value (an empty array or object counts as one level). */
const depthOf = (v: unknown): number =>
  Array.isArray(v)
    ? 1 + Math.max(0, ...v.map(depthOf))
    : typeof v === "object" && v !== null
      ? 1 + Math.max(0, ...Object.values(v).map(depthOf))
      : 0

describe("a JSON body nested deeper than any request takes is refused before it is parsed", () => {
  it(`${MAX_JSON_DEPTH} levels pass, ${MAX_JSON_DEPTH + 1} do not`, () => {
    const nest = (n: number) => '{"a":' + "[".repeat(n - 1) + "]".repeat(n - 1) + "}"
    expect(nestsDeeperThan(nest(MAX_JSON_DEPTH), MAX_JSON_DEPTH)).toBe(false)
    expect(nestsDeeperThan(nest(MAX_JSON_DEPTH + 1), MAX_JSON_DEPTH)).toBe(true)
  })

  it("brackets inside strings do not count, escaped quotes and backslashes included", () => {
    expect(nestsDeeperThan(JSON.stringify({ title: "[".repeat(500) }), 2)).toBe(false)
    expect(nestsDeeperThan(JSON.stringify({ title: '\\"[[[[' + "\\" }), 1)).toBe(false)
    expect(nestsDeeperThan('{"a":"\\\\","b":[[[]]]}', 3)).toBe(true)
  })

  it("agrees with the depth of the parsed value for any JSON", () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 6 }), fc.integer({ min: 0, max: 7 }), (value, max) => {
        expect(nestsDeeperThan(JSON.stringify(value), max)).toBe(depthOf(value) > max)
      }),
    )
  })
})
