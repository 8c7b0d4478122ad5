import { Schema } from "effect"

/**
 * Errors every surface can raise. Domain-specific errors live next to their aggregate
 * (core/booking/errors.ts, core/member/errors.ts). The core never knows HTTP: the one
 * tag -> status/code table is adapters/http/error-table.ts.
 */

/** A request or a business rule was violated; one message per violated constraint. */
export class ValidationFailed extends Schema.TaggedError<ValidationFailed>()("ValidationFailed", {
  messages: Schema.Array(Schema.String),
}) {}

export class Unauthenticated extends Schema.TaggedError<Unauthenticated>()("Unauthenticated", {
  reason: Schema.String,
}) {}

export class Forbidden extends Schema.TaggedError<Forbidden>()("Forbidden", {
  reason: Schema.String,
}) {}

export class NotFound extends Schema.TaggedError<NotFound>()("NotFound", {
  entity: Schema.String,
  id: Schema.String,
}) {}

/** The request contradicts the current state of its target (generic state conflict). */
export class StateConflict extends Schema.TaggedError<StateConflict>()("StateConflict", {
  reason: Schema.String,
}) {}

export class RateLimited extends Schema.TaggedError<RateLimited>()("RateLimited", {
  retryAfterSeconds: Schema.Number,
}) {}

export class AuthUnavailable extends Schema.TaggedError<AuthUnavailable>()("AuthUnavailable", {
  reason: Schema.String,
}) {}

export class UpstreamUnavailable extends Schema.TaggedError<UpstreamUnavailable>()(
  "UpstreamUnavailable",
  { reason: Schema.String },
) {}
