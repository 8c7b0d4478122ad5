import { Exit } from "effect"
import { Hono } from "hono"
import { describe, expect, it } from "vitest"
import { exitResponse, type DefectSink } from "../../../adapters/http/run.ts"

/**
 * A request whose use case was interrupted (a stop disposed the runtime at the end of its grace
 * period) is answered 503 SV004, retryable, and logged as a warning: nothing is wrong in it, and
 * an "unhandled error" with a stack at every stop hid the real ones (found by a crash probe).
 */
describe("an interrupted request", () => {
  it("is 503 SV004 with a warning, not a 500 with an error line", async () => {
    const lines: Array<{ level: string; msg: string }> = []
    const logger = {
      log: (level: string, msg: string) => void lines.push({ level, msg }),
      child: () => logger,
    }
    const sink = { logger, transientFault: () => false, refusedValue: () => false } as unknown as DefectSink
    const app = new Hono().get("/x", (c) => exitResponse(sink, c as never, Exit.interrupt(1), () => c.text("never")))
    const res = await app.request("/x")
    expect(res.status).toBe(503)
    expect(await res.json()).toMatchObject({ code: "SV004", success: false })
    expect(lines).toEqual([{ level: "warn", msg: "request interrupted: the server is stopping" }])
  })
})
