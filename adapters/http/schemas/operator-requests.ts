import { Schema } from "effect"
import { OffsetDateTime } from "./text-rules.ts"

export const ClockAdvanceRequest = Schema.Union([
  Schema.Struct({ minutes: Schema.Number.check(Schema.isInt(), Schema.isGreaterThanOrEqualTo(0)) }),
  Schema.Struct({ to: OffsetDateTime }),
])
