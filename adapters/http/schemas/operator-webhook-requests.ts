import { Schema } from "effect"
import { ObjectId } from "../../../core/shared/ids.ts"

/** Request shapes of the operator webhook routes (operator contract, section 2). */

export const IdParam = Schema.Struct({ id: ObjectId })
export const ProjectIdParam = Schema.Struct({ projectId: ObjectId })

/** A query integer within [min, max], given as a decimal string. */
const QueryInt = (min: number, max: number) =>
  Schema.String.check(
    Schema.makeFilter(
      (text: string) =>
        (/^\d{1,9}$/.test(text) && Number(text) >= min && Number(text) <= max) ||
        `must be an integer between ${min} and ${max}`,
    ),
  )

/** Same page limits as the spec's list endpoints: limit 0-3000, offset >= 0. */
export const DeliveriesQuery = Schema.Struct({
  limit: Schema.optionalKey(QueryInt(0, 3000)),
  offset: Schema.optionalKey(QueryInt(0, 1_000_000_000)),
})

/**
 * Body of POST /projects/{projectId}/visitor-events. The type is checked by
 * core/events/visitor-payloads.ts (it names the reserved types in its message), so here it is
 * only a string, and data an object.
 */
export const VisitorEventRequest = Schema.Struct({
  type: Schema.String,
  data: Schema.Record(Schema.String, Schema.Unknown),
})
