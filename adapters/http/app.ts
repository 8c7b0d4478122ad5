import { Effect } from "effect"
import { Hono, type Context, type ErrorHandler, type Next } from "hono"
import { HTTPException } from "hono/http-exception"
import { Unauthenticated, ValidationFailed } from "../../core/shared/errors.ts"
import { Cause, Exit } from "effect"
import { Tokens } from "../../core/auth/tokens.ts"
import { ReadsFreshFrom } from "../../core/ports/read-freshness.ts"
import { isSharedManual } from "../clock/clocks.ts"
import type { HttpDeps } from "./http-deps.ts"
import type { AppEnv } from "./app-env.ts"
import { failureBody } from "./envelope.ts"
import { requestBodies } from "./request-body.ts"
import { isAppError, toErrorResponse } from "./error-table.ts"
import { authRoutes } from "./routes/auth.ts"
import { authenticating, defectResponse, exitResponse, makeRun } from "./run.ts"
import { operatorRoutes } from "./routes/operator.ts"
import { adminAuth } from "./admin-auth.ts"
import { requestObserver } from "../observability/http-observer.ts"
import { withRequest } from "../observability/request-context.ts"
import { Telemetry } from "../observability/telemetry.ts"
import { docsRoutes } from "./routes/docs.ts"
import { metricsRoutes } from "./routes/metrics.ts"
import { bearerChallenge, tokenResponseHeaders } from "./oauth-headers.ts"
import { answeredWith, edgeFetch, edgeOf, nodeBindings } from "./edge.ts"
import { requestIds } from "./request-id.ts"

/** The token endpoint: its answers carry no-store headers (oauth-headers.ts). */
const TOKEN_PATH = "/auth/accessToken"

/** The routes whose bodies may be large: a member's face (10 MB as base64) and the manifest. */
const LARGE_BODY_PATHS = /^\/(?:partner\/members\/[^/]+\/credentials|admin\/v1\/manifest)\/?$/
/**
 * Every other body is at most 1 MiB (or KEYSPACE_MAX_BODY_BYTES when lower): the largest of them
 * (500 attendees) is tens of kilobytes, and the parse of a crafted 15 MiB body held the event
 * loop for seconds, even on the token endpoint, which anyone may call.
 */
export const SMALL_BODY_BYTES = 1024 * 1024
const bodyLimitOf = (path: string, maxBodyBytes: number): number =>
  LARGE_BODY_PATHS.test(path) ? maxBodyBytes : Math.min(SMALL_BODY_BYTES, maxBodyBytes)

/** Whether the request announces a body (Content-Length or Transfer-Encoding). */
const declaresBody = (request: Request, env: unknown): boolean => {
  const node = nodeBindings(env)
  if (node) return node.incoming.headers["content-length"] !== undefined || node.incoming.headers["transfer-encoding"] !== undefined
  return request.headers.has("content-length") || request.headers.has("transfer-encoding")
}

/**
 * Whether the body limit has nothing to do: a GET or HEAD that declares no body has nothing to
 * limit or drain, and asking for its body makes the Node adapter build a full undici Request.
 */
const skipsBodyLimit = (method: string, request: Request, env: unknown): boolean =>
  (method === "GET" || method === "HEAD") && !declaresBody(request, env)

/** A surface mounted under the bearer-token middleware (bookings, partner members, ...). */
export interface Surface {
  readonly path: string
  readonly routes: Hono<AppEnv>
}

export interface AppParts {
  /** Routes that need a bearer token (spec endpoints). */
  readonly surfaces?: readonly Surface[]
  /** Extra operator routes under /admin/v1 (admin token checked already). */
  readonly operator?: readonly Surface[]
  /** Routes with no auth at all (the sandbox payment page). */
  readonly public?: readonly Surface[]
}

/** How a thrown error is logged. */
const detailOf = (err: unknown): unknown => (err instanceof Error ? { name: err.name, message: err.message, stack: err.stack } : String(err))

/**
 * The one Hono app every runtime serves: its `fetch` is the edge (adapters/http/edge.ts:
 * request id, request line and metrics), which hands each request to one of two apps with the
 * same routes: `routes` alone for a GET or HEAD that declares no body, `limited` (the body
 * limit and the token endpoint's headers first) for every other request.
 */
