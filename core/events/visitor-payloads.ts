import { Result, Schema, SchemaIssue } from "effect"
import { ValidationFailed } from "../shared/errors.ts"
import { parseOffsetDateTime } from "../shared/local-time.ts"

/**
 * Webhook `data` of the three visitor events (spec "Visitor events"), validated before they go
 * out. The visitor system hands these over already formed; validation keeps malformed ones,
 * reserved types and a misplaced credential off the wire. Unknown fields are stripped rather
 * than rejected, so an upstream addition never blocks delivery and never leaks.
 */

/** A day, or a date-time with its offset (spec convention 3): a local time names no instant. */
const isoPattern = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2}))?$/

/** Whether the text's yyyy-mm-dd is a day of the calendar (Date.parse rolls 02-30 into March). */
const isCalendarDate = (s: string): boolean => {
  const [year, month, day] = s.slice(0, 10).split("-").map(Number) as [number, number, number]
  const date = new Date(Date.UTC(year, month - 1, day))
  return date.getUTCMonth() === month - 1 && date.getUTCDate() === day
}

/**
 * ISO 8601 date or date-time that also names a real instant (timestamp, visitDate): the offset
 * may lack its colon, and every date-time the booking routes take passes too (a comma fraction,
 * a lower-case t or z).
 */
const IsoDateTime = Schema.String.check(
  Schema.makeFilter((s: string) =>
    (isoPattern.test(s) && !Number.isNaN(Date.parse(s)) && isCalendarDate(s)) || Result.isSuccess(parseOffsetDateTime(s))
      ? undefined
      : "Expected an ISO 8601 date, or a date-time with an explicit offset",
  ),
)

const base = {
  projectId: Schema.String,
  /** The visitor system's transactor: any id it uses, but one. */
  userId: Schema.String.check(Schema.isNonEmpty({ message: "must not be empty" })),
  timestamp: IsoDateTime,
}

/** A display text in English and Thai. */
export const LocalizedText = Schema.Struct({ en: Schema.String, th: Schema.String })

/** How the visitor entered: entryType plus display texts. */
export const EntryType = Schema.Struct({
  entryType: Schema.String,
  en: Schema.String,
  th: Schema.String,
})

export const InviteSentData = Schema.Struct({
  ...base,
  visitorName: Schema.String,
  visitorEmail: Schema.String,
  hostName: Schema.String,
  hostEmail: Schema.String,
  visitDate: IsoDateTime,
  /** Preformatted display strings, not instants. */
  startDateTime: Schema.String,
  endDateTime: Schema.String,
  /** The visitor's access QR: a credential. TLS only, never logged (see redactForLog). */
  qrCardCode: Schema.String,
  licensePlate: Schema.optionalKey(Schema.String),
  visitPurpose: Schema.optionalKey(Schema.String),
})
export type InviteSentData = typeof InviteSentData.Type

export const VisitorCheckedInData = Schema.Struct({
  ...base,
  visitorName: Schema.String,
  hostAssetTitle: Schema.String,
  checkInTime: LocalizedText,
  vmsEntryType: EntryType,
  /** Empty for card entry. */
  licensePlateNumber: Schema.String,
  location: Schema.optionalKey(EntryType),
  webViewUrl: Schema.optionalKey(Schema.String),
})
export type VisitorCheckedInData = typeof VisitorCheckedInData.Type

export const HostCancelledData = Schema.Struct({
  ...base,
  visitorName: Schema.String,
  hostName: Schema.String,
  hostEmail: Schema.String,
  startDateTime: Schema.String,
  endDateTime: Schema.String,
  licensePlate: Schema.optionalKey(Schema.String),
})
export type HostCancelledData = typeof HostCancelledData.Type

export const visitorDataSchemas = {
  VMS_INVITE_SENT: InviteSentData,
  VMS_VISITOR_CHECKED_IN: VisitorCheckedInData,
  VMS_HOST_CANCELLED: HostCancelledData,
} as const

export type VisitorEventType = keyof typeof visitorDataSchemas

export type VisitorEvent =
  | { readonly type: "VMS_INVITE_SENT"; readonly data: InviteSentData }
  | { readonly type: "VMS_VISITOR_CHECKED_IN"; readonly data: VisitorCheckedInData }
  | { readonly type: "VMS_HOST_CANCELLED"; readonly data: HostCancelledData }

const reservedTypes: ReadonlyArray<string> = ["VMS_VISITOR_CHECKED_OUT", "VMS_HOST_NOTIFICATION"]

const isVisitorType = (type: string): type is VisitorEventType =>
  Object.prototype.hasOwnProperty.call(visitorDataSchemas, type)

const decoders: Record<
  VisitorEventType,
  (input: unknown, options?: { errors: "all" }) => Result.Result<unknown, Schema.SchemaError>
