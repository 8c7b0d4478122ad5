import type { Tracer } from "effect"
import type { Context, Env, MiddlewareHandler } from "hono"
import { matchedRoutes } from "hono/route"
import type { Logger } from "./logger.ts"
import type { Metrics } from "./metrics.ts"
import { runWithRequestContext } from "./request-context.ts"
import { endServerSpan, startServerSpan } from "./tracing.ts"

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
 * Runs the rest of the request under a server span when tracing is on, and records one request
 * log line plus the request metrics when it finishes. The request id itself is set by the first
 * middleware. Runs on every request, so it stays out of the Effect runtime: metrics go through
 * cached metric objects (`updateUnsafe`), the line through the shared writer.
 *
 * Only a traced request runs inside an AsyncLocalStorage context (legacy lines get its trace
 * ids). On Node 20 an AsyncLocalStorage that has run once keeps an async hook on every promise
 * of the process for good: 3-4 µs of a 19 µs `/healthz` (issue 13, stream E). Without tracing
 * the request id reaches the code that logs for a request explicitly: use cases through their
 * log annotation (adapters/http/run.ts `withRequest`), the error paths through a child logger.
 */
export const observeRequests = <E extends Env>(deps: {
  readonly logger: Logger
  readonly metrics: Metrics
  /** The exporting tracer; undefined when tracing is off (no server span at all). */
  readonly tracer: Tracer.Tracer | undefined
  readonly requestId: (c: Context<E>) => string
  /** Where a use case finds the server span (adapters/http/run.ts makes it their parent). */
  readonly setSpan: (c: Context<E>, span: Tracer.Span) => void
}): MiddlewareHandler<E> => {
  const { logger, metrics, tracer } = deps
  return async (c, next) => {
    const started = performance.now()
    const requestId = deps.requestId(c)
    const method = c.req.method
    const span = tracer ? startServerSpan(tracer, method, c.req.header("traceparent"), requestId) : undefined
    let thrown: unknown
    try {
      if (span) {
        deps.setSpan(c, span)
        await runWithRequestContext({ requestId, traceId: span.traceId, spanId: span.spanId }, next)
      } else {
        await next()
      }
    } catch (e) {
      thrown = e
    }
    const route = routePattern(c)
    // The partner's own user ids may be emails or other personal data: those paths stay out.
    const path = route.includes(":externalUserId") ? undefined : c.req.path
    const status = thrown === undefined ? c.res.status : 500
    const seconds = (performance.now() - started) / 1000
    metrics.httpRequest(method, route, status, seconds)
    const error = c.error as { _tag?: unknown } | undefined
    if (error?._tag === "RateLimited") metrics.rateLimitHit()
    if (span) endServerSpan(span, route, path, status)
    const level = QUIET_ROUTES.has(route) ? "debug" : status >= 500 ? "error" : "info"
    if (logger.enabled?.(level) !== false)
      logger.log(level, "request", {
        requestId,
        ...(span ? { traceId: span.traceId, spanId: span.spanId } : {}),
        method,
        route,
        ...(path === undefined ? {} : { path }),
        status,
        durationMs: Math.round(seconds * 1000 * 100) / 100,
      })
    if (thrown !== undefined) throw thrown
  }
}
