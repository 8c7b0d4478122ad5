import { Schema } from "effect"
import { BOOKING_STATUSES } from "../../../core/booking/state.ts"
import { PAYMENT_STATUSES } from "../../../core/ports/payments.ts"
import { ObjectId as CheckedObjectId } from "../../../core/shared/ids.ts"
import { AssetConfig as AssetConfigSchema } from "../../../core/booking/asset-config.ts"

/**
 * Response resources of the spec ("Resources and their fields"), as Effect Schemas so the
 * OpenAPI document and the typed client share them. Requests are NOT described here: their
 * schemas are the validating ones in adapters/http/schemas/. Objects stay open (unknown fields
 * allowed), as the spec asks clients to tolerate additions.
 */

const id =
  (identifier: string) =>
  <S extends Schema.Top>(s: S) =>
    s.annotate({ identifier } as never) as S

// The validating core/shared/ids.ts ObjectId, named for the document.
export const ObjectId = CheckedObjectId.annotate({
  identifier: "ObjectId",
  description: "24-hex-character MongoDB ObjectId string.",
  examples: ["65f1a2b3c4d5e6f708192a3b"],
})
const DateTime = Schema.String.annotate({
  format: "date-time",
  description: "ISO 8601 with offset.",
})
const NullableString = Schema.NullOr(Schema.String)
/** Every integer the service answers with is a count, a lifetime or a status: never negative. */
const Int = Schema.Int.check(Schema.isGreaterThanOrEqualTo(0))

export const TokenResponse = id("TokenResponse")(
  Schema.Struct({
    access_token: Schema.String.annotate({ description: "Bearer token." }),
    expires_in: Int.annotate({
      description: "Access-token lifetime in seconds; never hardcode.",
    }),
    refresh_token: Schema.optionalKey(
      Schema.String.annotate({ description: "Absent for act_as tokens." }),
    ),
    refresh_token_expires_in: Schema.optionalKey(Int),
  }).annotate({ description: "Not wrapped in the envelope; there is no token_type." }),
)

export const Health = id("Health")(Schema.Struct({ status: Schema.Literal("ok") }))

export const ClockState = id("ClockState")(
  Schema.Struct({ now: DateTime, mode: Schema.Literals(["system", "manual"]) }),
)
export const ClockNow = id("ClockNow")(Schema.Struct({ now: DateTime }))

export const AppSecret = id("AppSecret")(
  Schema.Struct({
    appId: Schema.String,
    appSecret: Schema.String.annotate({ description: "The new secret, shown once; only its hash is stored." }),
  }),
)

const KeyMap = Schema.Record(Schema.String, Schema.String)
export const ManifestIds = id("ManifestIds")(
  Schema.Struct({
    projects: Schema.Record(
      Schema.String,
      Schema.Struct({
        id: Schema.String,
        brandId: Schema.String,
        zones: KeyMap,
        floors: KeyMap,
        rooms: KeyMap,
        desks: KeyMap,
        units: KeyMap,
        accessGroups: KeyMap,
        discounts: KeyMap,
        users: KeyMap,
        webhooks: KeyMap,
      }),
    ),
    apps: KeyMap,
  }).annotate({ description: "Every manifest key mapped to the ObjectId the service assigned." }),
)

export const AssetConfig = AssetConfigSchema.annotate({ identifier: "AssetConfig" } as never)

const ChargeRate = Schema.Struct({
  perHour: Schema.Number,
  perDay: Schema.Number,
  amount: Schema.optionalKey(
    Schema.Number.annotate({ description: "Price of the searched window." }),
  ),
})

const assetFields = {
  _id: Schema.String,
  name: Schema.String,
  email: Schema.String,
  capacity: Int,
  brandId: Schema.String,
  projectId: Schema.String,
  zoneId: Schema.String,
  floorId: Schema.String,
  isPublic: Schema.Boolean,
  facilities: Schema.Array(Schema.String),
  pictureUrls: Schema.Array(Schema.String),
  chargeRate: ChargeRate,
  config: AssetConfig,
  createdAt: DateTime,
  updatedAt: DateTime,
}

