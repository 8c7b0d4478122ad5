import { getTableColumns, is, Param, Placeholder, sql, type DriverValueEncoder, type Table } from "drizzle-orm"
import type { Queryable } from "./database.ts"

/*
 * Drizzle writes a query builder's SQL text anew on every execution: it walks every column and
 * every condition, checking each node's kind along its prototype chain. On the 2-core VM of
 * issue 13's session 14 that was about 0.3 ms of server CPU per select of a whole row: a third
 * of a price preview, and with the updates' and inserts' texts about 40% of a cancel. A kept
 * query is written once, with placeholders where its values go; each execution fills them in
 * on the caller's session (the database, or the transaction it runs in) and maps the rows as
 * Drizzle does.
 *
 * It leans on two members Drizzle does not type as public: a builder's `_prepare()` (whose
 * result holds the text, parameters and returned fields) and a database's `session`. Drizzle is
 * pinned; test/adapters/postgres/kept-query.test.ts fails if either changes shape.
 */

/** A prepared query as both Drizzle drivers (postgres-js and PGlite) build it. */
interface DriverQuery {
  readonly queryString: string
  readonly params: unknown[]
  readonly fields: unknown
  joinsNotNullableMap: unknown
  execute: (values: Record<string, unknown>) => Promise<unknown>
}

interface Session {
  prepareQuery: (query: { sql: string; params: unknown[] }, fields: unknown, name: string, arrayMode: true) => DriverQuery
}

/**
 * The name given to every kept query: with a name Drizzle asks postgres-js for a prepared
 * statement (which postgres-js keeps per connection by its text), whatever the number of
 * parameters; unnamed, one of more than 16 would go unprepared (prepared-client.ts), described
 * and parsed on every execution, and its round trip would hold back the statements sent after
 * it. A kept text is fixed, so what a connection keeps stays bounded. PGlite ignores the name.
 */
const KEPT = "kept"

/** What a query needs to run again: its text and parameters (placeholders among them), its fields. */
interface Built {
  readonly query: { readonly sql: string; readonly params: unknown[] }
  readonly fields: unknown
  readonly joinsNotNullableMap: unknown
}

/** A column's encoder that passes null through, as Drizzle does for a value it is given (not for a placeholder's). */
const nullable = (encoder: DriverValueEncoder<unknown, unknown>): DriverValueEncoder<unknown, unknown> => ({
  mapToDriverValue: (value) => (value === null ? null : encoder.mapToDriverValue(value)),
})

/** `sql.placeholder(name)`: where the value named `name` goes. */
export const param = (name: string): Placeholder => sql.placeholder(name)

/** A param for every column of `table`, named as the column's key: an insert's `.values()` of a whole row. */
export const paramsOf = <T extends Table>(table: T): { [K in keyof T["$inferInsert"]]-?: Placeholder } =>
  Object.fromEntries(Object.keys(getTableColumns(table)).map((key) => [key, param(key)])) as { [K in keyof T["$inferInsert"]]-?: Placeholder }

/**
 * A param in an update's `.set()`, typed as the column's value: Drizzle's types for `.set()`
 * leave placeholders out, but it encodes one there as it does in `.values()` (the test shows it).
 */
export const paramAs = <T>(name: string): T => sql.placeholder(name) as unknown as T

/**
 * A query (select, update, insert) written once by `build`, with `param(name)` where each value
 * goes, and run with `values` by name. A param in `.set()` or `.values()` is encoded by its
 * column as Drizzle encodes a value (a Date, a jsonb object); a param in a condition or in raw
 * `sql` goes to the driver as it is (text as text, a timestamp as its ISO text, a list compared
 * with `= any(...)` as an array).
 */
export const keptQuery = <Result, V extends Record<string, unknown> = Record<string, unknown>>(
  build: (q: Queryable) => PromiseLike<Result>,
) => {
  let built: Built | undefined
  // Async: a throw while building fails the returned promise, like any other failure.
  return async (q: Queryable, values: V): Promise<Result> => {
    if (built === undefined) {
      const first = (build(q) as unknown as { _prepare: () => DriverQuery })._prepare()
      const params = first.params.map((p) => (is(p, Param) && is(p.value, Placeholder) ? new Param(p.value, nullable(p.encoder)) : p))
      built = { query: { sql: first.queryString, params }, fields: first.fields, joinsNotNullableMap: first.joinsNotNullableMap }
    }
    const session = (q as unknown as { session: Session }).session
    const prepared = session.prepareQuery(built.query as { sql: string; params: unknown[] }, built.fields, KEPT, true)
    prepared.joinsNotNullableMap = built.joinsNotNullableMap
    return (await prepared.execute(values)) as Result
  }
}

/** The SQL text a kept query sends (tests: it is the builder's own). */
export const keptText = (build: (q: Queryable) => unknown, q: Queryable): string =>
  (build(q) as { _prepare: () => DriverQuery })._prepare().queryString
