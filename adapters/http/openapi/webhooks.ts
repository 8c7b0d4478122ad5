import { Schema } from "effect"
import type {
  BookData,
  CancelData,
  EndingSoonData,
  ModifyData,
  NoShowWarningData,
  ReminderData,
} from "../../../core/events/booking-payloads.ts"
import {
  BOOKING_EVENT_TYPES,
  ENVELOPE_VERSION,
  VISITOR_EVENT_TYPES,
} from "../../../core/events/envelope.ts"
import { visitorDataSchemas } from "../../../core/events/visitor-payloads.ts"

/**
 * Webhook payloads as OpenAPI `webhooks`. Visitor data schemas are the core's validating ones.
 * Booking data is built by plain functions in core/events/booking-payloads.ts, so its schemas
 * are declared here and tied to the builders' types by the compile-time checks below: a field
 * added to or removed from a builder type without updating its schema fails `tsc`.
 */

const Hm = Schema.String.annotate({ description: "Property-local HH:mm.", examples: ["09:30"] })
const base = {
  projectId: Schema.String,
  userId: Schema.String.annotate({ description: "The acting user (booking organizer)." }),
  timestamp: Schema.String.annotate({ format: "date-time", description: "Mirrors occurredAt." }),
  floorName: Schema.String,
}
const roomName = { roomName: Schema.String }
const deskName = { deskName: Schema.String }
const userName = { userName: Schema.optionalKey(Schema.String) }
const userEmail = { userEmail: Schema.optionalKey(Schema.String) }

const kinds = {
  BOOK: {
    bookingDate: Schema.String.annotate({ format: "date-time", description: "Start instant." }),
    startTime: Hm,
    endTime: Hm,
    attendees: Schema.optionalKey(Schema.Array(Schema.String)),
    ...userName,
    ...userEmail,
  },
  MODIFY: { oldStartTime: Hm, oldEndTime: Hm, newStartTime: Hm, newEndTime: Hm, ...userName },
  CANCEL: {
    bookingDate: Schema.String.annotate({ format: "date-time" }),
    cancelReason: Schema.optionalKey(
      Schema.Literals([
        "No-show \u2014 auto-cancelled by system",
        "Payment window lapsed \u2014 auto-cancelled by system",
      ]).annotate({ description: "Absent for a user or admin cancel." }),
    ),
    ...userName,
  },
  REMINDER: {
    startTime: Hm,
    endTime: Hm,
    minutesUntilStart: Schema.Number,
    ...userName,
    ...userEmail,
  },
  NO_SHOW_WARNING: {
    startTime: Hm,
    endTime: Hm,
    minutesUntilAutoCancel: Schema.Number,
    ...userName,
  },
  ENDING_SOON: { endTime: Hm, minutesUntilEnd: Schema.Number, ...userName },
} as const

const room = { ...base, ...roomName }
const desk = { ...base, ...deskName }

export const bookingDataSchemas = {
  ROOM_BOOK: Schema.Struct({ ...room, ...kinds.BOOK }),
  ROOM_MODIFY: Schema.Struct({ ...room, ...kinds.MODIFY }),
  ROOM_CANCEL: Schema.Struct({ ...room, ...kinds.CANCEL }),
  ROOM_REMINDER: Schema.Struct({ ...room, ...kinds.REMINDER }),
  ROOM_NO_SHOW_WARNING: Schema.Struct({ ...room, ...kinds.NO_SHOW_WARNING }),
  ROOM_ENDING_SOON: Schema.Struct({ ...room, ...kinds.ENDING_SOON }),
  DESK_BOOK: Schema.Struct({ ...desk, ...kinds.BOOK }),
  DESK_MODIFY: Schema.Struct({ ...desk, ...kinds.MODIFY }),
  DESK_CANCEL: Schema.Struct({ ...desk, ...kinds.CANCEL }),
  DESK_REMINDER: Schema.Struct({ ...desk, ...kinds.REMINDER }),
  DESK_NO_SHOW_WARNING: Schema.Struct({ ...desk, ...kinds.NO_SHOW_WARNING }),
  DESK_ENDING_SOON: Schema.Struct({ ...desk, ...kinds.ENDING_SOON }),
} satisfies Record<(typeof BOOKING_EVENT_TYPES)[number], Schema.Top>

// --- drift guard: schema types and builder types must have the same keys ---------------------
// `deskName?: never` on a room payload is not a real key: keys typed never/undefined are skipped.
type Keys<T> = T extends unknown
  ? { [K in keyof T]-?: [T[K]] extends [undefined] ? never : K }[keyof T]
  : never
