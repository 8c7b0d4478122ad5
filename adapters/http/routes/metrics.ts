import { Hono } from "hono"
import { refreshDatabaseGauges } from "../../observability/database-gauges.ts"
import type { Services } from "../../wiring/services.ts"
import type { AppEnv } from "../app-env.ts"

/**
 * GET /metrics in Prometheus text format. Unauthenticated like /healthz: scrapers run inside
 * the operator's network and the series carry no tenant data (route patterns, never paths).
 */
export const metricsRoutes = (s: Services) =>
  new Hono<AppEnv>().get("/metrics", async (c) => {
    await refreshDatabaseGauges(s)
    return c.body(s.metrics.render(), 200, {
      "Content-Type": "text/plain; version=0.0.4; charset=utf-8",
    })
  })
