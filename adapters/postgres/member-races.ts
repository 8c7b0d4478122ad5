import { Effect } from "effect"
import { IdentityKeyTaken, WriteConflict, type ConflictKey } from "../../core/member/errors.ts"
import type { MemberWriteFailure } from "../../core/ports/member-store.ts"
import type { Tx } from "./database.ts"
import { PG_DEADLOCK_DETECTED, PG_SERIALIZATION_FAILURE, PG_UNIQUE_VIOLATION, pgErrorOf } from "./database.ts"
import { inTx } from "./unit-of-work.ts"

/** Unique indexes that guard the identity keys, as the conflictKey a client can act on. */
export const CONFLICT_KEY_OF_CONSTRAINT: Record<string, ConflictKey> = {
  users_email_norm_uq: "email",
  users_phone_uq: "phone",
  memberships_employee_uq: "employeeId",
  users_username_uq: "employeeId",
}

/**
 * A member write in the current transaction. A race the locks do not cover becomes a typed
 * failure the member transaction retries: a unique violation on an identity index is
 * IdentityKeyTaken, on another index or a serialization failure / deadlock WriteConflict;
 * anything else is a defect.
 */
export const memberWrite = <A>(name: string, f: (tx: Tx) => Promise<A>): Effect.Effect<A, MemberWriteFailure> =>
  inTx(name, f).pipe(
    Effect.catchTag("DatabaseError", (e): Effect.Effect<never, MemberWriteFailure> => {
      const pg = pgErrorOf(e.cause)
      if (pg?.code === PG_UNIQUE_VIOLATION) {
        const key = CONFLICT_KEY_OF_CONSTRAINT[pg.constraint ?? ""]
        return Effect.fail(key ? new IdentityKeyTaken({ conflictKey: key }) : new WriteConflict({ kind: "unique" }))
      }
      if (pg?.code === PG_SERIALIZATION_FAILURE || pg?.code === PG_DEADLOCK_DETECTED)
        return Effect.fail(new WriteConflict({ kind: "serialization" }))
      return Effect.die(e.cause)
    }),
  )
