import { Context, Effect, Layer } from "effect"
import { Clock } from "../ports/clock.ts"
import { RateLimited } from "../shared/errors.ts"

/** Wrong pinCodes one booking takes within the window before pin-authorized calls on it wait. */
export const PIN_MISSES_ALLOWED = 10
export const PIN_MISS_WINDOW_MS = 15 * 60_000
/** Bookings whose misses are remembered at once; the oldest is forgotten beyond it. */
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
      const misses = new Map<string, number[]>()
      const recent = (bookingId: string, now: number): number[] =>
        (misses.get(bookingId) ?? []).filter((t) => t > now - PIN_MISS_WINDOW_MS && t <= now + PIN_MISS_WINDOW_MS)
      return PinAttempts.of({
        check: (bookingId) =>
          Effect.suspend(() => {
            const now = clock.now()
            const kept = recent(bookingId, now)
            if (kept.length < PIN_MISSES_ALLOWED) return Effect.void
            const frees = kept[kept.length - PIN_MISSES_ALLOWED]! + PIN_MISS_WINDOW_MS
            return Effect.fail(new RateLimited({ retryAfterSeconds: Math.max(1, Math.ceil((frees - now) / 1000)) }))
          }),
        miss: (bookingId) =>
          Effect.sync(() => {
            const now = clock.now()
            const kept = [...recent(bookingId, now), now].slice(-PIN_MISSES_ALLOWED)
            misses.delete(bookingId)
            if (misses.size >= BOOKINGS_REMEMBERED) misses.delete(misses.keys().next().value!)
            misses.set(bookingId, kept)
          }),
      })
    }),
  )
}
