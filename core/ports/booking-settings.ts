import { Context } from "effect"

/** The operator's settings the booking use cases apply (from the service configuration). */
export class BookingSettings extends Context.Service<
  BookingSettings,
  {
    /** KEYSPACE_MAX_UNPAID_HOLDS: live unpaid bookings a person may hold. */
    readonly maxUnpaidHoldsPerOrganizer: number
    /** KEYSPACE_MAX_UNPAID_HOLDS_PER_APP: the same for an app booking as itself. */
    readonly maxUnpaidHoldsPerApp: number
    /** KEYSPACE_PAYMENT_WINDOW: seconds a payer has. */
    readonly paymentWindowSeconds: number
  }
>()("keyspace/ports/BookingSettings") {}
