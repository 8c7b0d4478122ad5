import { Schema } from "effect"
import { Hono } from "hono"
import type { Tokens } from "../../../core/auth/tokens.ts"
import type { AppEnv } from "../app-env.ts"
import type { Run } from "../run.ts"
import {
  AppCredentialsGrant,
  ActAsGrant,
  RefreshTokenGrant,
  TokenRequestFields,
  TokenRequestHead,
} from "../schemas/token-request.ts"
import { decodeAll, decodeOrFail, readJson } from "../validation.ts"

const isHead = Schema.is(TokenRequestHead)

/** POST /auth/accessToken: every grant of spec Authentication, one use case per grant. */
export const authRoutes = ({
  run,
  rotate,
  tokens,
}: {
  /** Checks credentials: a lost connection is 503 SV234 (nothing was spent). */
  readonly run: Run<never>
  /**
   * Rotates a refresh token: a lost connection is 503 SV004, not SV234, since the rotation may
   * have committed and spent the token (a retry with it may then be 401).
   */
  readonly rotate: Run<never>
  readonly tokens: Tokens["Service"]
}) =>
  new Hono<AppEnv>().post("/accessToken", async (c) => {
    const body = await readJson(c)
    const { grant_type } = isHead(body)
      ? body
      : decodeAll(
          () => decodeOrFail(TokenRequestHead, body),
          () => decodeOrFail(TokenRequestFields, body),
        )[0]
    switch (grant_type) {
      case "app_credentials": {
        const grant = decodeOrFail(AppCredentialsGrant, body)
        return run(c, tokens.issueForApp(grant.app_id, grant.app_secret), (r) => c.json(r, 201))
      }
      case "refresh_token": {
        const grant = decodeOrFail(RefreshTokenGrant, body)
        return rotate(c, tokens.refresh(grant.refresh_token), (r) => c.json(r, 201))
      }
      default: {
        const grant = decodeOrFail(ActAsGrant, body)
        const request = {
          appId: grant.app_id,
          appSecret: grant.app_secret,
          subject: grant.subject,
          subjectType: grant.subject_type ?? "external_user_id",
        } as const
        return run(c, tokens.actAs(request), (r) => c.json(r, 201))
      }
    }
  })
