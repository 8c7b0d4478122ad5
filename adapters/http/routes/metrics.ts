import { Hono, type Context } from "hono"
import type { AppEnv } from "../app-env.ts"

/**
 * GET /metrics in Prometheus text format (effect's formatter over the runtime's registry, the
 * stored-state gauges read first). Unauthenticated like /healthz: scrapers run inside the
 * operator's network and the series carry no tenant data (route patterns, never paths).
 */
export const metricsRoutes = (scrape: (c: Context<AppEnv>) => Promise<string>) =>
  new Hono<AppEnv>().get("/metrics", async (c) =>
    c.body(await scrape(c), 200, { "Content-Type": "text/plain; version=0.0.4; charset=utf-8" }),
  )
