import { Hono } from "hono"
import { HTTPException } from "hono/http-exception"
import { ValidationFailed } from "../../core/shared/errors.ts"
import { authenticateBearer } from "../auth/token-service.ts"
import { isSharedManual } from "../clock/shared-clock.ts"
import type { Services } from "../runtime/services.ts"
import type { AppEnv } from "./app-env.ts"
import { failureBody } from "./envelope.ts"
import { requestBodies } from "./request-body.ts"
import { INTERNAL_ERROR, isAppError, toErrorResponse } from "./error-table.ts"
import { authRoutes, type ActAsHandler } from "./routes/auth.ts"
import { operatorRoutes } from "./routes/operator.ts"
import { adminAuth } from "./admin-auth.ts"
import { observeRequests } from "../observability/http-observer.ts"
import { docsRoutes } from "./routes/docs.ts"
import { metricsRoutes } from "./routes/metrics.ts"
import { bearerChallenge, tokenResponseHeaders } from "./oauth-headers.ts"

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
  readonly actAs?: ActAsHandler
}

/** The one Hono app every runtime serves. */
export const makeApp = (s: Services, parts: AppParts = {}) => {
  const app = new Hono<AppEnv>()

  app.use(async (c, next) => {
    const requestId = c.req.header("x-request-id")?.slice(0, 64) || crypto.randomUUID()
    c.set("requestId", requestId)
    c.set("logger", s.logger.child({ requestId }))
    c.header("X-Request-Id", requestId)
    await next()
  })
  // One request log line and the request metrics per request; the request id on every line.
  app.use(
    observeRequests({ logger: s.logger, metrics: s.metrics, tracer: s.tracer, requestId: (c) => c.get("requestId") }),
  )
  // Before the body limit, so a refused oversized token request is not cacheable either.
  app.use("/auth/accessToken", tokenResponseHeaders)
  // Oversized bodies refused while streaming; any other body read to its end before the
  // answer, so keep-alive connections stay usable (request-body.ts).
  app.use(requestBodies(s.config.maxBodyBytes, (c) => c.json(failureBody("SV001", ["body: request body is too large"]), 413)))

  app.get("/healthz", (c) => c.json({ status: "ok" }))
  app.route("/", metricsRoutes(s))
  app.route("/", docsRoutes(s, () => app.routes))
  // Every API request (not health, metrics, docs: registered above) runs on the deployment's
  // clock as it is now, whichever process another request advanced it on.
  const clock = s.clock
  if (isSharedManual(clock))
    app.use(async (_c, next) => {
      await clock.refresh()
      await next()
    })
  app.route("/auth", authRoutes(s, parts.actAs))

  const admin = new Hono<AppEnv>()
  admin.use(bearerChallenge)
  admin.use(adminAuth(s))
  admin.route("/", operatorRoutes(s))
  for (const surface of parts.operator ?? []) admin.route(surface.path, surface.routes)
  app.route("/admin/v1", admin)

  for (const surface of parts.public ?? []) app.route(surface.path, surface.routes)

  // The bearer middleware guards each spec surface, so unknown paths still answer 404 SV005.
  for (const surface of parts.surfaces ?? []) {
    const guarded = new Hono<AppEnv>()
    guarded.use(bearerChallenge)
    guarded.use(async (c, next) => {
      c.set("principal", await authenticateBearer(s, c.req.header("authorization")))
      await next()
    })
    guarded.route("/", surface.routes)
    app.route(surface.path, guarded)
  }

  app.notFound((c) => c.json(failureBody("SV005", `no route for ${c.req.method} ${c.req.path}`), 404))

  app.onError((err, c) => {
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
    const logger = c.get("logger") ?? s.logger
    logger.log("error", "unhandled error", {
      method: c.req.method,
      path: c.req.path,
      error: err instanceof Error ? { name: err.name, message: err.message, stack: err.stack } : String(err),
    })
    return c.json(failureBody(INTERNAL_ERROR.code, "internal error"), INTERNAL_ERROR.status)
  })
  return app
}

export type KeyspaceApp = ReturnType<typeof makeApp>
