/**
 * A database connection lost under a statement: the server ended the session
 * (`pg_terminate_backend`, a restart, a failover), or the socket broke. Nothing a client sent
 * caused it and a retry may well succeed: the HTTP edge answers 503 SV004 with Retry-After,
 * not 500, and the hot paths retry where that is provably safe (`backendEnded`).
 */

import { errorChain, hasCode } from "./sqlstate.ts"

/** postgres-js's own codes for a connection that closed or never opened. */
const DRIVER_CODES = new Set(["CONNECTION_CLOSED", "CONNECTION_DESTROYED", "CONNECTION_ENDED", "CONNECT_TIMEOUT"])
/** Socket errors of a connection (Node's errno codes), as postgres-js passes them on. */
const SOCKET_CODES = new Set(["ECONNRESET", "ECONNREFUSED", "EPIPE", "ETIMEDOUT", "EHOSTUNREACH", "ENETUNREACH"])
/** SQLSTATE class 08, connection exception. */
const CONNECTION_EXCEPTION = /^08[0-9A-Z]{3}$/
/**
 * SQLSTATEs of a session PostgreSQL ended or could not start for a passing reason, besides class
 * 08: 57P01-57P03 (administrator, crash or fast shutdown; cannot connect now), 53300 (too many
 * connections) and 55000 as a FATAL (the database does not allow connections: an operator's
 * maintenance, `ALLOW_CONNECTIONS false`). A FATAL with another code (a wrong password, a missing
 * database) is a configuration error: it stays a 500.
 */
const SESSION_ENDED = /^(57P0[1-3]|53300|55000)$/

/**
 * PostgreSQL itself ended the session for a passing reason (a FATAL or PANIC of class 08 or `SESSION_ENDED`):
 * the backend is gone, so its transaction is over, committed or rolled back, and its outcome is
 * visible to a new connection (interrupts are held through a commit, and the FATAL is sent after
 * it). postgres-js reports such a FATAL to a statement not yet running; for a running one it
 * reports CONNECTION_CLOSED, which tells nothing of the outcome.
 */
export const backendEnded = (e: unknown): boolean => {
  for (const c of errorChain(e))
    if ((c.severity === "FATAL" || c.severity === "PANIC") && typeof c.code === "string" && (CONNECTION_EXCEPTION.test(c.code) || SESSION_ENDED.test(c.code)))
      return true
  return false
}

/** The driver's connection closed or PostgreSQL ended the session: no socket errors of others. */
const driverConnectionLost = (e: unknown): boolean => backendEnded(e) || hasCode(e, (code) => DRIVER_CODES.has(code))

/** Whether `e` is a lost connection (see the module comment), not an answer of the database. */
export const isConnectionLoss = (e: unknown): boolean =>
  driverConnectionLost(e) || hasCode(e, (code) => SOCKET_CODES.has(code) || CONNECTION_EXCEPTION.test(code))

/**
 * How long to wait before each new attempt at work whose session was lost (a restarted or
 * terminated backend, a failover): the pool's connections are replaced meanwhile.
 */
export const RETRY_DELAYS_MS = [50, 100] as const

/**
 * `read` (a statement safe to repeat: it changes nothing) tried up to three times while its
 * connection is lost, 50 then 100 ms apart: when PostgreSQL ends every session at once, the
 * pool still holds other dead connections for a moment, and an immediate retry meets one.
 */
export const retryingRead = async <A>(read: () => Promise<A>): Promise<A> => {
  for (let attempt = 0; ; attempt++) {
    try {
      return await read()
    } catch (e) {
      const delay = RETRY_DELAYS_MS[attempt]
      if (delay === undefined || !isConnectionLoss(e)) throw e
      await new Promise((resolve) => setTimeout(resolve, delay))
    }
  }
}

/** The longest wait before a new connection attempt after failed ones (seconds). */
export const RECONNECT_BACKOFF_MAX_S = 1

/**
 * postgres-js's `backoff`: how long a connection waits before connecting again after `retries`
 * failed attempts (counted across the pool, reset by a success). The driver's own curve (3^n /
 * 100 s, with jitter, so processes reconnecting after a failover do not knock in step), capped at
 * 1 s instead of 20: after an outage of a few seconds every request, the token checks first,
 * waited up to 20 s for a database that was back.
 */
export const reconnectBackoff = (retries: number): number =>
  (0.5 + Math.random() / 2) * Math.min(3 ** retries / 100, RECONNECT_BACKOFF_MAX_S)