export const MeetingRoom = id("MeetingRoom")(
  Schema.Struct({
    ...assetFields,
    status: Schema.Literals(["active", "inactive"]),
    type: Schema.Literals(["normal", "bedroom"]),
    equipmentsAvailability: Schema.Struct({
      camera: Schema.Boolean,
      display: Schema.Boolean,
      mic: Schema.Boolean,
      projector: Schema.Boolean,
      speaker: Schema.Boolean,
    }),
    unavailableReason: Schema.optionalKey(
      Schema.Literals(["OPERATING_HOURS", "BREAK_TIME"]).annotate({
        description:
          "Only in availability searches: free but not bookable for the window. Absent means bookable.",
      }),
    ),
  }),
)

export const Desk = id("Desk")(
  Schema.Struct({
    ...assetFields,
    index: Int,
    status: Schema.Literals(["active", "inactive", "in-used", "reserved", "suspended"]),
  }),
)

/** The booking calendar of GET /meeting-rooms/{id} and GET /desks/{id}: busy times only. */
export const AssetCalendar = id("AssetCalendar")(
  Schema.Struct({
    from: DateTime,
    to: DateTime,
    bookings: Schema.Array(
      Schema.Struct({
        meetingId: Schema.String,
        startDateTime: DateTime,
        endDateTime: DateTime,
        status: Schema.Literals(BOOKING_STATUSES),
      }),
    ).annotate({
      description: "Live bookings overlapping [from, to], without titles or people (at most 1000).",
    }),
  }).annotate({ description: "Default window: now to 30 days ahead (query from, to)." }),
)

export const MeetingRoomDetail = id("MeetingRoomDetail")(
  Schema.Struct({ ...MeetingRoom.fields, calendar: AssetCalendar }),
)
export const DeskDetail = id("DeskDetail")(Schema.Struct({ ...Desk.fields, calendar: AssetCalendar }))

export const Payment = id("Payment")(
  Schema.Struct({
    paymentId: Schema.String,
    invoiceNo: Schema.String,
    amount: Schema.Number,
    summary: Schema.Struct({
      subtotal: Schema.Number,
      total: Schema.Number,
      discounts: Schema.Array(
        Schema.Struct({ code: Schema.String, value: Schema.Number, name: Schema.String }),
      ),
    }),
    webPaymentUrl: Schema.String.annotate({ description: "Address the end user opens to pay." }),
    webPaymentQr: Schema.String.annotate({ description: "PNG image as a base64 data URI." }),
  }),
)

const Person = Schema.Struct({
  userId: NullableString,
  email: NullableString,
  name: NullableString,
  displayName: Schema.optionalKey(NullableString),
})

/** One billingSummaries item: every payment of the booking, oldest first. */
export const BillingSummary = id("BillingSummary")(
  Schema.Struct({
    payment_id: Schema.String,
    amount: Schema.Number.annotate({ description: "What this payment collects (THB)." }),
    total: Schema.Number.annotate({
      description: "What the booking costs in all once this payment is paid.",
    }),
    invoice_no: Schema.String,
    status: Schema.Literals(PAYMENT_STATUSES),
    expiredAt: DateTime.annotate({ description: "End of the payment window (UTC)." }),
    kind: Schema.Literals(["create", "extension"]),
    paymentChannel: Schema.String,
  }),
)

/** One histories item; an action may add its own facts (reason, fields, occurrenceEventId). */
export const MeetingHistory = id("MeetingHistory")(
  Schema.Struct({
    action: Schema.String,
    at: DateTime.annotate({ description: "UTC instant of the change." }),
    by: Schema.optionalKey(
      Schema.String.annotate({ description: "Acting user; absent for automatic changes." }),
    ),
    fields: Schema.optionalKey(
      Schema.Array(Schema.String).annotate({ description: "update: the request fields the PATCH set." }),
    ),
    reason: Schema.optionalKey(Schema.String.annotate({ description: "reject: the operator's reason." })),
    occurrenceEventId: Schema.optionalKey(
      Schema.String.annotate({ description: "A series: the occurrence the action changed." }),
    ),
    paymentId: Schema.optionalKey(Schema.String.annotate({ description: "payment, payment-lapsed: the payment." })),
    invoiceNo: Schema.optionalKey(Schema.String),
    amount: Schema.optionalKey(Schema.Number.annotate({ description: "payment: THB paid." })),
    restored: Schema.optionalKey(
      Schema.Boolean.annotate({ description: "payment-lapsed of an extension: the booking went back to its times before the PATCH." }),
    ),
  }),
)

