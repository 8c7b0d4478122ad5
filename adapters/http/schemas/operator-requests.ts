import { Schema } from "effect"
import { Characters, hasCharacters } from "../../../core/shared/characters.ts"
import { OffsetDateTime } from "./text-rules.ts"

/** `{minutes}` or `{to}` (operator contract): exactly one, so an ambiguous body is refused, not half read. */
export const ClockAdvanceRequest = Schema.Struct({
  minutes: Schema.optionalKey(Schema.Number.check(Schema.isInt(), Schema.isGreaterThanOrEqualTo(0))),
  to: Schema.optionalKey(OffsetDateTime),
}).check(
  Schema.makeFilter((b) => (b.minutes === undefined) !== (b.to === undefined) || "give exactly one of minutes and to"),
)

/** The app_id of the token grant (manifest `apps[].appId`), as a path parameter. */
export const AppIdParam = Schema.Struct({
  appId: Schema.String.check(
    hasCharacters(1, 128),
    // A percent-encoded NUL reached PostgreSQL (a 500): no app id holds a control character.
    Schema.makeFilter((id: string) => (/\p{Cc}/u.test(id) ? "must not contain control characters" : undefined)),
  ),
})

/** Body of POST /admin/v1/apps/{appId}/secret: empty (a secret is generated) or a chosen secret. */
export const RotateSecretRequest = Schema.Struct({
  appSecret: Schema.optionalKey(Characters(8, 256)),
})
