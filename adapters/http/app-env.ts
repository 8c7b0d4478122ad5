import type { Principal } from "../../core/auth/principal.ts"

/** Hono context variables set by the middleware of adapters/http/app.ts. */
export type AppEnv = {
  Variables: {
    requestId: string
    principal: Principal
  }
}
