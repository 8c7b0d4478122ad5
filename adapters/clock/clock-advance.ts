import { Effect, Layer, Result } from "effect"
import { Clock } from "../../core/ports/clock.ts"
import { ClockAdvance } from "../../core/ports/clock-advance.ts"
import { StateConflict, ValidationFailed } from "../../core/shared/errors.ts"
import { isSharedManual } from "./clocks.ts"

/** Carries the core's refusal out of the shared clock's Promise callback. */
class Refused {
  constructor(readonly failure: ValidationFailed) {}
}

/** ClockAdvance over the deployment's shared manual clock (StateConflict on the system clock). */
export const ClockAdvanceLive = Layer.effect(
  ClockAdvance,
  Effect.gen(function* () {
    const clock = yield* Clock
    return ClockAdvance.of({
      advance: (target, after) => {
        if (!isSharedManual(clock))
          return Effect.fail(new StateConflict({ reason: "the clock is not manual (KEYSPACE_CLOCK=manual)" }))
        return Effect.tryPromise({
          try: () =>
            clock.advance(
              (current) => {
                const next = target(current)
                if (Result.isFailure(next)) throw new Refused(next.failure)
                return next.success
              },
              (now) => Effect.runPromise(after(now)),
            ),
          catch: (e) => e,
        }).pipe(Effect.catch((e) => (e instanceof Refused ? Effect.fail(e.failure) : Effect.die(e))))
      },
    })
  }),
)
