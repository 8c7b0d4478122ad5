import { createMiddleware } from "hono/factory"
import { Unauthenticated } from "../../core/shared/errors.ts"
import { constantTimeEqual } from "../crypto/secrets.ts"
import type { AppEnv } from "./app-env.ts"

const enc = new TextEncoder()

/** Operator API: `Authorization: Bearer <KEYSPACE_ADMIN_TOKEN>`, compared in constant time. */
export const adminAuth = (adminToken: string) => {
  const expected = enc.encode(adminToken)
  return createMiddleware<AppEnv>(async (c, next) => {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(c.req.header("authorization") ?? "")
    if (!match?.[1] || !constantTimeEqual(enc.encode(match[1]), expected))
      throw new Unauthenticated({ reason: "operator token required" })
    await next()
  })
}
