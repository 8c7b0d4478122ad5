import { Hono } from "hono"
import { ValidationFailed } from "../../../core/shared/errors.ts"
import { Manifest, manifestReferenceErrors } from "../../../core/tenancy/manifest.ts"
import { rotateAppSecret } from "../../auth/app-secret.ts"
import { applyManifest, readManifestIds } from "../../postgres/manifest-repo.ts"
import type { Services } from "../../wiring/services.ts"
import { registrationUrlErrors } from "../../webhooks/ssrf-guard.ts"
import type { AppEnv } from "../app-env.ts"
import { ok } from "../envelope.ts"
import { AppIdParam, RotateSecretRequest } from "../schemas/operator-requests.ts"
import { decodeOrFail, readJson } from "../validation.ts"

/** Operator API core: manifest and app secrets (operator contract, section 2; the clock is operator-clock.ts). */
export const operatorRoutes = (s: Services) => {
  return new Hono<AppEnv>()
    .put("/manifest", async (c) => {
      const manifest = decodeOrFail(Manifest, await readJson(c))
      const refErrors = [
        ...manifestReferenceErrors(manifest),
        ...registrationUrlErrors(manifest.projects ?? [], { allowInsecure: s.config.allowInsecureWebhooks }),
      ]
      if (refErrors.length > 0) throw new ValidationFailed({ messages: refErrors })
      const ids = await s.database.db.transaction((tx) => applyManifest(s, tx, manifest))
      return ok(c, ids)
    })
    .get("/manifest/ids", async (c) => ok(c, await readManifestIds(s.database.db)))
    .post("/apps/:appId/secret", async (c) => {
      const { appId } = decodeOrFail(AppIdParam, { appId: c.req.param("appId") })
      const body = decodeOrFail(RotateSecretRequest, await readJson(c, { optional: true }))
      return ok(c, await rotateAppSecret(s.database.db, appId, s.clock.now(), body.appSecret))
    })
}
