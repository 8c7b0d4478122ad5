import type { Booking } from "./state.ts"
import { noShowDeadline, type MeetingConfig } from "./timeline.ts"

/**
 * How long a payer has to pay for a paid create or a paid extension. The window is
 * KEYSPACE_PAYMENT_WINDOW, cut short where paying later would buy nothing: an unpaid booking
 * cannot be checked in (check-in is from `active` only), so money taken after its no-show
 * deadline was taken for a booking cancelled in the same instant, and money taken after its end
 * for a booking already over. Paid within the cut window, the booking is active and can be
 * checked in; lapsed at the deadline, the lapse comes first (tick order) and the no-show follows.
 */

/** The shortest window a payment is opened with (KEYSPACE_PAYMENT_WINDOW's minimum). */
export const MIN_PAYMENT_WINDOW_MS = 60_000

export type PaymentWindow =
  | { readonly _tag: "Window"; readonly windowMs: number }
  | { readonly _tag: "Refused"; readonly reason: string }

const cutAt = (last: number, now: number, windowMs: number, refused: () => string): PaymentWindow => {
  const left = last - now
  if (left >= windowMs) return { _tag: "Window", windowMs }
  if (left >= MIN_PAYMENT_WINDOW_MS) return { _tag: "Window", windowMs: left }
  return { _tag: "Refused", reason: refused() }
}

/**
 * A paid create's window: it ends by the booking's no-show deadline, or by its end when the
 * asset does not cancel no-shows. Less than MIN_PAYMENT_WINDOW_MS left: the create is refused
 * (400 SV001), nothing written.
 */
export const createWindow = (input: {
  readonly start: number
  readonly end: number
  readonly config: MeetingConfig
  readonly now: number
  readonly windowMs: number
}): PaymentWindow => {
  const deadline = noShowDeadline(input, input.config)
  return cutAt(deadline ?? input.end, input.now, input.windowMs, () =>
    deadline === undefined
      ? "endDateTime: a paid booking must leave at least a minute to pay before it ends"
      : `startDateTime: a paid booking must leave at least a minute to pay before its no-show deadline ` +
        `(${input.config.postStartExpireMinutes} minutes after its start, when an unpaid booking that nobody ` +
        "could check in to is cancelled)",
  )
}

/**
 * A paid extension's window, for a booking nobody has checked in to: it ends by the no-show
 * deadline of the times before and after the PATCH, whichever comes first (a lapse restores
 * the old ones). Checked-in bookings and assets without auto-cancel keep the full window. Less
 * than MIN_PAYMENT_WINDOW_MS left: refused (409 SV006), check in first.
 */
export const extensionWindow = (input: {
  readonly before: Booking
  readonly after: Booking
  readonly config: MeetingConfig
  readonly now: number
  readonly windowMs: number
}): PaymentWindow => {
  const full = { _tag: "Window", windowMs: input.windowMs } as const
  if (input.before.status !== "active" || input.before.checkIns.length > 0) return full
  const deadlines = [noShowDeadline(input.before, input.config), noShowDeadline(input.after, input.config)].filter(
    (d): d is number => d !== undefined,
  )
  if (deadlines.length === 0) return full
  return cutAt(
    Math.min(...deadlines),
    input.now,
    input.windowMs,
    () =>
      "check in first: this booking is cancelled as a no-show " +
      `${input.config.postStartExpireMinutes} minutes after its start unless checked in, which an unpaid extension ` +
      "cannot be, and too little time is left to pay for one before that",
  )
}
