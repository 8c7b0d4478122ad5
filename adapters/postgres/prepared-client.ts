import type { Sql, TransactionSql } from "postgres"

/**
 * Drizzle sends every query that is not a named `.prepare()` with `prepare: false`. postgres-js
 * then sends an unnamed statement, and when it has parameters it describes it first and waits
 * for the answer before binding: two round trips and a parse for every query, and the queries
 * of a `pipeline` (database.ts) went one after the other instead of back to back.
 *
 * Seen through this client, a query is prepared instead: postgres-js keeps it
 * per connection by its text and types (one round trip from the second use, no parse). A query
 * with more than `MAX_PREPARED_PARAMETERS` parameters (an `IN` list of a batch: one text per
 * length) stays unnamed, so what a connection keeps stays bounded by the texts the code holds
 * (no query text is built from values).
 *
 * PostgreSQL re-plans a kept statement by itself after DDL. The one change it refuses is a
 * different result type for a kept query (ALTER COLUMN TYPE on a column it reads): postgres-js
 * re-prepares and retries it outside a transaction, but inside one the transaction is already
 * aborted. Drizzle names its columns, so only such a type change hits a process still running
 * during a rolling deploy: change a column's type in two releases (add, then drop), as any
 * migration under live traffic must.
 */
const MAX_PREPARED_PARAMETERS = 16

type Unsafe = Sql["unsafe"]
type Options = Parameters<Unsafe>[2]

const preparedOptions = (query: string, params: ReadonlyArray<unknown> | undefined, options: Options): Options => {
  const n = params?.length ?? 0
  if (n > MAX_PREPARED_PARAMETERS) return options
  if (n > 0) return { ...options, prepare: true }
  // postgres-js sends a query without parameters over the simple protocol, parsed and planned
  // anew each time (Drizzle's named `.prepare()` too): a single statement is prepared instead.
  // Text with several statements needs the simple protocol.
  // (`simple` is an option postgres-js reads but does not declare.)
  return query.includes(";") ? options : ({ ...options, prepare: true, simple: false } as Options)
}

/** The transaction's client, seen the same way (drizzle runs a transaction's queries on it). */
const inTransaction =
  <F extends (...args: never[]) => unknown>(open: F) =>
  (...args: unknown[]) => {
    const work = args.at(-1) as (tx: TransactionSql) => unknown
    return (open as unknown as (...a: unknown[]) => unknown)(...args.slice(0, -1), (tx: TransactionSql) => work(preparing(tx)))
  }

export const preparing = <C extends Sql | TransactionSql>(client: C): C =>
  new Proxy(client, {
    get(target, key) {
      const value = Reflect.get(target, key)
      if (key === "unsafe")
        return ((query, params, options) => (target.unsafe as Unsafe)(query, params, preparedOptions(query, params, options))) as Unsafe
      if ((key === "begin" || key === "savepoint") && typeof value === "function") return inTransaction(value as never)
      return value
    },
  })
