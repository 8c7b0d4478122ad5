/**
 * Reading a database error's SQLSTATE through the wrappers that keep it as a `cause` (Drizzle's
 * query error), for both drivers (postgres-js's PostgresError, PGlite's DatabaseError).
 */

/** The error and the causes a wrapper keeps, innermost last. */
export const errorChain = function* (e: unknown): Generator<{ code?: unknown; severity?: unknown }> {
  let cur: unknown = e
  for (let i = 0; i < 4 && typeof cur === "object" && cur !== null; i++) {
    yield cur as { code?: unknown; severity?: unknown }
    cur = (cur as { cause?: unknown }).cause
  }
}

/** Whether `e` or a cause it keeps has a code `test` accepts. */
export const hasCode = (e: unknown, test: (code: string) => boolean): boolean => {
  for (const c of errorChain(e)) if (typeof c.code === "string" && test(c.code)) return true
  return false
}

/**
 * The data exceptions (class 22) a value a request carries can cause: a string too long (22001),
 * a number out of range (22003), a date-time out of range or unreadable (22007, 22008), a NUL or
 * a character the encoding lacks (22021, 22P05), text a type cannot read (22P02). Not the rest
 * of the class (a division by zero, an array subscript), which only the server's own SQL causes.
 */
const REQUEST_VALUE_FAULTS = new Set(["22001", "22003", "22007", "22008", "22021", "22P02", "22P05"])

/**
 * PostgreSQL refused a value of the statement. The routes' schemas refuse such values before any
 * SQL; this is the backstop for one they let through: 400, never 500 (adapters/http/run.ts),
 * logged as an error, since a schema (or the server's own arithmetic) needs fixing.
 */
export const isRefusedValue = (e: unknown): boolean => hasCode(e, (code) => REQUEST_VALUE_FAULTS.has(code))
