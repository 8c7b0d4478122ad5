/**
 * Webhook delivery policy (spec "Delivery policy", "Limits"): what happens after an attempt.
 * Pure: the dispatcher reads the service clock and passes `now` in, so the test clock drives
 * retries exactly as it drives bookings.
 */

/** Attempts per delivery, the first included. */
export const MAX_ATTEMPTS = 5

/** The receiver must answer 2xx within this. */
export const ATTEMPT_TIMEOUT_MS = 10_000

/** Backoff before the second attempt; doubles after each failure: 1, 2, 4, 8 minutes. */
export const FIRST_BACKOFF_MS = 60_000

/** Consecutive exhausted deliveries that disable a registration. */
export const AUTO_DISABLE_AFTER = 20

export type DeliveryState = "pending" | "delivered" | "failed"

/** Delay before attempt `n + 1` after attempt `n` (1-based) failed. */
export const backoffAfter = (failedAttempt: number): number =>
  FIRST_BACKOFF_MS * 2 ** Math.max(0, failedAttempt - 1)

export type AttemptOutcome =
  | { readonly state: "delivered" }
  | { readonly state: "pending"; readonly nextAttemptAt: number }
  | { readonly state: "failed" }

/**
 * The delivery's state after its `attempt`-th attempt (counted since it was last queued)
 * succeeded or failed at `now`. The fifth failure exhausts it.
 */
export const afterAttempt = (attempt: number, success: boolean, now: number): AttemptOutcome => {
  if (success) return { state: "delivered" }
  if (attempt >= MAX_ATTEMPTS) return { state: "failed" }
  return { state: "pending", nextAttemptAt: now + backoffAfter(attempt) }
}

/** Only 2xx is success; a redirect is not followed and counts as a failure. */
export const isSuccessStatus = (status: number): boolean => status >= 200 && status < 300
