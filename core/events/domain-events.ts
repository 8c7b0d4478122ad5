/**
 * Domain events a booking change emits. They are recorded in the outbox in the same
 * transaction as the change; core/events/booking-payloads.ts turns them into webhook data.
 * Times are epoch milliseconds, so events serialize unchanged into Temporal histories.
 */
export type BookingEventKind =
  | "BOOK"
  | "MODIFY"
  | "CANCEL"
  | "REMINDER"
  | "NO_SHOW_WARNING"
  | "ENDING_SOON"

/** Why the system (not a person) cancelled; absent for a user or admin cancel. */
export type AutoCancelReason = "no-show" | "payment-lapsed"

export type BookingDomainEvent =
  | { readonly kind: "BOOK"; readonly bookingId: string; readonly at: number }
  | {
      readonly kind: "MODIFY"
      readonly bookingId: string
      readonly at: number
      readonly oldStart: number
      readonly oldEnd: number
      readonly newStart: number
      readonly newEnd: number
    }
  | {
      readonly kind: "CANCEL"
      readonly bookingId: string
      readonly at: number
      readonly reason?: AutoCancelReason
    }
  | {
      readonly kind: "REMINDER"
      readonly bookingId: string
      readonly at: number
      readonly minutesUntilStart: number
    }
  | {
      readonly kind: "NO_SHOW_WARNING"
      readonly bookingId: string
      readonly at: number
      readonly minutesUntilAutoCancel: number
    }
  | {
      readonly kind: "ENDING_SOON"
      readonly bookingId: string
      readonly at: number
      readonly minutesUntilEnd: number
    }
