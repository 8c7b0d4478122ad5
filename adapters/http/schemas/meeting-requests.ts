import { Option, Result, Schema } from "effect"
import { Characters, hasCharacters } from "../../../core/shared/characters.ts"
import type { CreateMeeting, Draft, UpdateMeeting } from "../../../core/booking/commands.ts"
import { parseOffsetDateTime } from "../../../core/shared/local-time.ts"
import { BOOKING_STATUSES } from "../../../core/booking/state.ts"
import { parseRecurrenceRule } from "../../../core/booking/recurrence.ts"
import { ObjectId } from "../../../core/shared/ids.ts"
import { ValidationFailed } from "../../../core/shared/errors.ts"
import { decodeOrFail } from "../validation.ts"
import { OffsetDateTime, QueryInt } from "./text-rules.ts"

/**
 * Request shapes of the Meetings endpoints (spec CreateMeetingRequest, UpdateMeetingRequest,
 * GET /meetings query). Field-level rules live in the schemas; rules that tie several fields
 * together ("exactly one of") are the *CrossErrors functions, so one 400 lists both kinds.
 */

export { OffsetDateTime, QueryInt }

const Email = Schema.String.annotate({ format: "email" }).check(
  Schema.isPattern(/^[^@\s\u0000]+@[^@\s\u0000]+\.[^@\s\u0000]+$/u, { message: "must be an email address" }),
  hasCharacters(0, 320),
)

export const Text = (max: number) => Characters(0, max)

// The spec says "integer, min 0"; the cap keeps it inside a PostgreSQL integer.
const NonNegativeInt = Schema.Int.check(
  Schema.makeFilter((n: number) => (n >= 0 && n <= 1_000_000) || "must be an integer between 0 and 1000000", {
    toJsonSchema: () => ({ minimum: 0, maximum: 1_000_000 }),
  }),
)

export const TIME_PERIODS = ["morning", "afternoon", "allDay"] as const
export const TimePeriod = Schema.Literals(TIME_PERIODS)

export const PAYMENT_CHANNELS = ["prompt-pay", "credit-card", "alipay", "true-money", "we-chat"] as const

