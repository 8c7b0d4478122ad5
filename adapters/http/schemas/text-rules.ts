import { Result, Schema } from "effect"
import { parseOffsetDateTime } from "../../../core/shared/local-time.ts"

/** ISO 8601 with an explicit offset (spec convention 3); seconds are truncated later. */
export const OffsetDateTime = Schema.String.check(
  Schema.makeFilter((text: string) => {
    const r = parseOffsetDateTime(text)
    return Result.isSuccess(r) ? undefined : r.failure
  }),
)

