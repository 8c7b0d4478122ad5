import { Hono } from "hono"
import { describe, expect, it } from "vitest"
import type { AppEnv } from "../../../adapters/http/app-env.ts"
import { decodedQueries } from "../../../adapters/http/decoded-queries.ts"

describe("listing queries decoded once per query string (decodedQueries)", () => {
  it("a repeated query string gets the kept, frozen value; a refusal is decoded again every time", async () => {
    let decodes = 0
    const listing = decodedQueries((c) => {
      decodes++
      const n = Number(c.req.query("n"))
      if (!Number.isInteger(n)) throw new Error("n: must be an integer")
      return { n, ids: [n] }
    })
    const seen: unknown[] = []
    const app = new Hono<AppEnv>()
      .get("/", (c) => {
        const v = listing(c)
        seen.push(v)
        return c.json(v)
      })
      .onError((e, c) => c.text(e.message, 400))
    expect(await (await app.request("/?n=1")).json()).toEqual({ n: 1, ids: [1] })
    expect(await (await app.request("/?n=1")).json()).toEqual({ n: 1, ids: [1] })
    expect(seen[0]).toBe(seen[1])
    expect(Object.isFrozen(seen[0]) && Object.isFrozen((seen[0] as { ids: number[] }).ids)).toBe(true)
    await app.request("/?n=2")
    expect(decodes).toBe(2)
    expect((await app.request("/?n=x")).status).toBe(400)
    expect((await app.request("/?n=x")).status).toBe(400)
    expect(decodes).toBe(4)
  })
})
