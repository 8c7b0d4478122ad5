import { Context, Effect, Exit, Layer, Schema } from "effect"
import { UnitOfWork } from "../../core/ports/unit-of-work.ts"
import type { Database, Queryable, Tx } from "./database.ts"

/** The open database (PGlite or PostgreSQL) as a service: stores reach SQL through it only. */
export class SqlDatabase extends Context.Service<SqlDatabase, Database>()("keyspace/postgres/SqlDatabase") {}

/** The transaction the current fiber runs in, if any (set by UnitOfWorkPostgres). */
export const CurrentTx = Context.Reference<Tx | undefined>("keyspace/postgres/CurrentTx", {
  defaultValue: () => undefined,
})

/** A driver error; stores map codes with domain meaning to typed failures and let the rest die. */
export class DatabaseError extends Schema.TaggedError<DatabaseError>()("DatabaseError", {
  cause: Schema.Defect(),
}) {}

/** Runs `f` on the current transaction, or on the database outside one. */
export const query = <A>(f: (q: Queryable) => Promise<A>): Effect.Effect<A, DatabaseError, SqlDatabase> =>
  Effect.gen(function* () {
    const { db } = yield* SqlDatabase
    const tx = yield* CurrentTx
    return yield* Effect.tryPromise({ try: () => f(tx ?? db), catch: (cause) => new DatabaseError({ cause }) })
  })

/** Runs `f` on the current transaction; dies when none is open (a store method that must be atomic). */
export const inTx = <A>(name: string, f: (tx: Tx) => Promise<A>): Effect.Effect<A, DatabaseError> =>
  Effect.gen(function* () {
    const tx = yield* CurrentTx
    if (tx === undefined) return yield* Effect.die(new Error(`${name} outside a transaction`))
    return yield* Effect.tryPromise({ try: () => f(tx), catch: (cause) => new DatabaseError({ cause }) })
  })

/** `query` whose driver errors are defects (most reads: nothing there has domain meaning). */
export const read = <A>(f: (q: Queryable) => Promise<A>): Effect.Effect<A, never, SqlDatabase> =>
  query(f).pipe(Effect.catchTag("DatabaseError", (e) => Effect.die(e.cause)))

/** `inTx` whose driver errors are defects. */
export const write = <A>(name: string, f: (tx: Tx) => Promise<A>): Effect.Effect<A> =>
  inTx(name, f).pipe(Effect.catchTag("DatabaseError", (e) => Effect.die(e.cause)))

class Rollback {
  constructor(readonly exit: Exit.Exit<unknown, unknown>) {}
}

/** One database transaction per unit of work; a failure or defect inside rolls it back. */
export const UnitOfWorkPostgres = Layer.effect(
  UnitOfWork,
  Effect.gen(function* () {
    const { db } = yield* SqlDatabase
    return UnitOfWork.of({
      transaction: <A, E, R>(self: Effect.Effect<A, E, R>) =>
        Effect.gen(function* () {
          if ((yield* CurrentTx) !== undefined) return yield* self // join the enclosing transaction
          const ctx = yield* Effect.context<R>()
          const exit = yield* Effect.promise((signal) =>
            db
              .transaction(async (tx) => {
                const exit = await Effect.runPromiseExitWith(Context.add(ctx, CurrentTx, tx))(self, { signal })
                if (Exit.isFailure(exit)) throw new Rollback(exit)
                return exit
              })
              .catch((e: unknown): Exit.Exit<A, E> => (e instanceof Rollback ? (e.exit as Exit.Exit<A, E>) : Exit.die(e))),
          )
          return yield* exit
        }),
    })
  }),
)

/** Runs an effect inside a transaction opened by legacy Promise code (bridge until every caller is a use case). */
export const provideTx = <A, E, R>(tx: Tx, self: Effect.Effect<A, E, R>): Effect.Effect<A, E, Exclude<R, never>> =>
  Effect.provideService(self, CurrentTx, tx)
