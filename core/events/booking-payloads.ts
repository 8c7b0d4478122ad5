import type { AutoCancelReason, BookingDomainEvent, BookingEventKind } from "./domain-events.ts"
import { formatHHmm, formatOffsetDateTime } from "../shared/local-time.ts"

/**
 * Webhook `data` for booking events (spec "Booking events"): one builder per event kind, each
 * producing exactly the spec's fields. Optional fields appear only when known. Nothing secret
 * is ever copied in (no pinCode, tokens or payment addresses): the context simply has no such
 * fields.
 */

export type AssetKind = "room" | "desk"

/** What a builder needs beyond the domain event; times are epoch milliseconds. */
export interface BookingEventContext {
  readonly projectId: string
  /** The acting user: the booking organizer. */
  readonly userId: string
  readonly assetKind: AssetKind
  readonly assetName: string
  readonly floorName: string
  /** The property's IANA timezone, e.g. "Asia/Bangkok". */
  readonly timezone: string
  readonly start: number
  readonly end: number
  readonly organizerName?: string | undefined
  readonly organizerEmail?: string | undefined
  readonly attendeeNames?: ReadonlyArray<string> | undefined
}

export type BookingEventType = `${"ROOM" | "DESK"}_${BookingEventKind}`

export interface BaseData {
  readonly projectId: string
  readonly userId: string
  /** ISO 8601; equals the envelope's occurredAt. */
  readonly timestamp: string
}

/** roomName for rooms, deskName for desks; never both. */
export type AssetNameField =
  | { readonly roomName: string; readonly deskName?: never }
  | { readonly deskName: string; readonly roomName?: never }

type Located = BaseData & AssetNameField & { readonly floorName: string }

export type BookData = Located & {
  readonly bookingDate: string
  readonly startTime: string
  readonly endTime: string
  readonly attendees?: ReadonlyArray<string>
  readonly userName?: string
  readonly userEmail?: string
}

export type ModifyData = Located & {
  readonly oldStartTime: string
  readonly oldEndTime: string
  readonly newStartTime: string
  readonly newEndTime: string
  readonly userName?: string
}

export type CancelReasonText =
  | "No-show \u2014 auto-cancelled by system"
  | "Payment window lapsed \u2014 auto-cancelled by system"

export type CancelData = Located & {
  readonly bookingDate: string
  readonly cancelReason?: CancelReasonText
  readonly userName?: string
}

export type ReminderData = Located & {
  readonly startTime: string
  readonly endTime: string
  readonly minutesUntilStart: number
  readonly userName?: string
  readonly userEmail?: string
}

export type NoShowWarningData = Located & {
  readonly startTime: string
  readonly endTime: string
  readonly minutesUntilAutoCancel: number
  readonly userName?: string
}

export type EndingSoonData = Located & {
  readonly endTime: string
  readonly minutesUntilEnd: number
  readonly userName?: string
}

export type BookingEventData =
  | BookData
  | ModifyData
  | CancelData
  | ReminderData
  | NoShowWarningData
  | EndingSoonData

/** The exact cancelReason texts; the dash is an em dash (U+2014). */
export const cancelReasonText: Record<AutoCancelReason, CancelReasonText> = {
  "no-show": "No-show \u2014 auto-cancelled by system",
  "payment-lapsed": "Payment window lapsed \u2014 auto-cancelled by system",
}

export const bookingEventType = (kind: BookingEventKind, asset: AssetKind): BookingEventType =>
  `${asset === "room" ? "ROOM" : "DESK"}_${kind}`

// --- builders ------------------------------------------------------------------------------

type EventOf<K extends BookingEventKind> = Extract<BookingDomainEvent, { kind: K }>

const located = (at: number, ctx: BookingEventContext): Located => ({
  projectId: ctx.projectId,
  userId: ctx.userId,
  timestamp: new Date(at).toISOString(),
  ...(ctx.assetKind === "room" ? { roomName: ctx.assetName } : { deskName: ctx.assetName }),
  floorName: ctx.floorName,
})

const userName = (ctx: BookingEventContext) =>
  ctx.organizerName === undefined ? {} : { userName: ctx.organizerName }

const userEmail = (ctx: BookingEventContext) =>
  ctx.organizerEmail === undefined ? {} : { userEmail: ctx.organizerEmail }

const hm = (ms: number, ctx: BookingEventContext): string => formatHHmm(ms, ctx.timezone)

export const bookPayload = (event: EventOf<"BOOK">, ctx: BookingEventContext): BookData => ({
  ...located(event.at, ctx),
  bookingDate: formatOffsetDateTime(ctx.start, ctx.timezone),
  startTime: hm(ctx.start, ctx),
  endTime: hm(ctx.end, ctx),
  ...(ctx.attendeeNames === undefined ? {} : { attendees: [...ctx.attendeeNames] }),
  ...userName(ctx),
  ...userEmail(ctx),
})

export const modifyPayload = (event: EventOf<"MODIFY">, ctx: BookingEventContext): ModifyData => ({
  ...located(event.at, ctx),
  oldStartTime: hm(event.oldStart, ctx),
  oldEndTime: hm(event.oldEnd, ctx),
  newStartTime: hm(event.newStart, ctx),
  newEndTime: hm(event.newEnd, ctx),
  ...userName(ctx),
})

export const cancelPayload = (event: EventOf<"CANCEL">, ctx: BookingEventContext): CancelData => ({
  ...located(event.at, ctx),
  bookingDate: formatOffsetDateTime(ctx.start, ctx.timezone),
  ...(event.reason === undefined ? {} : { cancelReason: cancelReasonText[event.reason] }),
  ...userName(ctx),
})

export const reminderPayload = (
  event: EventOf<"REMINDER">,
  ctx: BookingEventContext,
): ReminderData => ({
  ...located(event.at, ctx),
  startTime: hm(ctx.start, ctx),
  endTime: hm(ctx.end, ctx),
  minutesUntilStart: event.minutesUntilStart,
  ...userName(ctx),
  ...userEmail(ctx),
})

export const noShowWarningPayload = (
  event: EventOf<"NO_SHOW_WARNING">,
  ctx: BookingEventContext,
): NoShowWarningData => ({
  ...located(event.at, ctx),
  startTime: hm(ctx.start, ctx),
  endTime: hm(ctx.end, ctx),
  minutesUntilAutoCancel: event.minutesUntilAutoCancel,
  ...userName(ctx),
})

export const endingSoonPayload = (
  event: EventOf<"ENDING_SOON">,
  ctx: BookingEventContext,
): EndingSoonData => ({
  ...located(event.at, ctx),
  endTime: hm(ctx.end, ctx),
  minutesUntilEnd: event.minutesUntilEnd,
  ...userName(ctx),
})

export interface BookingPayload {
  readonly type: BookingEventType
  readonly data: BookingEventData
}

/** Dispatches to the builder for the event's kind and names the type by asset kind. */
export const bookingPayload = (
  event: BookingDomainEvent,
  ctx: BookingEventContext,
): BookingPayload => {
  const type = bookingEventType(event.kind, ctx.assetKind)
  switch (event.kind) {
    case "BOOK":
      return { type, data: bookPayload(event, ctx) }
    case "MODIFY":
      return { type, data: modifyPayload(event, ctx) }
    case "CANCEL":
      return { type, data: cancelPayload(event, ctx) }
    case "REMINDER":
      return { type, data: reminderPayload(event, ctx) }
    case "NO_SHOW_WARNING":
      return { type, data: noShowWarningPayload(event, ctx) }
    case "ENDING_SOON":
      return { type, data: endingSoonPayload(event, ctx) }
  }
}
