import { Cause, Effect, Exit, type ManagedRuntime } from "effect"
import { ReadsFreshFrom } from "../../core/ports/read-freshness.ts"
import type { Context } from "hono"
import type { Logger } from "../observability/logger.ts"
import { withRequest } from "../observability/request-context.ts"
import type { AppEnv } from "./app-env.ts"
import { answeredWith, edgeOf } from "./edge.ts"
import { failureBody } from "./envelope.ts"
import { INTERNAL_ERROR, isAppError, toErrorResponse, type AppError } from "./error-table.ts"
import { AuthUnavailable, UpstreamUnavailable, ValidationFailed } from "../../core/shared/errors.ts"

/** The 400's message when the database refused a value no schema named. */
export const REFUSED_VALUE_MESSAGE = "the request holds a value the database cannot take (a character, a length or a number out of its range)"

/** Where an answer rendered from a defect is logged, and which faults a retry may clear (HttpDeps). */
export interface DefectSink {
  readonly logger: Logger
  /** A fault outside the request (a lost database connection): 503 SV004 with Retry-After, not 500. */
  readonly transientFault: (e: unknown) => boolean
  /** A value of the request the database refused (adapters/postgres/sqlstate.ts): 400 SV001, not 500. */
  readonly refusedValue: (e: unknown) => boolean
  /**
   * What a transient fault is answered as: 503 SV004 by default; 503 SV234 where it struck the
   * caller's authentication (`authenticating`), so a client keeps the token it was not refused.
   */
  readonly unavailable?: () => AppError
}

/** The sink of an authentication: a lost connection is 503 SV234, the token not rejected. */
export const authenticating = <S extends DefectSink>(s: S): S => ({ ...s, unavailable: authUnavailable })

const authUnavailable = (): AppError =>
  new AuthUnavailable({ reason: "authentication is temporarily unavailable; the token was not rejected: retry the request" })

/** The log with the request's id (the child covers lines written outside the request context). */
const requestLogger = (s: DefectSink, c: Context<AppEnv>): Logger => {
  const requestId = edgeOf(c).requestId
  return requestId ? s.logger.child({ requestId }) : s.logger
}

/**
 * The answer of an unexpected error: 503 SV004 when `transientFault` says a retry may clear it,
 * 400 SV001 when the database refused a value the request carried (`refusedValue`), else 500
 * SV004; each logged with the request id (the child covers errors raised outside the request
 * context), nothing internal in the body.
 */
export const defectResponse = (s: DefectSink, c: Context<AppEnv>, error: unknown, detail: () => unknown): Response => {
  const logger = requestLogger(s, c)
  if (s.transientFault(error)) {
    logger.log("warn", "database connection lost", { method: c.req.method, path: c.req.path, error: detail() })
    return errorResponse(c, s.unavailable?.() ?? new UpstreamUnavailable({ reason: "the database connection was lost; retry the request" }))
  }
  if (s.refusedValue(error)) {
    // Logged as an error: a schema let the value through (or the server computed it).
    logger.log("error", "the database refused a value of the request", { method: c.req.method, path: c.req.path, error: detail() })
    return errorResponse(c, new ValidationFailed({ messages: [REFUSED_VALUE_MESSAGE] }))
  }
  logger.log("error", "unhandled error", { method: c.req.method, path: c.req.path, error: detail() })
  return c.json(failureBody(INTERNAL_ERROR.code, "internal error"), INTERNAL_ERROR.status)
}

/**
 * The one bridge from a use case's Exit to an HTTP answer: success goes to `onSuccess`, a typed
 * failure to its row of the error table, a defect to `defectResponse`.
 */
export type Run<R> = <A, E extends AppError>(
  c: Context<AppEnv>,
  effect: Effect.Effect<A, E, R>,
  onSuccess: (a: A) => Response | Promise<Response>,
) => Promise<Response>

/** The error table's answer for a typed failure (also for failures found at the edge). */
export const errorResponse = (c: Context<AppEnv>, e: AppError): Response => {
  const { status, body, headers } = toErrorResponse(e)
  // As for a thrown error: the observer counts RateLimited, the bearer challenge reads it.
  answeredWith(c, e)
  for (const [k, v] of Object.entries(headers)) c.header(k, v)
  return c.json(body, status)
}

/** The use case's Exit, run fresh from the request's arrival, in the request's context. */
export const runExit = <R, A, E>(
  runtime: ManagedRuntime.ManagedRuntime<R, never>,
  c: Context<AppEnv>,
  effect: Effect.Effect<A, E, R>,
): Promise<Exit.Exit<A, E>> => {
  const { requestId, arrivedAt, span } = edgeOf(c)
  return runtime.runPromiseExit(withRequest(Effect.provideService(effect, ReadsFreshFrom, arrivedAt), requestId, span))
}

/** ManagedRuntime's defect once `dispose` has begun (effect/ManagedRuntime). */
const RUNTIME_DISPOSED = "ManagedRuntime disposed"

/**
 * A cause that only says the runtime stopped under the work: interrupted by its disposal, or
 * started after the disposal began. Nothing is wrong with the work itself.
 */
export const stoppedUnder = (cause: Cause.Cause<unknown>): boolean =>
  Cause.hasInterruptsOnly(cause) || cause.reasons.some((r) => Cause.isDieReason(r) && r.defect === RUNTIME_DISPOSED)

/** The HTTP answer of a use case's Exit (see `Run`). */
export const exitResponse = <A, E extends AppError>(
  s: DefectSink,
  c: Context<AppEnv>,
  exit: Exit.Exit<A, E>,
  onSuccess: (a: A) => Response | Promise<Response>,
): Response | Promise<Response> => {
  if (Exit.isSuccess(exit)) return onSuccess(exit.value)
  const failure = Cause.findErrorOption(exit.cause)
  if (failure._tag === "Some" && isAppError(failure.value)) return errorResponse(c, failure.value)
  // The runtime is being disposed (a stop cut the request at its grace period's end). Nothing
  // is wrong in the request: 503, retryable, and a warning rather than a stack.
  if (stoppedUnder(exit.cause)) {
    requestLogger(s, c).log("warn", "request interrupted: the server is stopping", { method: c.req.method, path: c.req.path })
    return errorResponse(c, new UpstreamUnavailable({ reason: "the server is stopping; retry the request" }))
  }
  return defectResponse(s, c, Cause.squash(exit.cause), () => Cause.pretty(exit.cause))
}

export const makeRun =
  <R>(runtime: ManagedRuntime.ManagedRuntime<R, never>, sink: DefectSink): Run<R> =>
  async (c, effect, onSuccess) =>
    exitResponse(sink, c, await runExit(runtime, c, effect), onSuccess)
