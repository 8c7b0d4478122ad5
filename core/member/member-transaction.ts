import { Effect } from "effect"
import type { UnitOfWork } from "../ports/unit-of-work.ts"
import { StateConflict } from "../shared/errors.ts"
import { IdentityConflict, IdentityKeyTaken, WriteConflict } from "./errors.ts"

type Race = IdentityKeyTaken | WriteConflict

const isRace = (e: unknown): e is Race => e instanceof IdentityKeyTaken || e instanceof WriteConflict

/**
 * Runs a member transaction, retrying (twice) when a concurrent writer won a race the locks
 * do not cover (two ids claiming one email at once, a random card number drawn twice). The
 * retry re-reads and lets the core decide; if the race persists, the violated key is the
 * answer (IdentityConflict), another unique index a StateConflict, a lasting deadlock a defect.
 */
export const memberTransaction =
  (uow: UnitOfWork["Service"]) =>
  <A, E, R>(work: Effect.Effect<A, E, R>): Effect.Effect<A, Exclude<E, Race> | IdentityConflict | StateConflict, R> =>
    (uow.transaction(work).pipe(Effect.retry({ times: 2, while: isRace })) as Effect.Effect<A, unknown, R>).pipe(
      Effect.catchIf(isRace, (e): Effect.Effect<never, IdentityConflict | StateConflict> =>
        e._tag === "IdentityKeyTaken"
          ? Effect.fail(new IdentityConflict({ conflictKey: e.conflictKey }))
          : e.kind === "unique"
            ? Effect.fail(new StateConflict({ reason: "a concurrent change conflicted; retry" }))
            : Effect.die(e),
      ),
    ) as Effect.Effect<A, Exclude<E, Race> | IdentityConflict | StateConflict, R>
