import { Hono } from "hono"
import { ValidationFailed } from "../../../core/shared/errors.ts"
import { Manifest } from "../../../core/tenancy/manifest.ts"
import { Tenancy } from "../../../core/tenancy/tenancy.ts"
import type { HttpDeps } from "../http-deps.ts"
import { registrationUrlErrors } from "../../webhooks/ssrf-guard.ts"
import type { AppEnv } from "../app-env.ts"
import { ok } from "../envelope.ts"
import { makeRun } from "../run.ts"
import { AppIdParam, RotateSecretRequest } from "../schemas/operator-requests.ts"
import { decodeOrFail, readJson } from "../validation.ts"

/** Operator API core: manifest and app secrets (operator contract, section 2; the clock is operator-clock.ts). */
export const operatorRoutes = (s: HttpDeps) => {
  const run = makeRun(s.runtime, s)
  const tenancy = s.runtime.runSync(Tenancy)
  return new Hono<AppEnv>()
    .put("/manifest", async (c) => {
      const manifest = decodeOrFail(Manifest, await readJson(c, { largeArrays: true }))
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
}
