import { PGlite } from "@electric-sql/pglite"
import { Exit } from "effect"
import { Hono } from "hono"
import postgres from "postgres"
import { afterAll, describe, expect, it } from "vitest"
import { exitResponse, REFUSED_VALUE_MESSAGE, type DefectSink } from "../../../adapters/http/run.ts"
import { isConnectionLoss } from "../../../adapters/postgres/connection-loss.ts"
import { isRefusedValue } from "../../../adapters/postgres/sqlstate.ts"
import { TEST_DATABASE_URL } from "../../support/databases.ts"

/**
 * "No 500s for anything a client can send": the routes' schemas refuse a NUL or an out-of-range
 * number before any SQL, and a value one of them lets through, which the database refuses
 * (SQLSTATE class 22), is still the client's: 400 SV001, logged so the schema gets fixed.
 */
describe("a value the database refuses is the request's fault (400 SV001): the errors of both drivers", () => {
  const sql = postgres(TEST_DATABASE_URL, { max: 1, onnotice: () => {} })
  const lite = new PGlite()
  afterAll(async () => {
    await sql.end()
    await lite.close()
  })

  const refusalOf = async (run: () => Promise<unknown>): Promise<unknown> => {
    try {
      await run()
    } catch (e) {
      return e
    }
    throw new Error("the database took the value")
  }

  const answerTo = async (error: unknown) => {
    const lines: Array<{ level: string; msg: string }> = []
    const logger = { log: (level: string, msg: string) => void lines.push({ level, msg }), child: () => logger }
    const sink = { logger, transientFault: isConnectionLoss, refusedValue: isRefusedValue } as unknown as DefectSink
    const app = new Hono().post("/x", (c) => exitResponse(sink, c as never, Exit.die(error), () => c.text("never")))
    const res = await app.request("/x", { method: "POST" })
    return { status: res.status, body: (await res.json()) as unknown, lines }
  }

  const cases = [
    ["PostgreSQL, a NUL in text", () => sql`select ${"a\u0000b"}::text`],
    ["PostgreSQL, an integer out of range", () => sql`select ${"99999999999"}::int4`],
    ["PGlite, a NUL in text", () => lite.query("select $1::text", ["a\u0000b"])],
    ["PGlite, an integer out of range", () => lite.query("select $1::int4", ["99999999999"])],
  ] as const

  for (const [name, run] of cases)
    it(name, async () => {
      const error = await refusalOf(run)
      expect(isRefusedValue(error)).toBe(true)
      const answer = await answerTo(error)
      expect(answer.status).toBe(400)
      expect(answer.body).toMatchObject({ code: "SV001", success: false, message: [REFUSED_VALUE_MESSAGE] })
      expect(answer.lines).toEqual([{ level: "error", msg: "the database refused a value of the request" }])
    })

  it("any other database error stays a 500 (a server fault), a data exception only the server's SQL causes too", async () => {
    for (const run of [() => sql`select * from no_such_table_here`, () => sql`select 1 / 0`]) {
      const error = await refusalOf(run)
      expect(isRefusedValue(error)).toBe(false)
      expect((await answerTo(error)).status).toBe(500)
    }
  })
})
