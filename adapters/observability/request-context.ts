import { AsyncLocalStorage } from "node:async_hooks"
import { Effect, type Tracer } from "effect"

/**
 * The request a piece of code runs for. Held in AsyncLocalStorage (available on Node, Bun and
 * Deno) so that every log line legacy Promise code writes while serving a request carries its
 * id, although that code only holds `Services.logger` and never sees the Hono context. Effect
 * code gets the same from its fiber: `withRequest` below.
 */
export interface RequestContext {
  /** Absent for background work that runs under a span but outside any request. */
  readonly requestId?: string | undefined
  readonly traceId?: string | undefined
  readonly spanId?: string | undefined
}

const storage = new AsyncLocalStorage<RequestContext>()

export const runWithRequestContext = <T>(ctx: RequestContext, f: () => T): T => storage.run(ctx, f)

export const currentRequestContext = (): RequestContext | undefined => storage.getStore()

/**
 * A use case run for a request: its log lines carry `requestId` (log annotation) and its spans
 * are children of the request's server span (present only when tracing is on).
 */
export const withRequest = <A, E, R>(
  effect: Effect.Effect<A, E, R>,
  requestId: string | undefined,
  span: Tracer.AnySpan | undefined,
): Effect.Effect<A, E, R> => {
  const annotated = requestId ? Effect.annotateLogs(effect, { requestId }) : effect
  return span ? Effect.withParentSpan(annotated, span) : annotated
}
