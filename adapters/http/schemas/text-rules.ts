import { Result, Schema } from "effect"
import { parseOffsetDateTime } from "../../../core/shared/local-time.ts"

/**
 * ISO 8601 with an explicit offset (spec convention 3); seconds are truncated later. The format
 * goes into the OpenAPI document (query parameters and request bodies).
 */
export const OffsetDateTime = Schema.String.annotate({ format: "date-time" }).check(
  Schema.makeFilter((text: string) => {
    const r = parseOffsetDateTime(text)
    return Result.isSuccess(r) ? undefined : r.failure
  }),
)

/** Query integers arrive as text; their bounds are kept so the document still says integer. */
const queryIntegers = new WeakMap<object, { readonly minimum: number; readonly maximum: number }>()

/** A query integer within [min, max], given as a decimal string. */
export const QueryInt = (min: number, max: number) => {
  const schema = Schema.String.check(
    Schema.makeFilter(
      (text: string) =>
        (/^\d{1,20}$/.test(text) && Number(text) >= min && Number(text) <= max) ||
        `must be an integer between ${min} and ${max}`,
    ),
  )
  queryIntegers.set(schema, { minimum: min, maximum: max })
  return schema
}

/** The bounds of a QueryInt field (also inside optionalKey), for the OpenAPI document. */
export const queryIntegerBounds = (
  field: unknown,
): { readonly minimum: number; readonly maximum: number } | undefined => {
  if ((typeof field !== "object" && typeof field !== "function") || field === null) return undefined
  return queryIntegers.get(field) ?? queryIntegerBounds((field as { readonly schema?: unknown }).schema)
}
