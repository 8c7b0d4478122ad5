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
import { INTERNAL_ERROR, isAppError, toErrorResponse } from "./error-table.ts"
import { authRoutes } from "./routes/auth.ts"
import { makeRun } from "./run.ts"
import { operatorRoutes } from "./routes/operator.ts"
import { adminAuth } from "./admin-auth.ts"
import { observeRequests } from "../observability/http-observer.ts"
import { withRequest } from "../observability/request-context.ts"
import { Telemetry } from "../observability/telemetry.ts"
import { docsRoutes } from "./routes/docs.ts"
import { metricsRoutes } from "./routes/metrics.ts"
import { bearerChallenge, tokenResponseHeaders } from "./oauth-headers.ts"

/** What @hono/node-server passes as `c.env` (typed structurally: no node: import here). */
interface NodeBindings {
  readonly incoming: { readonly headers: Record<string, string | string[] | undefined> }
  readonly outgoing: { setHeader: (name: string, value: string) => unknown }
}

/** The token endpoint: its answers carry no-store headers (oauth-headers.ts). */
const TOKEN_PATH = "/auth/accessToken"

/** Whether the request announces a body (Content-Length or Transfer-Encoding). */
const declaresBody = (c: Context<AppEnv>): boolean => {
  const node = (c.env as NodeBindings | undefined)?.outgoing ? (c.env as NodeBindings) : undefined
  if (node) return node.incoming.headers["content-length"] !== undefined || node.incoming.headers["transfer-encoding"] !== undefined
  return c.req.header("content-length") !== undefined || c.req.header("transfer-encoding") !== undefined
}

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