type SameKeys<A, B> = [Exclude<Keys<A>, Keys<B>>, Exclude<Keys<B>, Keys<A>>] extends [never, never]
  ? true
  : false
type RoomOnly<T> = Extract<T, { roomName: string }>
const assertTrue = <T extends true>(): T | undefined => undefined
assertTrue<SameKeys<RoomOnly<BookData>, typeof bookingDataSchemas.ROOM_BOOK.Type>>()
assertTrue<SameKeys<RoomOnly<ModifyData>, typeof bookingDataSchemas.ROOM_MODIFY.Type>>()
assertTrue<SameKeys<RoomOnly<CancelData>, typeof bookingDataSchemas.ROOM_CANCEL.Type>>()
assertTrue<SameKeys<RoomOnly<ReminderData>, typeof bookingDataSchemas.ROOM_REMINDER.Type>>()
assertTrue<
  SameKeys<RoomOnly<NoShowWarningData>, typeof bookingDataSchemas.ROOM_NO_SHOW_WARNING.Type>
>()
assertTrue<SameKeys<RoomOnly<EndingSoonData>, typeof bookingDataSchemas.ROOM_ENDING_SOON.Type>>()

const EVENT_DESCRIPTIONS: Record<string, string> = {
  BOOK: "Booking confirmed.",
  MODIFY: "Booking changed.",
  CANCEL: "User, admin or automatic cancel (cancelReason tells the automatic ones).",
  REMINDER: "About preStartMinutes (default 15) before start.",
  NO_SHOW_WARNING: "About postStartWarnMinutes (default 10) after start, nobody checked in.",
  ENDING_SOON: "About preEndMinutes (default 15) before end.",
  VMS_INVITE_SENT: "Visitor invite issued. qrCardCode is a credential: TLS only, never log it.",
  VMS_VISITOR_CHECKED_IN: "Visitor checked in by card or plate.",
  VMS_HOST_CANCELLED: "Host cancelled the visit.",
}

const envelopeSchema = (type: string, data: Schema.Top) =>
  Schema.Struct({
    id: Schema.String.annotate({
      description: "Unique per delivery; equals X-Service-Delivery. De-duplicate on it.",
    }),
    type: Schema.Literal(type),
    // An integer (spec: "version | integer | envelope version, currently 1").
    version: Schema.Literal(ENVELOPE_VERSION).check(Schema.makeFilter(() => undefined, { toJsonSchema: () => ({ type: "integer" }) })),
    occurredAt: Schema.String.annotate({
      format: "date-time",
      description: "Order events by this.",
    }),
    projectId: Schema.String,
    data,
  })

export const WEBHOOKS_TAG = "Webhooks"

const HEADERS = [
  ["User-Agent", "ServiceWebhooks/1.0"],
  ["X-Service-Event", "Event type."],
  ["X-Service-Delivery", "Unique delivery id; equals the body's id."],
  ["X-Service-Timestamp", "Epoch milliseconds; reject more than 5 minutes from your clock."],
  [
    "X-Service-Signature",
    'sha256=HEX(HMAC-SHA256(secret, timestamp + "." + rawBody)), lowercase hex.',
  ],
] as const

/** The `webhooks` map; `ref` compiles a schema into the document's shared pool. */
export const webhookOperations = (ref: (s: Schema.Top) => Record<string, unknown>) => {
  const all: Array<[string, Schema.Top]> = [
    ...Object.entries(bookingDataSchemas),
    ...VISITOR_EVENT_TYPES.map((t) => [t, visitorDataSchemas[t]] as [string, Schema.Top]),
  ]
  return Object.fromEntries(
    all.map(([type, data]) => [
      type,
      {
        post: {
          operationId: `webhook_${type}`,
          tags: [WEBHOOKS_TAG],
          summary: (EVENT_DESCRIPTIONS[type.replace(/^(ROOM|DESK)_/, "")] ?? type).split(".")[0],
          description: `${EVENT_DESCRIPTIONS[type.replace(/^(ROOM|DESK)_/, "")] ?? ""} Delivered by HTTP POST to your HTTPS listener, signed with HMAC-SHA256; answer 2xx within 10 s. Up to 5 attempts with exponential backoff; ordering is not guaranteed.`,
          security: [],
          parameters: HEADERS.map(([name, description]) => ({
            name,
            in: "header",
            required: true,
            description,
            schema: { type: "string" },
          })),
          requestBody: {
            required: true,
            content: { "application/json": { schema: ref(envelopeSchema(type, data)) } },
          },
          responses: {
            "200": { description: "Any 2xx acknowledges the delivery." },
            default: { description: "Anything else (or a timeout) is retried." },
          },
        },
      },
    ]),
  )
}
