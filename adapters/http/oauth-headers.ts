import { createMiddleware } from "hono/factory"
import { Unauthenticated } from "../../core/shared/errors.ts"
import type { AppEnv } from "./app-env.ts"

/**
 * RFC 6749 section 5.1/5.2: a token response (every grant, success or error) must not be
 * cached by the client, a proxy or the browser. Set after the handler so thrown errors,
 * rendered by the app's error handler, carry the headers too.
 */
export const tokenResponseHeaders = createMiddleware<AppEnv>(async (c, next) => {
  await next()
  c.header("Cache-Control", "no-store")
  c.header("Pragma", "no-cache")
})

const REALM = 'Bearer realm="keyspace"'

/**
 * RFC 6750 section 3: every 401 of a bearer-protected route carries the Bearer challenge;
 * `error="invalid_token"` only when a token was presented and refused (a request without any
 * credentials gets the bare challenge, as section 3.1 asks). The body stays the spec's envelope.
 */
export const bearerChallenge = createMiddleware<AppEnv>(async (c, next) => {
  await next()
  if (c.res.status !== 401) return
  const presented = /^Bearer\s+\S+/i.test(c.req.header("authorization") ?? "")
  c.header(
    "WWW-Authenticate",
    presented && c.error instanceof Unauthenticated ? `${REALM}, error="invalid_token"` : REALM,
  )
})