> = {
  VMS_INVITE_SENT: Schema.decodeUnknownResult(InviteSentData),
  VMS_VISITOR_CHECKED_IN: Schema.decodeUnknownResult(VisitorCheckedInData),
  VMS_HOST_CANCELLED: Schema.decodeUnknownResult(HostCancelledData),
}

const formatter = SchemaIssue.makeFormatterStandardSchemaV1()

/** One message per violated constraint, prefixed with the field path (under `root`); never the input. */
const issueMessages = (issue: SchemaIssue.Issue, root: string | undefined): Array<string> =>
  formatter(issue).issues.map((i) => {
    const path = [...(root === undefined ? [] : [root]), ...(i.path ?? []).map((p) => String(typeof p === "object" && p !== null ? p.key : p))].join(".")
    return path === "" ? i.message : `${path}: ${i.message}`
  })

const invalid = (...messages: Array<string>) => Result.fail(new ValidationFailed({ messages }))

/**
 * Validates a visitor event before delivery: the type must be one of the three emitted types
 * (the reserved two are refused by name), the data must match that type's table row, and
 * qrCardCode may appear only in VMS_INVITE_SENT (anywhere else it would leak a credential).
 */
export const validateVisitorEvent = (
  type: string,
  data: unknown,
  /** Where the data sits in the request, named in the messages (`data` in the operator API's body). */
  root?: string,
): Result.Result<VisitorEvent, ValidationFailed> => {
  if (reservedTypes.includes(type)) {
    return invalid(`type: ${type} is reserved and never delivered`)
  }
  if (!isVisitorType(type)) return invalid(`type: ${type} is not a visitor event type`)
  // Every violated constraint in one answer: a misplaced credential and the schema's findings.
  const messages: Array<string> = []
  if (type !== "VMS_INVITE_SENT" && typeof data === "object" && data !== null && "qrCardCode" in data)
    messages.push(`${root === undefined ? "" : `${root}.`}qrCardCode: allowed only in VMS_INVITE_SENT, not in ${type}`)
  const decoded = decoders[type](data, { errors: "all" })
  if (Result.isFailure(decoded)) messages.push(...issueMessages(decoded.failure.issue, root))
  if (messages.length > 0 || Result.isFailure(decoded)) return invalid(...messages)
  return Result.succeed({ type, data: decoded.success } as VisitorEvent)
}

/**
 * The base fields projectId and timestamp mirror the envelope (spec "Webhook payloads"), so the
 * publisher may leave them out: projectId is filled from the path's project and timestamp from
 * the service clock. A given projectId must equal the path's. A given timestamp is when the
 * event happened and becomes the envelope's occurredAt, so "agree" means it names exactly one
 * instant: a date-time with an explicit offset (spec convention 3), never a bare date or a local
 * time whose instant would depend on the server's zone. It is not compared with the clock: the
 * visitor system publishes after the fact, and a manual test clock is arbitrary.
 */
export const mirrorEnvelopeFields = (
  data: unknown,
  projectId: string,
  now: number,
): { readonly data: unknown; readonly messages: ReadonlyArray<string> } => {
  if (typeof data !== "object" || data === null || Array.isArray(data)) return { data, messages: [] }
  const given = data as { projectId?: unknown; timestamp?: unknown }
  const messages: Array<string> = []
  if (given.projectId !== undefined && given.projectId !== projectId)
    messages.push("data.projectId: must equal the project of the path")
  let timestamp = given.timestamp
  if (timestamp !== undefined) {
    const parsed = typeof timestamp === "string" ? parseOffsetDateTime(timestamp) : Result.fail("must be a string")
    if (Result.isFailure(parsed)) {
      messages.push(`data.timestamp: ${parsed.failure}`)
      timestamp = undefined // reported here; the schema is asked only about the other fields
    }
  }
  return { data: { ...data, projectId, timestamp: timestamp ?? new Date(now).toISOString() }, messages }
}

/**
 * A visitor event as published (operator API): the envelope's fields mirrored, then validated,
 * every violated constraint reported together.
 */
export const visitorEventOf = (
  type: string,
  data: unknown,
  projectId: string,
  now: number,
): Result.Result<VisitorEvent, ValidationFailed> => {
  const mirrored = mirrorEnvelopeFields(data, projectId, now)
  const validated = validateVisitorEvent(type, mirrored.data, "data")
  if (mirrored.messages.length === 0) return validated
  return invalid(...mirrored.messages, ...(Result.isFailure(validated) ? validated.failure.messages : []))
}

/** A copy safe for logs: the credential qrCardCode is dropped, everything else kept. */
export const redactForLog = <D extends object>(data: D): Omit<D, "qrCardCode"> => {
  const { qrCardCode: _dropped, ...rest } = data as D & { qrCardCode?: unknown }
  return rest
}
