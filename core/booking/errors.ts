import { Schema } from "effect"

/** The asset already has a live booking overlapping the requested slot (recoverable). */
export class SlotTaken extends Schema.TaggedError<SlotTaken>()("SlotTaken", {
  assetId: Schema.String,
}) {}

/** A command that the booking's current status does not allow (spec rules 1-4). */
export class IllegalTransition extends Schema.TaggedError<IllegalTransition>()(
  "IllegalTransition",
  { bookingId: Schema.String, from: Schema.String, command: Schema.String },
) {}

/** A booking that breaks its asset's configuration (hours, breaks, lead time, ...). */
export class BookingRuleViolated extends Schema.TaggedError<BookingRuleViolated>()(
  "BookingRuleViolated",
  { messages: Schema.Array(Schema.String) },
) {}

/** An organizer holds too many unpaid bookings at once (anti hold-hoarding). */
export class TooManyUnpaidHolds extends Schema.TaggedError<TooManyUnpaidHolds>()(
  "TooManyUnpaidHolds",
  { limit: Schema.Number },
) {}
