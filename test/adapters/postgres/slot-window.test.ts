import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { LONG, SHORT, splitPage, windowPage, type SlotPart } from "../../../adapters/postgres/slot-window.ts"

/** A window of `long` LONG rows then `short` SHORT rows, in start order, as labels. */
const windowOf = (long: number, short: number) => [
  ...Array.from({ length: long }, (_, i) => `L${i}`),
  ...Array.from({ length: short }, (_, i) => `S${i}`),
]

describe("a window's page is cut from its LONG slots, then its SHORT ones (slot-window.ts)", () => {
  it("the two parts' pages together are the page of the whole window in start order", () => {
    fc.assert(
      fc.property(fc.nat(20), fc.nat(20), fc.nat(25), fc.nat(45), (long, short, limit, offset) => {
        const cut = splitPage(long, limit, offset)
        const longRows = cut.long === undefined ? [] : windowOf(long, 0).slice(cut.long.offset, cut.long.offset + cut.long.limit)
        const shortRows = windowOf(0, short).slice(cut.short.offset, cut.short.offset + cut.short.limit)
        expect([...longRows, ...shortRows]).toEqual(windowOf(long, short).slice(offset, offset + limit))
      }),
    )
  })

  it("reads the SHORT page beside the counts, and more only when the window has LONG slots", async () => {
    await fc.assert(
      fc.asyncProperty(fc.nat(6), fc.nat(20), fc.nat(12), fc.nat(30), async (long, short, limit, offset) => {
        const reads: Array<[SlotPart, number, number]> = []
        const page = (part: SlotPart, l: number, o: number) => {
          reads.push([part, l, o])
          return Promise.resolve((part === LONG ? windowOf(long, 0) : windowOf(0, short)).slice(o, o + l))
        }
        const got = await windowPage(Promise.resolve({ short, long }), page, limit, offset)
        expect(got).toEqual({ rows: windowOf(long, short).slice(offset, offset + limit), total: long + short })
        if (limit === 0) expect(reads).toEqual([])
        else if (long === 0) expect(reads).toEqual([[SHORT, limit, offset]])
      }),
    )
  })
})
