import { Context, type Effect } from "effect"

/**
 * Transactions are a port concern: a use case says which steps commit together, the store
 * adapter says how (a PostgreSQL transaction, a snapshot of the memory tables).
 */
export class UnitOfWork extends Context.Service<
  UnitOfWork,
  {
    /** Runs `self` in one transaction; joins an enclosing one. Any failure or defect rolls back. */
    readonly transaction: <A, E, R>(self: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
  }
>()("keyspace/ports/UnitOfWork") {}
