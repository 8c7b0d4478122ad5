import { Result } from "effect"
import { Forbidden } from "../shared/errors.ts"
import type { BookingDomainEvent } from "../events/domain-events.ts"
import { MEETING_CONFIG_DEFAULTS } from "./asset-config.ts"
import { BookingRuleViolated, IllegalTransition } from "./errors.ts"
import { noShowDueAt } from "./timeline.ts"
import type { AssetKind, Attendee, Booking, BookingStatus, Organizer, Recurrence } from "./state.ts"

/**
 * The booking status machine of the spec (States and transitions > Booking status) as pure
 * functions. Adapters persist the result; the scheduler and HTTP handlers only build commands.
 */

/** Who asks. pinCode is what the caller presented (spec Meetings rule 6). */
export interface Actor {
  readonly userId: string
  readonly isProjectAdmin: boolean
  readonly pinCode?: string
}

/** The actor for calendar-provider declines and other system-initiated user commands. */
export const SYSTEM_ACTOR: Actor = { userId: "system", isProjectAdmin: true }

/** Fields an update may change; absent = unchanged. attendees replaces the whole list. */
export interface BookingChanges {
  readonly title?: string
  readonly body?: string
  readonly start?: number
  readonly end?: number
  readonly attendees?: ReadonlyArray<Attendee>
  readonly estimatedAttendance?: number
}

export type BookingCommand =
  /** preStartMinutes of the asset's meetingConfig; -1 or absent -> the default 15. */
  | { readonly _tag: "CheckIn"; readonly preStartMinutes?: number }
  | { readonly _tag: "CheckOut" }
  | { readonly _tag: "Cancel" }
  | { readonly _tag: "Update"; readonly changes: BookingChanges }
  | { readonly _tag: "PaymentCompleted" }
  | { readonly _tag: "PaymentLapsed" }
  /** postStartExpireMinutes of the asset's meetingConfig; -1 disables the auto-cancel. */
  | { readonly _tag: "NoShowExpire"; readonly postStartExpireMinutes?: number }
  | { readonly _tag: "End" }
  | { readonly _tag: "Reject" }

export type CommandTag = BookingCommand["_tag"]

export type HistoryAction =
  | "create"
  | "check-in"
  | "check-out"
  | "cancel"
  | "update"
  | "payment"
  | "payment-lapsed"
  | "no-show"
  | "end"
  | "reject"

/** A histories entry; `by` is absent for automatic (scheduler or payment) changes. */
export interface HistoryEntry {
  readonly action: HistoryAction
  readonly at: number
  readonly by?: string
}

export interface Transitioned {
  readonly booking: Booking
  readonly events: ReadonlyArray<BookingDomainEvent>
  readonly history: HistoryEntry
}

export type TransitionError = IllegalTransition | Forbidden | BookingRuleViolated

/**
 * Whether `after` changes what integrators show of a booking besides its times (title, body,
 * attendees, attendance): with the times, what makes a MODIFY. A field `after` leaves out is kept.
 */
export const detailsChanged = (
  before: Booking,
  after: Partial<Pick<Booking, "title" | "body" | "estimatedAttendance" | "attendees">>,
): boolean =>
  (after.title !== undefined && after.title !== before.title) ||
  (after.body !== undefined && after.body !== before.body) ||
  (after.estimatedAttendance !== undefined && after.estimatedAttendance !== before.estimatedAttendance) ||
  (after.attendees !== undefined && JSON.stringify(after.attendees) !== JSON.stringify(before.attendees))

/**
 * THE status machine: the statuses each command may start from. Terminal statuses appear in
 * no row, so done, cancelled and rejected never change (spec rule 3); Reject is "any" status
 * of the spec read as any non-terminal one.
 */
export const ALLOWED_FROM: { readonly [K in CommandTag]: ReadonlyArray<BookingStatus> } = {
  CheckIn: ["active"],
  CheckOut: ["checked-in"],
  Cancel: ["active", "unpaid"],
  Update: ["active", "checked-in"],
  PaymentCompleted: ["unpaid"],
  PaymentLapsed: ["unpaid"],
  NoShowExpire: ["active"],
  End: ["active", "checked-in"],
  Reject: ["unpaid", "active", "checked-in"],
}

export const canTransition = (status: BookingStatus, command: CommandTag): boolean =>
  ALLOWED_FROM[command].includes(status)

