import type { Tracer } from "effect"
import type { Logger } from "./logger.ts"
import type { Metrics } from "./metrics.ts"
import { endServerSpan, startServerSpan } from "./tracing.ts"

/** What a router matched for a request: Hono's `[[handler, route], params][]`, middleware first. */
export type MatchedHandlers = ReadonlyArray<readonly [readonly [unknown, { readonly method: string; readonly path: string }], unknown]>

/**
 * The route pattern that answered (`/meetings/:id`), never the raw path: metric labels stay
 * bounded and ids stay out of them. Middleware is registered as method ALL, handlers are not.
 */
export const routePattern = (matched: MatchedHandlers): string => {
  for (let i = matched.length - 1; i >= 0; i--) {
    const r = matched[i]![0][1]
    if (r.method !== "ALL") return r.path
  }
  return "unmatched"
}

/** Probes and scrapes would drown the request log; they are logged at debug only. */
const QUIET_ROUTES = new Set(["/healthz", "/metrics"])

/** One request, as the observer records it when it is answered. */
export interface ObservedRequest {
  readonly requestId: string
  readonly method: string
  /** The request's path (`c.req.path`). */
  readonly path: string
  /** `performance.now()` when the request arrived. */
  readonly arrivedAt: number
  readonly span: Tracer.Span | undefined
  /** The typed failure the answer was rendered from, if any. */
  readonly failure: unknown
}

export interface RequestObserver {
  /** Whether requests get a server span (tracing on). */
  readonly traced: boolean
  /** The request's server span when tracing is on (its parent from `traceparent`). */
  readonly startSpan: (method: string, traceparent: string | undefined, requestId: string) => Tracer.Span | undefined
  /** One request log line, the request metrics, the span's end; `route` is the `routePattern`. */
  readonly finish: (r: ObservedRequest, route: string, status: number) => void
}

/**
 * One request log line plus the request metrics per request, and a server span when tracing is
 * on. Runs on every request (adapters/http/edge.ts), so it stays out of the Effect runtime:
 * metrics go through cached metric objects (`updateUnsafe`), the line through the shared writer.
 */
export const requestObserver = (deps: {
  readonly logger: Logger
  readonly metrics: Metrics
  /** The exporting tracer; undefined when tracing is off (no server span at all). */
  readonly tracer: Tracer.Tracer | undefined
}): RequestObserver => {
  const { logger, metrics, tracer } = deps
  return {
    traced: tracer !== undefined,
    startSpan: (method, traceparent, requestId) => (tracer ? startServerSpan(tracer, method, traceparent, requestId) : undefined),
    finish: (r, route, status) => {
      const { requestId, method, span } = r
      // The partner's own user ids may be emails or other personal data: those paths stay out.
      const path = route.includes(":externalUserId") ? undefined : r.path
      const seconds = (performance.now() - r.arrivedAt) / 1000
      metrics.httpRequest(method, route, status, seconds)
      if ((r.failure as { _tag?: unknown } | undefined)?._tag === "RateLimited") metrics.rateLimitHit()
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
    },
  }
}