export const makeApp = (s: HttpDeps, parts: AppParts = {}) => {
  const routes = new Hono<AppEnv>()

  // The runtime is built before the app: its telemetry is read once here, not per request.
  const telemetry = s.runtime.runSync(Effect.service(Telemetry))
  const onError: ErrorHandler<AppEnv> = (err, c) => {
    answeredWith(c, err)
    if (isAppError(err)) {
      const { status, body, headers } = toErrorResponse(err)
      for (const [k, v] of Object.entries(headers)) c.header(k, v)
      return c.json(body, status)
    }
    if (err instanceof HTTPException && err.status < 500) {
      const e = new ValidationFailed({ messages: [err.message || "bad request"] })
      const { body } = toErrorResponse(e)
      return c.json(body, err.status === 413 ? 413 : 400)
    }
    return defectResponse(s, c, err, () => detailOf(err))
  }

  // Oversized bodies refused while streaming; any other body read to its end before the
  // answer, so keep-alive connections stay usable (request-body.ts).
  const bodies = requestBodies(
    (c) => bodyLimitOf(c.req.path, s.config.maxBodyBytes),
    (c) => c.json(failureBody("SV001", ["body: request body is too large"]), 413),
  )
  // The body limit as its own middleware level would do it: a refusal becomes the answer, a
  // failure goes through the app's error handler.
  const limitBody = async (c: Context<AppEnv>, next: Next): Promise<void> => {
    try {
      const res = await bodies(c, next)
      if (res && !c.finalized) c.res = res
    } catch (err) {
      if (!(err instanceof Error)) throw err
      c.res = await onError(err, c)
    }
  }
  // What runs before the routes of `limited`: the token endpoint's no-store headers around the
  // body limit (so a refused oversized token request is not cacheable either), and the body
  // limit for any request that may carry a body (skipsBodyLimit: the edge sends the others to
  // `routes`, unless they ask for the token endpoint).
  const beforeRoutes = (c: Context<AppEnv>, next: Next): Promise<unknown> => {
    const limited: Next = skipsBodyLimit(c.req.method, c.req.raw, c.env) ? next : () => limitBody(c, next)
    return c.req.path === TOKEN_PATH ? tokenResponseHeaders(c, limited) : limited()
  }

  routes.get("/healthz", (c) => c.json({ status: "ok" }))
  // A scrape's own log lines (a failed gauge read) carry its request id like any other.
  routes.route("/", metricsRoutes((c) => s.runtime.runPromise(withRequest(telemetry.scrape, edgeOf(c).requestId, edgeOf(c).span))))
  routes.route("/", docsRoutes(s.config.publicUrl, () => routes.routes))
  // Every API request (not health, metrics, docs: registered above) runs on the deployment's
  // clock as it is now, whichever process another request advanced it on.
  const clock = s.clock
  if (isSharedManual(clock))
    routes.use(async (_c, next) => {
      await clock.refresh()
      await next()
    })
  // The token use cases, taken from the runtime once (the token endpoint and the bearer check).
  const tokens = s.runtime.runSync(Tokens)
  // A lost connection while checking credentials is 503 SV234, not SV004 (not for a rotation).
  const authSink = authenticating(s)
  routes.route("/auth", authRoutes({ run: makeRun(s.runtime, authSink), rotate: makeRun(s.runtime, s), tokens }))

  const admin = new Hono<AppEnv>()
  admin.use(bearerChallenge)
  admin.use(adminAuth(s.adminToken))
  admin.route("/", operatorRoutes(s))
  for (const surface of parts.operator ?? []) admin.route(surface.path, surface.routes)
  routes.route("/admin/v1", admin)

  for (const surface of parts.public ?? []) routes.route(surface.path, surface.routes)

  // The bearer middleware guards each spec surface, so unknown paths still answer 404 SV005.
  // A kept token is checked without entering the runtime (Tokens.authenticateHeld); any other
  // takes one runtime entry (Tokens.authenticate, which looks it up). A refusal is thrown so
  // bearerChallenge sees it as c.error (error="invalid_token").
  for (const surface of parts.surfaces ?? []) {
    const guarded = new Hono<AppEnv>()
    guarded.use(bearerChallenge)
    guarded.use(async (c, next) => {
      const header = c.req.header("authorization")
      const arrivedAt = edgeOf(c).arrivedAt
      let principal: Awaited<ReturnType<typeof tokens.authenticateHeld>>
      try {
        principal = await tokens.authenticateHeld(header, arrivedAt)
      } catch (e) {
        // The kept grants' freshness read met a lost connection: 503 SV234 too.
        return defectResponse(authSink, c, e, () => detailOf(e))
      }
      if (principal === undefined) {
        const exit = await s.runtime.runPromiseExit(Effect.provideService(tokens.authenticate(header), ReadsFreshFrom, arrivedAt))
        // A refusal is 401 (the bearer challenge reads it), a lost connection 503 SV234.
        if (Exit.isFailure(exit)) return exitResponse(authSink, c, exit, () => c.body(null))
        principal = exit.value
      }
      if (principal instanceof Unauthenticated) throw principal
      c.set("principal", principal)
      await next()
    })
    guarded.route("/", surface.routes)
    routes.route(surface.path, guarded)
  }

  const notFound = (c: Context<AppEnv>) => c.json(failureBody("SV005", `no route for ${c.req.method} ${c.req.path}`), 404)
  // `routes` takes its error handler after `limited` copied its routes: a sub-app with its own
  // handler has each route wrapped in one more compose level.
  const limited = new Hono<AppEnv>()
  limited.use((c, next) => beforeRoutes(c, next) as Promise<void>)
  limited.route("/", routes)
  for (const h of [limited, routes]) h.notFound(notFound).onError(onError)

  const observer = requestObserver({ logger: s.logger, metrics: s.metrics, tracer: telemetry.tracer })
  // The apps' own fetch, taken before `limited`'s becomes the edge.
  const toRoutes = { fetch: routes.fetch, router: routes.router }
  const toLimited = { fetch: limited.fetch, router: limited.router }
  limited.fetch = edgeFetch({
    observer,
    newRequestId: requestIds(),
    getPath: (request) => routes.getPath(request),
    choose: (method, path, request, node) =>
      path !== TOKEN_PATH && skipsBodyLimit(method, request, node) ? toRoutes : toLimited,
  })
  return limited
}

export type KeyspaceApp = ReturnType<typeof makeApp>
