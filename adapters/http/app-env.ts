import type { Principal } from "../../core/auth/principal.ts"
import type { UnconfirmedCaches } from "../../core/ports/read-freshness.ts"

/**
 * Hono context variables: the principal the bearer check found, and whether it left the
 * request's caches unconfirmed. The request id, arrival
 * instant and server span are the edge's (`edgeOf(c)`, adapters/http/edge.ts).
 */
export type AppEnv = {
  Variables: {
    principal: Principal
    /** Set when the bearer check left the caches unconfirmed (bearer-check.ts `servedUnconfirmed`). */
    unconfirmed: UnconfirmedCaches | undefined
  }
}
