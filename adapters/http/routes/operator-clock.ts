import { Effect, Result } from "effect"
import { Hono } from "hono"
import { ClockControl, type ClockStep } from "../../../core/operator/clock.ts"
import type { HttpDeps } from "../http-deps.ts"
import type { AppEnv } from "../app-env.ts"
import { ok } from "../envelope.ts"
import { makeRun } from "../run.ts"
import { ClockAdvanceRequest } from "../schemas/operator-requests.ts"
import { decodeOrFail, readJson } from "../validation.ts"
import { parseOffsetDateTimeExact } from "../../../core/shared/local-time.ts"

/** Operator API: the test clock (operator contract, section 3). Mounted under /admin/v1. */
export const operatorClockRoutes = (s: HttpDeps) => {
  const run = makeRun(s.runtime, s)
  return new Hono<AppEnv>()
    .get("/clock", (c) => ok(c, { now: new Date(s.clock.now()).toISOString(), mode: s.clock.mode }))
    .post("/clock/advance", async (c) => {
      const body = decodeOrFail(ClockAdvanceRequest, await readJson(c))
      // The instant as the schema read it (Date.parse refused a comma fraction the schema accepts).
      const step: ClockStep =
        body.to === undefined ? { _tag: "By", minutes: body.minutes! } : { _tag: "To", at: Result.getOrThrow(parseOffsetDateTimeExact(body.to)) }
      return run(c, Effect.flatMap(ClockControl, (clock) => clock.advance(step)), (now) =>
        ok(c, { now: new Date(now).toISOString() }),
      )
    })
}
