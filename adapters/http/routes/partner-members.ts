import { Hono, type Context } from "hono"
import { Forbidden } from "../../../core/shared/errors.ts"
import { setPartnerCredentials } from "../../members/credentials-service.ts"
import {
  getPartnerMember,
  type MemberDeps,
  offboardPartnerMember,
  type PartnerScope,
  upsertPartnerMember,
} from "../../members/partner-member-service.ts"
import { consumePartnerBudget } from "../../members/rate-limit.ts"
import type { Services } from "../../wiring/services.ts"
import type { AppEnv } from "../app-env.ts"
import { ok } from "../envelope.ts"
import {
  checkExternalUserId,
  PartnerCredentialsRequest,
  PartnerMemberUpsertRequest,
} from "../schemas/partner-requests.ts"
import { decodeOrFail, readJson } from "../validation.ts"

/**
 * Spec Authentication 6 and Endpoints > Partner members: only an app_credentials token of a
 * single-project app (403 SV003 otherwise). Checked before the rate limit, so a mis-scoped
 * token neither spends nor is told about the app's budget.
 */
const partnerScope = (c: Context<AppEnv>): PartnerScope => {
  const p = c.get("principal")
  if (p.grant !== "app_credentials")
    throw new Forbidden({ reason: "partner routes accept only an app_credentials token" })
  if (p.projectIds.length !== 1)
    throw new Forbidden({
      reason: "partner routes are for an app provisioned for exactly one project",
    })
  return { appId: p.appId, projectId: p.projectIds[0]! }
}

const externalUserId = (c: Context<AppEnv>) =>
  checkExternalUserId(c.req.param("externalUserId") ?? "")

/** PUT/GET/DELETE /partner/members/{externalUserId} and PUT .../credentials. */
export const partnerMemberRoutes = (s: Services, deps: MemberDeps) =>
  new Hono<AppEnv>()
    .use(async (c, next) => {
      await consumePartnerBudget(s, partnerScope(c).appId)
      await next()
    })
    .put("/:externalUserId", async (c) => {
      const id = externalUserId(c)
      const body = decodeOrFail(PartnerMemberUpsertRequest, await readJson(c))
      return ok(c, await upsertPartnerMember(s, deps, partnerScope(c), id, body))
    })
    .get("/:externalUserId", async (c) =>
      ok(c, await getPartnerMember(s, partnerScope(c), externalUserId(c))),
    )
    .delete("/:externalUserId", async (c) => {
      await offboardPartnerMember(s, deps, partnerScope(c), externalUserId(c))
      return c.body(null, 204)
    })
    .put("/:externalUserId/credentials", async (c) => {
      const id = externalUserId(c)
      const body = decodeOrFail(PartnerCredentialsRequest, await readJson(c))
      return ok(c, await setPartnerCredentials(s, deps, partnerScope(c), id, body))
    })
