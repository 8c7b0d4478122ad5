import type { Tracer } from "effect"
import type { Principal } from "../../core/auth/principal.ts"

/** Hono context variables set by the middleware of adapters/http/app.ts. */
export type AppEnv = {
  Variables: {
    requestId: string
    /** `performance.now()` when the request arrived: the instant its reads must be fresh from. */
    arrivedAt: number
    principal: Principal
    /** The request's server span; set only when tracing is on (use-case spans become its children). */
    span: Tracer.AnySpan | undefined
  }
}
