import { Schema } from "effect"
import { ExternalUserId } from "./partner-requests.ts"

// U+0000 is refused for every body at decode time (adapters/http/validation.ts).
const NonEmpty = Schema.String.check(Schema.isMinLength(1))

export const GrantType = Schema.Literals([
  "app_credentials",
  "refresh_token",
  "act_as",
  "urn:ietf:params:oauth:grant-type:token-exchange",
])

export const AppCredentialsGrant = Schema.Struct({
  grant_type: Schema.Literal("app_credentials"),
  app_id: NonEmpty,
  app_secret: NonEmpty,
})

export const RefreshTokenGrant = Schema.Struct({
  grant_type: Schema.Literal("refresh_token"),
  refresh_token: NonEmpty,
})

export const ActAsGrant = Schema.Struct({
  grant_type: Schema.Literals(["act_as", "urn:ietf:params:oauth:grant-type:token-exchange"]),
  app_id: NonEmpty,
  app_secret: NonEmpty,
  // The partner routes' rule: a member act_as creates must be reachable there.
  subject: ExternalUserId,
  subject_type: Schema.optionalKey(Schema.Literals(["external_user_id", "keyspace_member_id"])),
})

/** Selects the grant shape first, so each shape reports its own missing fields. */
export const TokenRequestHead = Schema.Struct({ grant_type: GrantType })

/**
 * The fields a grant may carry, each checked when present: with a grant_type no shape can be
 * chosen by, they are reported with it (one message per violated constraint, not only the first).
 */
export const TokenRequestFields = Schema.Struct({
  app_id: Schema.optionalKey(Schema.String),
  app_secret: Schema.optionalKey(Schema.String),
  refresh_token: Schema.optionalKey(Schema.String),
  subject: Schema.optionalKey(Schema.String),
  subject_type: Schema.optionalKey(Schema.Literals(["external_user_id", "keyspace_member_id"])),
})
