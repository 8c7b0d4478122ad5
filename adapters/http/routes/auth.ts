import { Hono } from "hono"
import { ValidationFailed } from "../../../core/shared/errors.ts"
import { authenticateApp, issueAppTokenPair, refreshTokenPair } from "../../auth/token-service.ts"
import type { Services } from "../../wiring/services.ts"
import type { AppEnv } from "../app-env.ts"
import {
  AppCredentialsGrant,
  ActAsGrant,
  RefreshTokenGrant,
  TokenRequestHead,
} from "../schemas/token-request.ts"
import { decodeOrFail, readJson } from "../validation.ts"

/** Handles act_as; provided by the partner surface (adapters/http/routes/partner-act-as.ts). */
export type ActAsHandler = (
  s: Services,
  grant: typeof ActAsGrant.Type,
) => Promise<Record<string, unknown>>

export const authRoutes = (s: Services, actAs: ActAsHandler | undefined) =>
  new Hono<AppEnv>().post("/accessToken", async (c) => {
    const body = await readJson(c)
    const { grant_type } = decodeOrFail(TokenRequestHead, body)
    switch (grant_type) {
      case "app_credentials": {
        const grant = decodeOrFail(AppCredentialsGrant, body)
        const app = await authenticateApp(s, grant.app_id, grant.app_secret)
        return c.json(await issueAppTokenPair(s, s.database.db, app.id), 201)
      }
      case "refresh_token": {
        const grant = decodeOrFail(RefreshTokenGrant, body)
        return c.json(await refreshTokenPair(s, grant.refresh_token), 201)
      }
      default: {
        const grant = decodeOrFail(ActAsGrant, body)
        if (!actAs) throw new ValidationFailed({ messages: ["grant_type: act_as is not enabled"] })
        return c.json(await actAs(s, grant), 201)
      }
    }
  })
