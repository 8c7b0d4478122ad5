import { Context, type Effect, type Result } from "effect"
import type { StateConflict, ValidationFailed } from "../shared/errors.ts"

/**
 * Moves the deployment's manual clock. `target(current)` picks the new time from the clock as
 * it is under the deployment-wide lock (another process may have moved it); `after(now)` runs
 * before any other advance, on any process, may start. StateConflict: the clock is not manual.
 */
export class ClockAdvance extends Context.Service<
  ClockAdvance,
  {
    readonly advance: (
      target: (current: number) => Result.Result<number, ValidationFailed>,
      after: (now: number) => Effect.Effect<void>,
    ) => Effect.Effect<number, StateConflict | ValidationFailed>
  }
>()("keyspace/ports/ClockAdvance") {}
