import type { ContentfulStatusCode } from "hono/utils/http-status"
import type {
  BookingRuleViolated,
  IllegalTransition,
  SlotTaken,
  TooManyUnpaidHolds,
} from "../../core/booking/errors.ts"
import type {
  IdentityConflict,
  MemberOffboarded,
  SubjectNotAuthorized,
  SubjectUnresolved,
} from "../../core/member/errors.ts"
import type {
  AuthUnavailable,
  Forbidden,
  NotFound,
  RateLimited,
  StateConflict,
  Unauthenticated,
  UpstreamUnavailable,
  ValidationFailed,
} from "../../core/shared/errors.ts"
import type { Effect } from "effect"
import type { UseCases } from "../../core/use-cases.ts"
import { failureBody, type Envelope } from "./envelope.ts"

type FailureOf<F> = F extends (...args: never[]) => Effect.Effect<unknown, infer E, unknown>
  ? E
  : F extends Effect.Effect<unknown, infer E, unknown>
    ? E
    : never
type FailuresOf<Shape> = { [K in keyof Shape]: FailureOf<Shape[K]> }[keyof Shape]
export type ServiceFailures<S> = S extends { readonly Service: infer Shape } ? FailuresOf<Shape> : never

/** What the core's use cases declare they can fail with (core/use-cases.ts). */
export type UseCaseFailure = ServiceFailures<UseCases>

/** Failures found at the edge before a use case runs: decoding, authentication, partner scope. */
export type EdgeFailure = ValidationFailed | Unauthenticated | Forbidden | AuthUnavailable

/**
 * Every tagged error a request can end in: the use cases' failures, the edge's, and those
 * still thrown by Promise code not yet moved onto a use case. Adding a failure to a use case
 * without a row here fails to compile.
 */
export type AppError =
  | UseCaseFailure
  | EdgeFailure
  | ValidationFailed
  | BookingRuleViolated
  | Unauthenticated
  | SubjectUnresolved
  | Forbidden
  | SubjectNotAuthorized
  | NotFound
  | StateConflict
  | IllegalTransition
  | MemberOffboarded
  | IdentityConflict
  | SlotTaken
  | TooManyUnpaidHolds
  | RateLimited
  | AuthUnavailable
  | UpstreamUnavailable

interface Row<E> {
  readonly status: ContentfulStatusCode
  readonly code: string
  readonly message: (e: E) => string | readonly string[]
  readonly data?: (e: E) => unknown
}

/** Messages one answer names: a manifest of thousands of bad rows must not answer megabytes. */
export const MAX_MESSAGES_SHOWN = 1_000

const atMostShown = (messages: readonly string[]): readonly string[] =>
  messages.length <= MAX_MESSAGES_SHOWN
    ? messages
    : [...messages.slice(0, MAX_MESSAGES_SHOWN), `and ${messages.length - MAX_MESSAGES_SHOWN} more violations`]

/** One row per failure tag: a missing row or a row for a tag nobody raises does not compile. */
export type RowsFor<E extends { readonly _tag: string }> = { readonly [K in E["_tag"]]: Row<Extract<E, { _tag: K }>> }
type Table = RowsFor<AppError>

/** THE tag -> HTTP status + spec code table (spec, Errors). */
export const errorTable: Table = {
  ValidationFailed: { status: 400, code: "SV001", message: (e) => atMostShown(e.messages) },
  BookingRuleViolated: { status: 400, code: "SV001", message: (e) => atMostShown(e.messages) },
  Unauthenticated: { status: 401, code: "SV002", message: (e) => e.reason },
  SubjectUnresolved: { status: 401, code: "SV223", message: () => "subject could not be resolved" },
  Forbidden: { status: 403, code: "SV003", message: (e) => e.reason },
  SubjectNotAuthorized: { status: 403, code: "SV221", message: (e) => e.reason },
  NotFound: { status: 404, code: "SV005", message: (e) => `${e.entity} not found` },
  StateConflict: { status: 409, code: "SV006", message: (e) => e.reason },
  IllegalTransition: {
    status: 409,
    code: "SV006",
    message: (e) => `cannot ${e.command} a booking that is ${e.from}`,
    data: (e) => ({ status: e.from }),
  },
  MemberOffboarded: { status: 409, code: "SV006", message: () => "member is offboarded" },
  IdentityConflict: {
    status: 409,
    code: "SV006",
    message: (e) => `identity conflict on ${e.conflictKey}`,
    data: (e) => ({
      conflictKey: e.conflictKey,
      ...(e.linkedExternalUserId === undefined ? {} : { linkedExternalUserId: e.linkedExternalUserId }),
    }),
  },
  SlotTaken: { status: 409, code: "SV012", message: () => "the time slot is already reserved" },
  TooManyUnpaidHolds: {
    status: 429,
    code: "SV040",
    message: (e) => `at most ${e.limit} unpaid bookings may be held at once; pay or cancel one first`,
    data: (e) => ({ limit: e.limit }),
  },
  RateLimited: {
    status: 429,
    code: "SV036",
    message: () => "rate limit exceeded",
    data: (e) => ({ retryAfterSeconds: e.retryAfterSeconds }),
  },
  AuthUnavailable: { status: 503, code: "SV234", message: (e) => e.reason },
  UpstreamUnavailable: { status: 503, code: "SV004", message: (e) => e.reason },
}

export const isAppError = (e: unknown): e is AppError =>
  typeof e === "object" && e !== null && "_tag" in e && Object.hasOwn(errorTable, (e as AppError)._tag)

export const toErrorResponse = (
  e: AppError,
): { status: ContentfulStatusCode; body: Envelope<unknown>; headers: Record<string, string> } => {
  const row = errorTable[e._tag] as Row<AppError>
  const headers: Record<string, string> =
    e._tag === "RateLimited"
      ? { "Retry-After": String(Math.max(1, Math.ceil(e.retryAfterSeconds))) }
      : e._tag === "UpstreamUnavailable" || e._tag === "AuthUnavailable"
        ? { "Retry-After": "1" }
        : {}
  return { status: row.status, body: failureBody(row.code, row.message(e), row.data?.(e)), headers }
}

export const INTERNAL_ERROR = { status: 500 as const, code: "SV004" }
