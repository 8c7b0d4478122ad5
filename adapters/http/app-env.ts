import type { Principal } from "../../core/auth/principal.ts"

/**
 * Hono context variables: the principal the bearer check found. The request id, arrival
 * instant and server span are the edge's (`edgeOf(c)`, adapters/http/edge.ts).
 */
export type AppEnv = {
  Variables: {
    principal: Principal
  }
}