const PriceSummary = Schema.Struct({
  subtotal: Schema.Number,
  total: Schema.Number,
  discounts: Schema.Array(
    Schema.Struct({ code: Schema.String, value: Schema.Number, name: Schema.String }),
  ),
})

/** The 200 answer of a draft (draft: true) create or update: a preview, nothing written. */
export const MeetingDraft = id("MeetingDraft")(
  Schema.Struct({
    draft: Schema.Literal(true),
    meetingRoomId: Schema.optionalKey(Schema.String),
    meetingRoomName: Schema.optionalKey(Schema.String),
    deskId: Schema.optionalKey(Schema.String),
    startDateTime: DateTime,
    endDateTime: DateTime,
    status: Schema.Literals(["active", "unpaid"]),
    available: Schema.Boolean,
    /** Only when not available: the slot (or an occurrence's) is taken; a rule broken is a 400. */
    unavailableReason: Schema.optionalKey(Schema.Literal("SLOT_TAKEN")),
    summary: PriceSummary,
    price: PriceSummary,
    amount: Schema.Number,
    occurrences: Schema.optionalKey(Int),
    draftEndDateTimes: Schema.optionalKey(
      Schema.Array(
        Schema.Struct({
          endDateTime: DateTime,
          available: Schema.Boolean,
          unavailableReason: Schema.optionalKey(
            Schema.Literals(["SLOT_TAKEN", "OPERATING_HOURS", "BREAK_TIME", "BOOKING_RULES"]),
          ),
          summary: PriceSummary,
          price: PriceSummary,
          amount: Schema.Number,
          violations: Schema.Array(Schema.String),
        }),
      ),
    ),
  }),
)

export const Meeting = id("Meeting")(
  Schema.Struct({
    _id: Schema.String.annotate({ description: "For a recurring series, the series master id." }),
    meetingRoomId: Schema.optionalKey(Schema.String),
    deskId: Schema.optionalKey(Schema.String),
    meetingRoomName: Schema.optionalKey(Schema.String),
    projectId: Schema.optionalKey(Schema.String),
    title: Schema.String,
    body: Schema.String,
    status: Schema.Literals(BOOKING_STATUSES),
    startDateTime: DateTime,
    endDateTime: DateTime,
    timePeriod: Schema.optionalKey(Schema.Literals(["morning", "afternoon", "allDay"])),
    pinCode: Schema.optionalKey(
      Schema.String.annotate({
        description: "Secret; authorizes later actions for non-organizers.",
      }),
    ),
    organizer: Person,
    attendees: Schema.Array(
      Schema.Struct({
        userId: NullableString,
        email: Schema.String,
        name: NullableString,
        type: Schema.Literals(["required", "optional"]),
        responseStatus: Schema.optionalKey(Schema.String),
      }),
    ),
    estimatedAttendance: Schema.optionalKey(Int),
    payment: Schema.optionalKey(Payment),
    billingSummaries: Schema.Array(BillingSummary),
    histories: Schema.Array(MeetingHistory),
    checkInDateTime: Schema.optionalKey(Schema.NullOr(DateTime)),
    checkIns: Schema.Array(
      Schema.Struct({ userId: NullableString, checkInDateTime: DateTime }),
    ).annotate({ description: "Every check-in of the shown occurrence, oldest first." }),
    checkOutDateTime: Schema.optionalKey(Schema.NullOr(DateTime)),
    recurrence: Schema.optionalKey(
      Schema.String.annotate({
        description:
          "RRULE of a recurring series (RFC 5545, without the RRULE: prefix). With recurrenceStart " +
          "(DTSTART), recurrenceEnd (DTEND) and recurrenceTimeZone (TZID) it reproduces the series: " +
          "the master's startDateTime rolls forward to the current occurrence.",
      }),
    ),
    recurrenceStart: Schema.optionalKey(
      DateTime.annotate({
        description: "Series only: start of the first occurrence (DTSTART), never rolled forward.",
      }),
    ),
    recurrenceEnd: Schema.optionalKey(
      DateTime.annotate({ description: "Series only: end of the first occurrence (DTEND)." }),
    ),
    recurrenceTimeZone: Schema.optionalKey(
      Schema.String.annotate({
        description:
          "Series only: IANA zone the rule is expanded in (TZID); occurrences keep the local time of day.",
      }),
    ),
    seriesMasterId: Schema.optionalKey(
      Schema.String.annotate({
        description: "Only on an expanded occurrence row; equals the master _id.",
      }),
    ),
    occurrenceEventId: Schema.optionalKey(
      Schema.String.annotate({
        description:
          "Only on an expanded occurrence row; stable and unique. Key list rows on it, else on _id.",
      }),
    ),
    createdAt: Schema.NullOr(DateTime),
    updatedAt: Schema.NullOr(DateTime),
  }),
)

