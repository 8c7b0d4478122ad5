import type { Principal } from "../../core/auth/principal.ts"
import type { Logger } from "../runtime/logger.ts"

/** Hono context variables set by the middleware of adapters/http/app.ts. */
export type AppEnv = {
  Variables: {
    requestId: string
    logger: Logger
    principal: Principal
  }
}
