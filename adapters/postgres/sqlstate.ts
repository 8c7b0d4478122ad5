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

/** SQLSTATE class 22, data exception: a value the database cannot hold (a NUL in text, a number out of range). */
const DATA_EXCEPTION = /^22[0-9A-Z]{3}$/

/**
 * PostgreSQL refused a value of the statement (class 22). The routes' schemas refuse such values
 * before any SQL; this is the backstop for one they let through: the request's value, not the
 * server, is at fault, so the edge answers 400, never 500 (adapters/http/run.ts).
 */
export const isRefusedValue = (e: unknown): boolean => hasCode(e, (code) => DATA_EXCEPTION.test(code))