const MS_PER_MINUTE = 60_000

// Compares every character so the time taken does not reveal how much of a guess matched.
export const pinMatches = (presented: string | undefined, pinCode: string): boolean => {
  if (presented === undefined || presented.length !== pinCode.length) return false
  let diff = 0
  for (let i = 0; i < pinCode.length; i++) diff |= presented.charCodeAt(i) ^ pinCode.charCodeAt(i)
  return diff === 0
}

const isOrganizerOrPinHolder = (booking: Booking, actor: Actor): boolean =>
  actor.userId === booking.organizer.userId || pinMatches(actor.pinCode, booking.pinCode)

/** Spec Meetings rule 6 and the status table; undefined = authorized. */
const authorize = (
  booking: Booking,
  command: BookingCommand,
  actor: Actor,
): Forbidden | undefined => {
  switch (command._tag) {
    case "CheckIn":
    case "CheckOut":
    case "Update":
      return isOrganizerOrPinHolder(booking, actor)
        ? undefined
        : new Forbidden({ reason: "only the organizer or a pinCode holder may do this" })
    case "Cancel":
      return isOrganizerOrPinHolder(booking, actor) || actor.isProjectAdmin
        ? undefined
        : new Forbidden({
            reason: "only the organizer, a pinCode holder or a project admin may cancel",
          })
    case "Reject":
      return actor.isProjectAdmin
        ? undefined
        : new Forbidden({ reason: "only an administrator or the calendar provider may reject" })
    case "PaymentCompleted":
    case "PaymentLapsed":
    case "NoShowExpire":
    case "End":
      return undefined
  }
}

const isSystemCommand = (tag: CommandTag): boolean =>
  tag === "PaymentCompleted" || tag === "PaymentLapsed" || tag === "NoShowExpire" || tag === "End"

const illegal = (booking: Booking, command: string) =>
  Result.fail(new IllegalTransition({ bookingId: booking.id, from: booking.status, command }))

const violated = (...messages: ReadonlyArray<string>) =>
  Result.fail(new BookingRuleViolated({ messages }))

/**
 * Apply a command to a booking. Checks run in this order: authorization (Forbidden), the
 * status table (IllegalTransition, 409 SV006), then time and field rules
 * (BookingRuleViolated). A failure never carries a changed booking.
 */
