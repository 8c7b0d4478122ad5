import { Effect } from "effect"
import { Hono } from "hono"
import { ClockControl, type ClockStep } from "../../../core/operator/clock.ts"
import type { HttpDeps } from "../http-deps.ts"
import type { AppEnv } from "../app-env.ts"
import { ok } from "../envelope.ts"
import { makeRun } from "../run.ts"
import { ClockAdvanceRequest } from "../schemas/operator-requests.ts"
import { decodeOrFail, readJson } from "../validation.ts"

/** Operator API: the test clock (operator contract, section 3). Mounted under /admin/v1. */
export const operatorClockRoutes = (s: HttpDeps) => {
  const run = makeRun(s.runtime, s)
  return new Hono<AppEnv>()
    .get("/clock", (c) => ok(c, { now: new Date(s.clock.now()).toISOString(), mode: s.clock.mode }))
    .post("/clock/advance", async (c) => {
      const body = decodeOrFail(ClockAdvanceRequest, await readJson(c))
      const step: ClockStep = body.minutes !== undefined ? { _tag: "By", minutes: body.minutes } : { _tag: "To", at: Date.parse(body.to!) }
      return run(c, Effect.flatMap(ClockControl, (clock) => clock.advance(step)), (now) =>
        ok(c, { now: new Date(now).toISOString() }),
      )
    })
}
