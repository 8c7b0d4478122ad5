import { Schema } from "effect"

/**
 * The webhook delivery envelope (spec "Webhook delivery envelope") and the closed list of event
 * type names a webhook registration (manifest) may subscribe to.
 */

export const BOOKING_EVENT_TYPES = [
  "ROOM_BOOK",
  "ROOM_MODIFY",
  "ROOM_CANCEL",
  "ROOM_REMINDER",
  "ROOM_NO_SHOW_WARNING",
  "ROOM_ENDING_SOON",
  "DESK_BOOK",
  "DESK_MODIFY",
  "DESK_CANCEL",
  "DESK_REMINDER",
  "DESK_NO_SHOW_WARNING",
  "DESK_ENDING_SOON",
] as const

/** Only these three visitor types are emitted. */
export const VISITOR_EVENT_TYPES = [
  "VMS_INVITE_SENT",
  "VMS_VISITOR_CHECKED_IN",
  "VMS_HOST_CANCELLED",
] as const

/** Named by the spec but reserved: never delivered, so never subscribable. */
export const RESERVED_EVENT_TYPES = ["VMS_VISITOR_CHECKED_OUT", "VMS_HOST_NOTIFICATION"] as const

export const EVENT_TYPES = [...BOOKING_EVENT_TYPES, ...VISITOR_EVENT_TYPES] as const

/** Schema for one subscribable event type name, for manifest validation. */
export const EventType = Schema.Literals(EVENT_TYPES)
export type EventType = typeof EventType.Type

export const BookingEventTypeName = Schema.Literals(BOOKING_EVENT_TYPES)
export const VisitorEventTypeName = Schema.Literals(VISITOR_EVENT_TYPES)

export const ENVELOPE_VERSION = 1

export interface Envelope<T extends string = EventType, D = Readonly<Record<string, unknown>>> {
  /** Unique per delivery; equals the X-Service-Delivery header (the receiver's dedupe key). */
  readonly id: string
  readonly type: T
  readonly version: typeof ENVELOPE_VERSION
  /** ISO 8601. */
  readonly occurredAt: string
  readonly projectId: string
  readonly data: D
}

/** occurredAt is epoch milliseconds in the core; it leaves as ISO 8601 UTC. */
export const makeEnvelope = <T extends string, D>(input: {
  readonly id: string
  readonly type: T
  readonly occurredAt: number
  readonly projectId: string
  readonly data: D
}): Envelope<T, D> => ({
  id: input.id,
  type: input.type,
  version: ENVELOPE_VERSION,
  occurredAt: new Date(input.occurredAt).toISOString(),
  projectId: input.projectId,
  data: input.data,
})
