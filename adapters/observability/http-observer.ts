import type { Context, MiddlewareHandler } from "hono"
import { matchedRoutes } from "hono/route"
import type { Logger } from "../wiring/logger.ts"
import type { Metrics } from "./metrics.ts"
import { runWithRequestContext } from "./request-context.ts"
import { parseTraceparent, type Tracer } from "./tracing.ts"

/**
 * The route pattern that answered (`/meetings/:id`), never the raw path: metric labels stay
 * bounded and ids stay out of them. Middleware is registered as method ALL, handlers are not.
 */
export const routePattern = (c: Context): string => {
  const routes = matchedRoutes(c)
  for (let i = routes.length - 1; i >= 0; i--) {
    const r = routes[i]!
    if (r.method !== "ALL") return r.path
  }
  return "unmatched"
}

/** Probes and scrapes would drown the request log; they are logged at debug only. */
const QUIET_ROUTES = new Set(["/healthz", "/metrics"])

/**
 * Runs the rest of the request inside its request context (so every log line carries the
 * request id), under a server span when tracing is on, and records one request log line plus
 * the request metrics when it finishes. The request id itself is set by the first middleware.
 */
export const observeRequests = (deps: {
  readonly logger: Logger
  readonly metrics: Metrics
  readonly tracer: Tracer
  readonly requestId: (c: Context) => string
}): MiddlewareHandler => {
  return async (c, next) => {
    const started = performance.now()
    const requestId = deps.requestId(c)
    const span = deps.tracer.enabled
      ? deps.tracer.startSpan(`${c.req.method}`, {
          kind: "server",
          parent: parseTraceparent(c.req.header("traceparent")),
          attributes: {
            "http.request.method": c.req.method,
            "keyspace.request_id": requestId,
          },
        })
      : undefined
    const ctx = { requestId, traceId: span?.traceId, spanId: span?.spanId }
    let thrown: unknown
    try {
      await runWithRequestContext(ctx, () => next())
    } catch (e) {
      thrown = e
    }
    const route = routePattern(c)
    // The partner's own user ids may be emails or other personal data: those paths stay out.
    const path = route.includes(":externalUserId") ? {} : { path: c.req.path }
    const status = thrown === undefined ? c.res.status : 500
    const seconds = (performance.now() - started) / 1000
    deps.metrics.httpRequest(c.req.method, route, status, seconds)
    const error = c.error as { _tag?: unknown } | undefined
    if (error?._tag === "RateLimited") deps.metrics.rateLimitHit()
    if (span) {
      span.setName(`${c.req.method} ${route}`)
      span.setAttribute("http.route", route)
      if (path.path) span.setAttribute("url.path", path.path)
      span.setAttribute("http.response.status_code", status)
      if (status >= 500) span.setError(`HTTP ${status}`)
      span.end()
    }
    const level = QUIET_ROUTES.has(route) ? "debug" : status >= 500 ? "error" : "info"
    if (deps.logger.enabled?.(level) !== false)
      runWithRequestContext(ctx, () =>
        deps.logger.log(level, "request", {
          method: c.req.method,
          route,
          ...path,
          status,
          durationMs: Math.round(seconds * 1000 * 100) / 100,
        }),
      )
    if (thrown !== undefined) throw thrown
  }
}
