import { Context, Effect, Layer } from "effect"
import { admit } from "../auth/rate-limit.ts"
import { Clock } from "../ports/clock.ts"
import { recentMap } from "../shared/recent-map.ts"
import { RateLimited } from "../shared/errors.ts"

/** Wrong pinCodes one booking takes within the window before pin-authorized calls on it wait. */
export const PIN_MISSES_ALLOWED = 10
export const PIN_MISS_WINDOW_MS = 15 * 60_000
const PIN_MISS_LIMIT = { requests: PIN_MISSES_ALLOWED, windowSeconds: PIN_MISS_WINDOW_MS / 1000 }
/** Bookings whose misses are remembered at once; the least recently missed is forgotten beyond it. */
const BOOKINGS_REMEMBERED = 10_000

/**
 * Spec Meetings rule 6: a pinCode authorizes a non-organizer's PATCH, cancel, check-in and
 * check-out. It has six digits: unthrottled, a member of the project could try them all in about
 * an hour. After PIN_MISSES_ALLOWED wrong pinCodes within PIN_MISS_WINDOW_MS, a call on that
 * booking presenting a pinCode is 429 SV036 with Retry-After until the oldest miss leaves the
 * window; the organizer, who needs no pinCode, is never held. Kept per process: N processes
 * behind a balancer allow N times the misses, which still leaves a guess years away.
 */
export class PinAttempts extends Context.Service<
  PinAttempts,
  {
    /** Refuses (RateLimited) while the booking has taken its allowance of wrong pinCodes. */
    readonly check: (bookingId: string) => Effect.Effect<void, RateLimited>
    /** Records a wrong pinCode presented for the booking. */
    readonly miss: (bookingId: string) => Effect.Effect<void>
  }
>()("keyspace/core/PinAttempts") {
  static readonly layer = Layer.effect(
    PinAttempts,
    Effect.gen(function* () {
      const clock = yield* Clock
      // The partner budget's sliding window (core/auth/rate-limit.ts), over misses, not requests.
      const misses = recentMap<string, ReadonlyArray<number>>(BOOKINGS_REMEMBERED)
      const decide = (bookingId: string) => admit(misses.peek(bookingId) ?? [], clock.now(), PIN_MISS_LIMIT)
      return PinAttempts.of({
        check: (bookingId) =>
          Effect.suspend(() => {
            const d = decide(bookingId)
            return d.admitted ? Effect.void : Effect.fail(new RateLimited({ retryAfterSeconds: d.retryAfterSeconds }))
          }),
        miss: (bookingId) =>
          Effect.sync(() => {
            const d = decide(bookingId)
            if (d.admitted) misses.set(bookingId, d.hits)
          }),
      })
    }),
  )
}