const UnitBinding = Schema.NullOr(
  Schema.Struct({
    roomId: Schema.String,
    addressNo: Schema.String,
    groupId: Schema.String,
    role: Schema.Literals(["owner", "participant"]),
  }),
)

export const PartnerMember = id("PartnerMember")(
  Schema.Struct({
    memberId: Schema.String,
    externalUserId: Schema.String,
    projectId: Schema.String,
    created: Schema.Boolean,
    matchedBy: Schema.Literals(["link", "email", "phone", "employeeId", "provisioned"]),
    accessGroupIds: Schema.Array(Schema.String),
    employeeId: NullableString,
    unit: UnitBinding,
  }),
)

const Card = Schema.Struct({
  cardId: Schema.String,
  cardNo: Schema.String.annotate({ description: "Always the decimal-reversed number." }),
  label: Schema.String,
  type: Schema.Literals(["real", "virtual"]),
  generated: Schema.Boolean,
})
const FacePresence = Schema.Struct({ present: Schema.Boolean })

export const PartnerMemberDetail = id("PartnerMemberDetail")(
  Schema.Struct({
    memberId: Schema.String,
    externalUserId: Schema.String,
    projectId: Schema.String,
    status: Schema.Literals(["active", "deactivated"]),
    source: Schema.String,
    userType: Schema.Literals(["member", "visitor"]),
    accessGroupIds: Schema.Array(Schema.String),
    employeeId: NullableString,
    unit: UnitBinding,
    profile: Schema.Struct({
      firstName: Schema.String,
      lastName: Schema.String,
      profileName: NullableString,
      email: NullableString,
      phone: NullableString,
    }),
    credentials: Schema.Struct({ cards: Schema.Array(Card), face: FacePresence }).annotate({
      description: "Face bytes are never returned.",
    }),
  }),
)

export const PartnerCredentials = id("PartnerCredentials")(
  Schema.Struct({ memberId: Schema.String, cards: Schema.Array(Card), face: FacePresence }),
)

export const DeliveryLogEntry = id("DeliveryLogEntry")(
  Schema.Struct({
    id: Schema.String,
    type: Schema.String,
    webhookId: Schema.String,
    state: Schema.Literals(["pending", "delivered", "failed"]),
    attempts: Schema.Array(
      Schema.Struct({
        time: DateTime,
        statusCode: Schema.optionalKey(Int),
        error: Schema.optionalKey(Schema.String),
        durationMs: Schema.Number,
      }),
    ),
    occurredAt: DateTime.annotate({ description: "When the event happened (the envelope's occurredAt)." }),
    createdAt: DateTime.annotate({ description: "When the delivery was queued (service clock)." }),
    nextAttemptAt: Schema.optionalKey(DateTime.annotate({ description: "Pending deliveries: the next attempt's time." })),
  }),
)

export const DeliveryAccepted = id("DeliveryAccepted")(
  Schema.Struct({ id: Schema.String.annotate({ description: "The delivery envelope id." }) }),
)

export type TokenResponse = typeof TokenResponse.Type
export type MeetingRoom = typeof MeetingRoom.Type
export type Desk = typeof Desk.Type
export type Meeting = typeof Meeting.Type
export type PartnerMember = typeof PartnerMember.Type
export type PartnerMemberDetail = typeof PartnerMemberDetail.Type
export type PartnerCredentials = typeof PartnerCredentials.Type