export const transition = (
  booking: Booking,
  command: BookingCommand,
  now: number,
  actor: Actor,
): Result.Result<Transitioned, TransitionError> => {
  const forbidden = authorize(booking, command, actor)
  if (forbidden !== undefined) return Result.fail(forbidden)
  if (!canTransition(booking.status, command._tag)) return illegal(booking, command._tag)

  const by = isSystemCommand(command._tag) ? {} : { by: actor.userId }
  const done = (
    next: Partial<Booking>,
    action: HistoryAction,
    events: ReadonlyArray<BookingDomainEvent> = [],
  ): Result.Result<Transitioned, never> =>
    Result.succeed({
      booking: { ...booking, ...next, updatedAt: now },
      events,
      history: { action, at: now, ...by },
    })
  const id = booking.id

  switch (command._tag) {
    case "CheckIn": {
      const pre = command.preStartMinutes ?? MEETING_CONFIG_DEFAULTS.preStartMinutes
      // -1 disables the reminder tick only; check-in still needs a window, so the default.
      const minutes = pre >= 0 ? pre : MEETING_CONFIG_DEFAULTS.preStartMinutes
      if (now < booking.start - minutes * MS_PER_MINUTE) {
        return violated(`check-in opens ${minutes} minutes before the start`)
      }
      if (now >= booking.end) return violated("the booking has already ended")
      return done(
        {
          status: "checked-in",
          checkIns: [...booking.checkIns, { userId: actor.userId, at: now }],
        },
        "check-in",
      )
    }
    case "CheckOut":
      return done({ status: "done", checkOutAt: now }, "check-out")
    case "Cancel":
      return done({ status: "cancelled" }, "cancel", [{ kind: "CANCEL", bookingId: id, at: now }])
    case "Update": {
      const { changes } = command
      const start = changes.start ?? booking.start
      const end = changes.end ?? booking.end
      if (booking.status === "checked-in" && start !== booking.start) {
        return illegal(booking, "Update(startDateTime)")
      }
      if (!(end > start)) return violated("endDateTime must be after startDateTime")
      if (end !== booking.end && end <= now) return violated("endDateTime must be in the future")
      // Spec: MODIFY when the "booking changed"; a PATCH that changes nothing sends nothing.
      const changed = start !== booking.start || end !== booking.end || detailsChanged(booking, changes)
      const events: ReadonlyArray<BookingDomainEvent> = changed
        ? [
            {
              kind: "MODIFY",
              bookingId: id,
              at: now,
              oldStart: booking.start,
              oldEnd: booking.end,
              newStart: start,
              newEnd: end,
            },
          ]
        : []
      return done(
        {
          start,
          end,
          ...(changes.title === undefined ? {} : { title: changes.title }),
          ...(changes.body === undefined ? {} : { body: changes.body }),
          ...(changes.attendees === undefined ? {} : { attendees: changes.attendees }),
          ...(changes.estimatedAttendance === undefined
            ? {}
            : { estimatedAttendance: changes.estimatedAttendance }),
        },
        "update",
        events,
      )
    }
    case "PaymentCompleted":
      return done({ status: "active" }, "payment", [{ kind: "BOOK", bookingId: id, at: now }])
    case "PaymentLapsed":
      return done({ status: "cancelled" }, "payment-lapsed", [
        { kind: "CANCEL", bookingId: id, at: now, reason: "payment-lapsed" },
      ])
    case "NoShowExpire": {
      const expire =
        command.postStartExpireMinutes ?? MEETING_CONFIG_DEFAULTS.postStartExpireMinutes
      if (expire < 0) return violated("no-show auto-cancel is disabled for this asset")
      if (booking.checkIns.length > 0) return illegal(booking, "NoShowExpire")
      if (now < noShowDueAt(booking.start, expire)) {
        return violated("the no-show deadline has not passed yet")
      }
      return done({ status: "cancelled" }, "no-show", [
        { kind: "CANCEL", bookingId: id, at: now, reason: "no-show" },
      ])
    }
    case "End":
      // The end may have moved since the timer was set (an extension): refuse early ends.
      if (now < booking.end) return violated("the booking has not ended yet")
      return done({ status: "done" }, "end")
    case "Reject":
      // Integrators saw BOOK or an unpaid hold; CANCEL without reason tells them it is gone.
      return done({ status: "rejected" }, "reject", [{ kind: "CANCEL", bookingId: id, at: now }])
  }
}

export interface CreateBookingInput {
  readonly id: string
  readonly projectId: string
  readonly assetKind: AssetKind
  readonly assetId: string
  readonly title: string
  readonly body?: string
  readonly start: number
  readonly end: number
  readonly organizer: Organizer
  readonly attendees?: ReadonlyArray<Attendee>
  readonly estimatedAttendance?: number
  /** Generated by the caller: the core has no randomness. */
  readonly pinCode: string
  readonly recurrence?: Recurrence
  /** A paid asset starts unpaid and is confirmed (BOOK) only by PaymentCompleted. */
  readonly paid: boolean
}

/**
 * The (none) -> active | unpaid rows of the status table. Slot conflicts and asset rules are
 * the caller's checks (they need other bookings and the asset); this guards the record.
 */
export const createBooking = (
  input: CreateBookingInput,
  now: number,
): Result.Result<Transitioned, BookingRuleViolated> => {
  if (!(input.end > input.start)) return violated("endDateTime must be after startDateTime")
  const status: BookingStatus = input.paid ? "unpaid" : "active"
  const booking: Booking = {
    id: input.id,
    projectId: input.projectId,
    assetKind: input.assetKind,
    assetId: input.assetId,
    title: input.title,
    ...(input.body === undefined ? {} : { body: input.body }),
    status,
    start: input.start,
    end: input.end,
    organizer: input.organizer,
    attendees: input.attendees ?? [],
    ...(input.estimatedAttendance === undefined
      ? {}
      : { estimatedAttendance: input.estimatedAttendance }),
    pinCode: input.pinCode,
    checkIns: [],
    ...(input.recurrence === undefined ? {} : { recurrence: input.recurrence }),
    createdAt: now,
    updatedAt: now,
  }
  return Result.succeed({
    booking,
    events: status === "active" ? [{ kind: "BOOK", bookingId: input.id, at: now }] : [],
    history: { action: "create", at: now, by: input.organizer.userId },
  })
}