const HttpUrl = Schema.String.annotate({ format: "uri" }).check(
  // Case-insensitive scheme spelled out: a pattern with the `i` flag is not exported to OpenAPI.
  Schema.isPattern(/^[Hh][Tt][Tt][Pp][Ss]?:\/\/[^\s/?#]+[^\s]*$/u, { message: "must be an absolute http(s) URI" }),
  hasCharacters(0, 2048),
)

export const AttendeeInput = Schema.Struct({
  email: Email,
  id: Schema.optionalKey(ObjectId),
  type: Schema.optionalKey(Schema.Literals(["required", "optional"])),
})
export type AttendeeInput = typeof AttendeeInput.Type

const Attendees = Schema.Array(AttendeeInput).check(
  Schema.isMaxLength(500, { message: "at most 500 attendees" }),
)
const DraftEnds = Schema.Array(OffsetDateTime).check(
  Schema.isMaxLength(24, { message: "at most 24 candidate end times" }),
)

/** The longest recurrence rule a create takes (a rule this long is never parsed). */
const MAX_RULE_CHARACTERS = 500

export const CreateMeetingRequest = Schema.Struct({
  meetingRoomId: Schema.optionalKey(ObjectId),
  deskId: Schema.optionalKey(ObjectId),
  title: Characters(1, 500),
  body: Schema.optionalKey(Text(20_000)),
  startDateTime: OffsetDateTime,
  endDateTime: Schema.optionalKey(OffsetDateTime),
  timePeriod: Schema.optionalKey(TimePeriod),
  attendees: Schema.optionalKey(Attendees),
  estimatedAttendance: Schema.optionalKey(NonNegativeInt),
  paymentChannel: Schema.optionalKey(Schema.Literals(PAYMENT_CHANNELS)),
  discountCode: Schema.optionalKey(Text(64)),
  frontendRedirectUrl: Schema.optionalKey(HttpUrl),
  draft: Schema.optionalKey(Schema.Boolean),
  draftEndDateTimes: Schema.optionalKey(DraftEnds),
  /** Extension: RFC 5545 RRULE subset for rooms (core/booking/recurrence.ts). */
  recurrence: Schema.optionalKey(
    Text(MAX_RULE_CHARACTERS).annotate({
      description:
        "A recurring series (an extension of the spec): an RFC 5545 RRULE subset, FREQ=DAILY or WEEKLY with INTERVAL, " +
        "COUNT or UNTIL (YYYYMMDD, or YYYYMMDDTHHMMSSZ) and BYDAY=MO..SU, e.g. FREQ=WEEKLY;BYDAY=MO,WE;COUNT=10. " +
        "Free meeting rooms only; at most 366 occurrences, all starting within 366 days of the first. Occurrences keep " +
        "the first one's local start time across daylight-saving changes and its length. GET /meetings expands the series.",
    }),
  ),
})
export type CreateMeetingRequest = typeof CreateMeetingRequest.Type

const has = (raw: Record<string, unknown>, key: string) => raw[key] !== undefined && raw[key] !== null

/** Spec Meetings rule 1 and the timePeriod/draft pairings, on the raw body. */
export const createMeetingCrossErrors = (raw: Record<string, unknown>): string[] => {
  const errors: string[] = []
  const room = has(raw, "meetingRoomId")
  const desk = has(raw, "deskId")
  if (room === desk) errors.push("meetingRoomId, deskId: exactly one of meetingRoomId or deskId is required")
  if (room && !desk) {
    if (!has(raw, "endDateTime")) errors.push("endDateTime: is required for a meeting room")
    if (has(raw, "timePeriod")) errors.push("timePeriod: is only for desks")
  }
  if (desk && !room) {
    if (has(raw, "endDateTime") === has(raw, "timePeriod"))
      errors.push("endDateTime, timePeriod: a desk takes exactly one of endDateTime or timePeriod")
    if (has(raw, "recurrence")) errors.push("recurrence: recurring series are for meeting rooms only")
  }
  if (has(raw, "draftEndDateTimes") && raw["draft"] !== true)
    errors.push("draftEndDateTimes: is only allowed with draft true")
  return errors
}

/**
 * The recurrence rule's own faults, named beside the body's schema faults when there are any
 * (one 400, a message each). A body the schema accepts goes to the use case, which reports the
 * rule's faults with the rules of the times (an end before its start, the room's hours).
 */
export const createMeetingRuleErrors = (raw: Record<string, unknown>): string[] => {
  const rule = raw["recurrence"]
  if (typeof rule !== "string" || rule.length > MAX_RULE_CHARACTERS) return []
  const parsed = parseRecurrenceRule(rule)
  return Result.isFailure(parsed) ? parsed.failure.map((m) => `recurrence: ${m}`) : []
}

export const UpdateMeetingRequest = Schema.Struct({
  title: Schema.optionalKey(Characters(1, 500)),
  body: Schema.optionalKey(Text(20_000)),
  startDateTime: Schema.optionalKey(OffsetDateTime),
  endDateTime: Schema.optionalKey(OffsetDateTime),
  timePeriod: Schema.optionalKey(TimePeriod),
  attendees: Schema.optionalKey(Attendees),
  estimatedAttendance: Schema.optionalKey(NonNegativeInt),
  pinCode: Schema.optionalKey(Text(64)),
  paymentChannel: Schema.optionalKey(Schema.Literals(PAYMENT_CHANNELS)),
  discountCode: Schema.optionalKey(Text(64)),
  frontendRedirectUrl: Schema.optionalKey(HttpUrl),
  draft: Schema.optionalKey(Schema.Boolean),
  draftEndDateTimes: Schema.optionalKey(DraftEnds),
})
export type UpdateMeetingRequest = typeof UpdateMeetingRequest.Type

export const updateMeetingCrossErrors = (raw: Record<string, unknown>): string[] => {
  const errors: string[] = []
  if (has(raw, "endDateTime") && has(raw, "timePeriod"))
    errors.push("endDateTime, timePeriod: give at most one of endDateTime or timePeriod")
  if (has(raw, "draftEndDateTimes") && raw["draft"] !== true)
    errors.push("draftEndDateTimes: is only allowed with draft true")
  // Fields of other requests a client may send here expecting them to act: refused, not ignored.
  if (has(raw, "occurrenceEventId"))
    errors.push("occurrenceEventId: a PATCH changes the whole booking (a series as a whole); to change one occurrence, cancel it and book it anew")
  if (has(raw, "recurrence")) errors.push("recurrence: is given when a series is booked and cannot be set or changed by PATCH; cancel and book anew")
  return errors
}

/** A series' occurrence, as GET /meetings lists it (`{masterId}_{start ms}`). */
const OccurrenceEventId = Text(64)

/** Optional body of cancel, check-in and check-out. */
export const MeetingActionRequest = Schema.Struct({
  pinCode: Schema.optionalKey(Text(64)),
  paymentId: Schema.optionalKey(Text(64)),
  occurrenceEventId: Schema.optionalKey(OccurrenceEventId),
})

export const RejectMeetingRequest = Schema.Struct({
  reason: Schema.optionalKey(Text(1000)),
  occurrenceEventId: Schema.optionalKey(OccurrenceEventId),
})

export const ASSET_TYPES = ["room", "desk"] as const

export const ListMeetingsQuery = Schema.Struct({
  from: OffsetDateTime,
  to: OffsetDateTime,
  projectId: Schema.optionalKey(ObjectId),
  meetingRoomId: Schema.optionalKey(ObjectId),
  meetingRoomIds: Schema.optionalKey(Schema.Array(ObjectId)),
  deskId: Schema.optionalKey(ObjectId),
  deskIds: Schema.optionalKey(Schema.Array(ObjectId)),
  organizerId: Schema.optionalKey(ObjectId),
  organizerEmails: Schema.optionalKey(Schema.Array(Email)),
  attendeeEmails: Schema.optionalKey(Schema.Array(Email)),
  statuses: Schema.optionalKey(Schema.Array(Schema.Literals(BOOKING_STATUSES))),
  assetType: Schema.optionalKey(Schema.Literals(ASSET_TYPES)),
  limit: Schema.optionalKey(QueryInt(0, 3000)),
  offset: Schema.optionalKey(QueryInt(0, 1_000_000_000)),
})
export type ListMeetingsQuery = typeof ListMeetingsQuery.Type

export const LIST_MEETINGS_ARRAY_KEYS = [
  "meetingRoomIds",
  "deskIds",
  "organizerEmails",
  "attendeeEmails",
  "statuses",
] as const

/**
 * decodeOrFail plus the cross-field rules: one 400 SV001 lists every violated constraint,
 * field-level and cross-field alike.
 */
export const decodeWithCrossRules = <S extends Schema.Top>(
  schema: S,
  raw: unknown,
  crossErrors: (raw: Record<string, unknown>) => string[],
  /** Faults the use case would also report, named here only beside the schema's. */
  besideSchemaErrors?: (raw: Record<string, unknown>) => string[],
): S["Type"] => {
  const object = typeof raw === "object" && raw !== null && !Array.isArray(raw) ? (raw as Record<string, unknown>) : undefined
  const cross = object === undefined ? [] : crossErrors(object)
  let value: S["Type"]
  try {
    value = decodeOrFail(schema, raw)
  } catch (e) {
    if (!(e instanceof ValidationFailed) || object === undefined) throw e
    const more = [...cross, ...(besideSchemaErrors?.(object) ?? [])]
    throw more.length === 0 ? e : new ValidationFailed({ messages: [...e.messages, ...more] })
  }
  if (cross.length > 0) throw new ValidationFailed({ messages: cross })
  return value
}

// --- decode once: requests -> core commands (core/booking/commands.ts) ----------------------

/** An OffsetDateTime the schema already checked (so the parse cannot fail here). */
const instantOf = (text: string): number => {
  const r = parseOffsetDateTime(text)
  return Result.isSuccess(r) ? r.success : Number.NaN
}

const draftOf = (draft: boolean | undefined, ends: ReadonlyArray<string> | undefined): Option.Option<Draft> =>
  draft === true ? Option.some({ ends: (ends ?? []).map(instantOf) }) : Option.none()

/** A decoded CreateMeetingRequest (cross rules held: exactly one asset, end xor period) as the core command. */
export const toCreateMeeting = (req: CreateMeetingRequest): CreateMeeting => {
  const start = instantOf(req.startDateTime)
  return {
    asset: req.meetingRoomId !== undefined ? { _tag: "Room", id: req.meetingRoomId } : { _tag: "Desk", id: req.deskId ?? "" },
    when:
      req.timePeriod !== undefined
        ? { _tag: "Period", start, period: req.timePeriod }
        : { _tag: "Span", start, end: instantOf(req.endDateTime ?? req.startDateTime) },
    title: req.title,
    body: req.body,
    attendees: req.attendees ?? [],
    estimatedAttendance: req.estimatedAttendance,
    payment: { channel: req.paymentChannel, discountCode: req.discountCode, returnUrl: req.frontendRedirectUrl },
    recurrence: req.recurrence,
    draft: draftOf(req.draft, req.draftEndDateTimes),
  }
}

const NOT_A_CHANGE = new Set(["pinCode", "draft", "draftEndDateTimes"])

/** A decoded UpdateMeetingRequest as the core command. */
export const toUpdateMeeting = (req: UpdateMeetingRequest): UpdateMeeting => ({
  title: req.title,
  body: req.body,
  start: req.startDateTime === undefined ? undefined : instantOf(req.startDateTime),
  end: req.endDateTime === undefined ? undefined : instantOf(req.endDateTime),
  timePeriod: req.timePeriod,
  attendees: req.attendees,
  estimatedAttendance: req.estimatedAttendance,
  pinCode: req.pinCode,
  payment: { channel: req.paymentChannel, discountCode: req.discountCode, returnUrl: req.frontendRedirectUrl },
  fields: Object.keys(req).filter((k) => !NOT_A_CHANGE.has(k)).sort(),
  draft: draftOf(req.draft, req.draftEndDateTimes),
})