/** The one Hono app every runtime serves. */
export const makeApp = (s: HttpDeps, parts: AppParts = {}) => {
  const app = new Hono<AppEnv>()

  // One request log line and the request metrics per request; the request id on every line.
  // The runtime is built before the app: its telemetry is read once here, not per request.
  const telemetry = s.runtime.runSync(Effect.service(Telemetry))
  const observe = observeRequests<AppEnv>({
    logger: s.logger,
    metrics: s.metrics,
    tracer: telemetry.tracer,
    requestId: (c) => c.get("requestId"),
    setSpan: (c, span) => c.set("span", span),
  })
  const onError: ErrorHandler<AppEnv> = (err, c) => {
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
    // The request id comes from the request context when there is one; the child covers errors
    // raised outside it. Built here only, not per request.
    const requestId = c.get("requestId")
    const logger = requestId ? s.logger.child({ requestId }) : s.logger
    logger.log("error", "unhandled error", {
      method: c.req.method,
      path: c.req.path,
      error: err instanceof Error ? { name: err.name, message: err.message, stack: err.stack } : String(err),
    })
    return c.json(failureBody(INTERNAL_ERROR.code, "internal error"), INTERNAL_ERROR.status)
  }

  // Oversized bodies refused while streaming; any other body read to its end before the
  // answer, so keep-alive connections stay usable (request-body.ts).
  const bodies = requestBodies(s.config.maxBodyBytes, (c) => c.json(failureBody("SV001", ["body: request body is too large"]), 413))
  // The body limit as its own middleware level would do it: a refusal becomes the answer, a
  // failure goes through the app's error handler.
  const limitBody = async (c: Context<AppEnv>, next: Next): Promise<void> => {
    try {
      const res = await bodies(c, next)
      if (res && !c.finalized) c.res = res
    } catch (err) {
      if (!(err instanceof Error)) throw err
      c.error = err
      c.res = await onError(err, c)
    }
  }
  // What runs between the observer and the routes: the token endpoint's no-store headers
  // around the body limit (so a refused oversized token request is not cacheable either), and
  // the body limit for any request that may carry a body. A GET or HEAD that declares none has
  // nothing to limit or drain, and asking for its body makes the Node adapter build a full
  // undici Request (most GETs take this path).
  const beforeRoutes = (c: Context<AppEnv>, next: Next): Promise<unknown> => {
    const method = c.req.method
    const limited: Next = (method === "GET" || method === "HEAD") && !declaresBody(c) ? next : () => limitBody(c, next)
    return c.req.path === TOKEN_PATH ? tokenResponseHeaders(c, limited) : limited()
  }
  // Request id, observation, token headers and body limit run as one middleware: each
  // middleware level is an async step of Hono's compose (a closure and promises per request),
  // and this chain runs for every request (a third of a trivial route's cost over Hono's own).
  app.use((c, next) => {
    // On Node the adapter hands over the raw request and response: reading and writing the
    // header there avoids building a fetch Headers object for each (most of a trivial route's
    // cost). Other runtimes, and in-process `app.request`, take the portable path.
    const node = (c.env as NodeBindings | undefined)?.outgoing ? (c.env as NodeBindings) : undefined
    const sent = node ? node.incoming.headers["x-request-id"] : c.req.header("x-request-id")
    const requestId = (typeof sent === "string" ? sent.slice(0, 64) : "") || crypto.randomUUID()
    c.set("requestId", requestId)
    c.set("arrivedAt", performance.now())
    if (node) node.outgoing.setHeader("x-request-id", requestId)
    else c.header("X-Request-Id", requestId)
    return observe(c, () => beforeRoutes(c, next) as Promise<void>)
  })

  app.get("/healthz", (c) => c.json({ status: "ok" }))
  // A scrape's own log lines (a failed gauge read) carry its request id like any other.
  app.route("/", metricsRoutes((c) => s.runtime.runPromise(withRequest(telemetry.scrape, c.get("requestId"), c.get("span")))))
  app.route("/", docsRoutes(s.config.publicUrl, () => app.routes))
  // Every API request (not health, metrics, docs: registered above) runs on the deployment's
  // clock as it is now, whichever process another request advanced it on.
  const clock = s.clock
  if (isSharedManual(clock))
    app.use(async (_c, next) => {
      await clock.refresh()
      await next()
    })
  // The token use cases, taken from the runtime once (the token endpoint and the bearer check).
  const tokens = s.runtime.runSync(Tokens)
  app.route("/auth", authRoutes({ run: makeRun(s.runtime, s.logger), tokens }))

  const admin = new Hono<AppEnv>()
  admin.use(bearerChallenge)
  admin.use(adminAuth(s.adminToken))
  admin.route("/", operatorRoutes(s))
  for (const surface of parts.operator ?? []) admin.route(surface.path, surface.routes)
  app.route("/admin/v1", admin)

  for (const surface of parts.public ?? []) app.route(surface.path, surface.routes)

  // The bearer middleware guards each spec surface, so unknown paths still answer 404 SV005.
  // A kept token is checked without entering the runtime (Tokens.authenticateHeld); any other
  // takes one runtime entry (Tokens.authenticate, which looks it up). A refusal is thrown so
  // bearerChallenge sees it as c.error (error="invalid_token").
  for (const surface of parts.surfaces ?? []) {
    const guarded = new Hono<AppEnv>()
    guarded.use(bearerChallenge)
    guarded.use(async (c, next) => {
      const header = c.req.header("authorization")
      const arrivedAt = c.get("arrivedAt")
      let principal = await tokens.authenticateHeld(header, arrivedAt)
      if (principal === undefined) {
        const exit = await s.runtime.runPromiseExit(Effect.provideService(tokens.authenticate(header), ReadsFreshFrom, arrivedAt))
        if (Exit.isFailure(exit)) throw Cause.squash(exit.cause)
        principal = exit.value
      }
      if (principal instanceof Unauthenticated) throw principal
      c.set("principal", principal)
      await next()
    })
    guarded.route("/", surface.routes)
    app.route(surface.path, guarded)
  }

  app.notFound((c) => c.json(failureBody("SV005", `no route for ${c.req.method} ${c.req.path}`), 404))

  app.onError(onError)
  return app
}

export type KeyspaceApp = ReturnType<typeof makeApp>
