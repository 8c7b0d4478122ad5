import { Schema } from "effect"
import { visitorDataSchemas } from "../../../core/events/visitor-payloads.ts"
import { ObjectId } from "../../../core/shared/ids.ts"
import { QueryInt } from "./text-rules.ts"

/** Request shapes of the operator webhook routes (operator contract, section 2). */

export const IdParam = Schema.Struct({ id: ObjectId })
export const ProjectIdParam = Schema.Struct({ projectId: ObjectId })


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
  // The document names the types (a generated client can offer them); the decoding above refuses others.
  type: Schema.String.annotate({ description: `One of ${Object.keys(visitorDataSchemas).join(", ")}.` }).check(
    Schema.makeFilter(() => undefined, { toJsonSchema: () => ({ enum: Object.keys(visitorDataSchemas) }) }),
  ),
  data: Schema.Record(Schema.String, Schema.Unknown),
})
