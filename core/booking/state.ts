import { Schema } from "effect"

/** Booking status values of the spec (States and transitions > Booking status). */
export const BOOKING_STATUSES = [
  "unpaid",
  "active",
  "checked-in",
  "done",
  "cancelled",
  "rejected",
] as const

export const BookingStatus = Schema.Literals(BOOKING_STATUSES)
export type BookingStatus = typeof BookingStatus.Type

/** Statuses that hold the asset's slot: only these take part in the overlap rule (SV012). */
export const LIVE_STATUSES = [
  "unpaid",
  "active",
  "checked-in",
] as const satisfies ReadonlyArray<BookingStatus>
export type LiveStatus = (typeof LIVE_STATUSES)[number]

/** Statuses no command leaves (spec rule 3). */
export const TERMINAL_STATUSES = [
  "done",
  "cancelled",
  "rejected",
] as const satisfies ReadonlyArray<BookingStatus>
export type TerminalStatus = (typeof TERMINAL_STATUSES)[number]

export const isLive = (status: BookingStatus): status is LiveStatus =>
  (LIVE_STATUSES as ReadonlyArray<BookingStatus>).includes(status)

export const isTerminal = (status: BookingStatus): status is TerminalStatus =>
  (TERMINAL_STATUSES as ReadonlyArray<BookingStatus>).includes(status)

export type AssetKind = "room" | "desk"

export interface Organizer {
  readonly userId: string
  readonly email?: string
  readonly name?: string
  readonly displayName?: string
}

export type AttendeeType = "required" | "optional"

export interface Attendee {
  readonly userId?: string
  readonly email: string
  readonly name?: string
  readonly type: AttendeeType
  /** Calendar response ("needsAction", "accepted", ...); the values are the provider's. */
  readonly responseStatus: string
}

/** One person's check-in (spec: per-person checkInDateTime). */
export interface CheckIn {
  readonly userId: string
  readonly at: number
}

/**
 * A recurring series. The anchor is the first occurrence's [start, end): expansion starts
 * from it, while the booking's own start/end roll forward to the current occurrence.
 */
export interface Recurrence {
  readonly rrule: string
  readonly anchorStart: number
  readonly anchorEnd: number
}

/** A room or desk booking ("Meeting" in the API). Times are epoch milliseconds. */
export interface Booking {
  readonly id: string
  readonly projectId: string
  readonly assetKind: AssetKind
  readonly assetId: string
  readonly title: string
  readonly body?: string
  readonly status: BookingStatus
  readonly start: number
  readonly end: number
  readonly organizer: Organizer
  readonly attendees: ReadonlyArray<Attendee>
  readonly estimatedAttendance?: number
  readonly pinCode: string
  readonly checkIns: ReadonlyArray<CheckIn>
  readonly checkOutAt?: number
  readonly recurrence?: Recurrence
  readonly createdAt: number
  readonly updatedAt: number
}
