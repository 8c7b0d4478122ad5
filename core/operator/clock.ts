import { Context, Effect, Layer, Result, Semaphore } from "effect"
import { ClockAdvance } from "../ports/clock-advance.ts"
import { SchedulerDrain } from "../ports/scheduler-drain.ts"
import { WebhookDrain } from "../ports/webhook-drain.ts"
import { ValidationFailed, type StateConflict } from "../shared/errors.ts"

/** How far the operator moves the test clock: by minutes, or to an instant (ms; NaN = unparsable). */
export type ClockStep = { readonly _tag: "By"; readonly minutes: number } | { readonly _tag: "To"; readonly at: number }

/**
 * Past year 9999 an ISO date-time needs six digits, which PostgreSQL timestamps refuse; the
 * clock stops a year before, so the times it stamps ahead of itself (a refresh token's 30 days,
 * payment windows, retries) stay within 9999 too (a clock near the end made token grants 500).
 */
export const LATEST_CLOCK_INSTANT = Date.parse("9998-12-31T23:59:59.999Z")

/** The new time for `step` from the clock's `current` time (never backwards, never past 9999). */
export const clockTarget = (step: ClockStep, current: number): Result.Result<number, ValidationFailed> => {
  const target = step._tag === "By" ? current + step.minutes * 60_000 : step.at
  if (Number.isNaN(target)) return Result.fail(new ValidationFailed({ messages: ["to: not a valid date-time"] }))
  if (target < current) return Result.fail(new ValidationFailed({ messages: ["to: must not be earlier than now"] }))
  if (target > LATEST_CLOCK_INSTANT)
    return Result.fail(new ValidationFailed({ messages: ["clock: must stay before 9999-01-01T00:00:00Z"] }))
  return Result.succeed(target)
}

/**
 * The operator's test clock (operator contract, section 3). An advance answers only once what
 * it made due has happened: the due booking ticks are applied (writing their outbox events),
 * then the webhooks they and earlier changes produced are relayed and attempted. The order is
 * this code; advances run one at a time here, and the clock's lock orders them across processes.
 */
export class ClockControl extends Context.Service<
  ClockControl,
  { readonly advance: (step: ClockStep) => Effect.Effect<number, StateConflict | ValidationFailed> }
>()("keyspace/core/ClockControl") {
  static readonly layer = Layer.effect(
    ClockControl,
    Effect.gen(function* () {
      const clock = yield* ClockAdvance
      const scheduler = yield* SchedulerDrain
      const webhooks = yield* WebhookDrain
      const one = yield* Semaphore.make(1)
      const afterAdvance = (now: number) =>
        Effect.andThen(scheduler.drainUntil(now), webhooks.drainDue(now))
      const advance = Effect.fn("ClockControl.advance")(function* (step: ClockStep) {
        return yield* one.withPermits(1)(clock.advance((current) => clockTarget(step, current), afterAdvance))
      })
      return ClockControl.of({ advance })
    }),
  )
}
