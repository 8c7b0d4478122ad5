import { Schema } from "effect"

export const ClockAdvanceRequest = Schema.Union([
  Schema.Struct({ minutes: Schema.Number.check(Schema.isInt(), Schema.isGreaterThanOrEqualTo(0)) }),
  Schema.Struct({
    to: Schema.String.check(
      Schema.isPattern(/^\d{4}-\d\d-\d\dT\d\d:\d\d(:\d\d(\.\d+)?)?(Z|[+-]\d\d:\d\d)$/i, {
        message: "must be an ISO 8601 date-time with an offset",
      }),
    ),
  }),
])
