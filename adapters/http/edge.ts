import type { Context, Hono } from "hono"
import type { Tracer } from "effect"
import { routePattern, type MatchedHandlers, type RequestObserver } from "../observability/http-observer.ts"
import { runWithRequestContext } from "../observability/request-context.ts"

/** What @hono/node-server passes as `c.env` (typed structurally: no node: import here). */
export interface NodeBindings {
  readonly incoming: { readonly headers: Record<string, string | string[] | undefined> }
  readonly outgoing: { setHeader: (name: string, value: string) => unknown }
}

export const nodeBindings = (env: unknown): NodeBindings | undefined =>
  (env as NodeBindings | undefined)?.outgoing ? (env as NodeBindings) : undefined

/** What the edge knows of a request; the routes read it with `edgeOf(c)`. */
export interface RequestEdge {
  readonly requestId: string
  /** `performance.now()` when the request arrived: the instant its reads must be fresh from. */
  readonly arrivedAt: number
  /** The request's server span; only when tracing is on (use-case spans become its children). */
  readonly span: Tracer.Span | undefined
  /** The typed failure the answer was rendered from (`answeredWith`): the observer counts rate-limit hits. */
  failure: unknown
}

/**
 * The edge's record of the request rides in Hono's execution-context slot: a Workers-only
 * argument that Node, Bun and Deno never pass, and the one per-request value Hono hands to
 * every handler without a middleware (a middleware level would make every answer asynchronous).
 * A Hono app used without the edge (a unit test of a route module) gets a fresh record.
 */
export const edgeOf = (c: Context): RequestEdge => {
  try {
    return c.executionCtx as unknown as RequestEdge
  } catch {
    return { requestId: "", arrivedAt: performance.now(), span: undefined, failure: undefined }
  }
}

/**
 * Notes the typed failure an answer was rendered from (the error table's answers): for the
 * observer (rate-limit hits) on the edge's record, and as `c.error` for the bearer challenge,
 * which Hono sets itself only for an error thrown inside its compose.
 */
export const answeredWith = (c: Context, failure: Error): void => {
  c.error = failure
  edgeOf(c).failure = failure
}

type Fetch = Hono["fetch"]

/** One of the Hono apps the edge hands a request to (see `makeApp`). */
export interface EdgeTarget {
  readonly fetch: Fetch
  readonly router: { match: (method: string, path: string) => readonly [MatchedHandlers, ...unknown[]] }
}

/**
 * The first thing every request meets, outside Hono: its request id (kept from `X-Request-Id`
 * cut to 64 characters when it is plain visible ASCII, else a new one, answered in the same header), its arrival instant, its
 * server span, and on the way out one request line and the request metrics (the observer).
 * Outside Hono because a Hono middleware level makes every answer a promise: a route that
 * answers synchronously (`/healthz`) then lets @hono/node-server write it at once, without its
 * promise path and close listener (issue 13: about 2 µs of a 15 µs probe).
 *
 * `choose` picks the app for the request by its method, path and Node bindings.
 */
/**
 * A caller's X-Request-Id is kept (its first 64 characters) when it is visible ASCII without
 * a quote, comma or backslash (base64 ids and `Root=1-…` trace ids pass): it goes into every log
 * line and back in a header, where spaces, quotes, non-ASCII bytes (Node re-encoded them, Bun
 * and Deno echoed them raw) or a comma-joined pair of ids would not survive as one value.
 * Anything else gets a new id.
 */
const REQUEST_ID = /^[\x21\x23-\x2b\x2d-\x5b\x5d-\x7e]+$/

export const edgeFetch = (deps: {
  readonly observer: RequestObserver
  readonly newRequestId: () => string
  readonly getPath: (request: Request) => string
  readonly choose: (method: string, path: string, request: Request, node: NodeBindings | undefined) => EdgeTarget
}): Fetch => {
  const { observer, newRequestId, getPath, choose } = deps
  // Module-level steps over one record per request: a synchronous answer allocates no closure.
  const answered = (edge: Edge, res: Response): Response => {
    finish(observer, edge, res.status)
    return edge.node ? res : withRequestId(res, edge.requestId)
  }
  return (request, env) => {
    const arrivedAt = performance.now()
    // On Node the adapter hands over the raw request and response: reading and writing the
    // header there avoids building a fetch Headers object for each. Other runtimes, and
    // in-process `app.request`, take the portable path.
    const node = nodeBindings(env)
    const sent = node ? node.incoming.headers["x-request-id"] : request.headers.get("x-request-id")
    const requestId = typeof sent === "string" && REQUEST_ID.test(sent) ? sent.slice(0, 64) : newRequestId()
    if (node) node.outgoing.setHeader("x-request-id", requestId)
    const method = request.method
    const traceparent = observer.traced ? (node ? node.incoming.headers["traceparent"] : request.headers.get("traceparent")) : undefined
    const span = observer.startSpan(method, typeof traceparent === "string" ? traceparent : undefined, requestId)
    const path = getPath(request)
    const target = choose(method, path, request, node)
    const edge: Edge = { requestId, arrivedAt, span, failure: undefined, method, path, target, node }
    let res: Response | Promise<Response>
    try {
      const ctx = edge as unknown as Parameters<Fetch>[2]
      // Only a traced request runs in an AsyncLocalStorage context (request-context.ts says why).
      res = span
        ? runWithRequestContext({ requestId, traceId: span.traceId, spanId: span.spanId }, () => target.fetch(request, env, ctx))
        : target.fetch(request, env, ctx)
    } catch (e) {
      finish(observer, edge, 500)
      throw e
    }
    if (!(res instanceof Promise)) return answered(edge, res)
    return res.then(
      (r) => answered(edge, r),
      (e: unknown) => {
        finish(observer, edge, 500)
        throw e
      },
    )
  }
}

/** The edge's own record of a request (what the routes see of it is `RequestEdge`). */
interface Edge extends RequestEdge {
  readonly method: string
  readonly path: string
  readonly target: EdgeTarget
  readonly node: NodeBindings | undefined
}

const finish = (observer: RequestObserver, edge: Edge, status: number): void => {
  // Hono answers HEAD with its GET route.
  const method = edge.method
  const route = routePattern(edge.target.router.match(method === "HEAD" ? "GET" : method, edge.path)[0])
  observer.finish(edge, route, status)
}

/** The portable path: the header on the answer itself (a copy when its headers are immutable). */
const withRequestId = (res: Response, requestId: string): Response => {
  try {
    res.headers.set("X-Request-Id", requestId)
    return res
  } catch {
    const copy = new Response(res.body, res)
    copy.headers.set("X-Request-Id", requestId)
    return copy
  }
}
