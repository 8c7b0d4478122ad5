import { Schema } from "effect"
import { OffsetDateTime } from "./text-rules.ts"

export const ClockAdvanceRequest = Schema.Union([
  Schema.Struct({ minutes: Schema.Number.check(Schema.isInt(), Schema.isGreaterThanOrEqualTo(0)) }),
  Schema.Struct({ to: OffsetDateTime }),
])

/** The app_id of the token grant (manifest `apps[].appId`), as a path parameter. */
export const AppIdParam = Schema.Struct({
  appId: Schema.String.check(Schema.isMinLength(1), Schema.isMaxLength(128)),
})

/** Body of POST /admin/v1/apps/{appId}/secret: empty (a secret is generated) or a chosen secret. */
export const RotateSecretRequest = Schema.Struct({
  appSecret: Schema.optionalKey(Schema.String.check(Schema.isMinLength(8), Schema.isMaxLength(256))),
})
