import { Hono } from "hono"
import { StateConflict, ValidationFailed } from "../../../core/shared/errors.ts"
import { Manifest } from "../../../core/tenancy/manifest.ts"
import { Tenancy } from "../../../core/tenancy/tenancy.ts"
import { isSharedManual } from "../../clock/shared-clock.ts"
import type { Services } from "../../wiring/services.ts"
import { registrationUrlErrors } from "../../webhooks/ssrf-guard.ts"
import type { AppEnv } from "../app-env.ts"
import { ok } from "../envelope.ts"
import { makeRun } from "../run.ts"
import { AppIdParam, ClockAdvanceRequest, RotateSecretRequest } from "../schemas/operator-requests.ts"
import { decodeOrFail, readJson } from "../validation.ts"

const LATEST_CLOCK_INSTANT = Date.parse("9999-12-31T23:59:59.999Z")

/** Operator API core: manifest and test clock (operator contract, sections 2-3). */
export const operatorRoutes = (s: Services) => {
  const run = makeRun(s.runtime, s.logger)
  const tenancy = s.runtime.runSync(Tenancy)
  return new Hono<AppEnv>()
    .put("/manifest", async (c) => {
      const manifest = decodeOrFail(Manifest, await readJson(c))
      // Webhook URL policy (SSRF rules) is the edge's; the use case reports it with the reference errors.
      const urlErrors = registrationUrlErrors(manifest.projects ?? [], { allowInsecure: s.config.allowInsecureWebhooks })
      return run(c, tenancy.applyManifest(manifest, urlErrors), (ids) => ok(c, ids))
    })
    .get("/manifest/ids", (c) => run(c, tenancy.manifestIds(), (ids) => ok(c, ids)))
    .post("/apps/:appId/secret", async (c) => {
      const { appId } = decodeOrFail(AppIdParam, { appId: c.req.param("appId") })
      const body = decodeOrFail(RotateSecretRequest, await readJson(c, { optional: true }))
      return run(c, tenancy.rotateAppSecret(appId, body.appSecret), (r) => ok(c, r))
    })
    .get("/clock", (c) => ok(c, { now: new Date(s.clock.now()).toISOString(), mode: s.clock.mode }))
    .post("/clock/advance", async (c) => {
      const body = decodeOrFail(ClockAdvanceRequest, await readJson(c))
      const clock = s.clock
      if (!isSharedManual(clock))
        throw new StateConflict({ reason: "the clock is not manual (KEYSPACE_CLOCK=manual)" })
      // The target is checked against the deployment's clock under its lock (another process
      // may have moved it); the hooks apply the due ticks before any other advance starts.
      const now = await clock.advance(
        (current) => {
          const target = "minutes" in body ? current + body.minutes * 60_000 : Date.parse(body.to)
          if (Number.isNaN(target)) throw new ValidationFailed({ messages: ["to: not a valid date-time"] })
          if (target < current) throw new ValidationFailed({ messages: ["to: must not be earlier than now"] })
          // Past year 9999 an ISO date-time needs six digits, which PostgreSQL timestamps refuse.
          if (target > LATEST_CLOCK_INSTANT)
            throw new ValidationFailed({ messages: ["clock: must stay before 10000-01-01T00:00:00Z"] })
          return target
        },
        async (at) => {
          for (const hook of s.onClockAdvanced) await hook(at)
        },
      )
      return ok(c, { now: new Date(now).toISOString() })
    })
}
