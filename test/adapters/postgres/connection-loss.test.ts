import postgres from "postgres"
import { describe, expect, it } from "vitest"
import { backendEnded, isConnectionLoss, RECONNECT_BACKOFF_MAX_S, reconnectBackoff } from "../../../adapters/postgres/connection-loss.ts"

const pgError = (severity: string, code: string) => Object.assign(new postgres.PostgresError("x" as never), { severity, code })
/** How Drizzle hands a driver error on: its own error with the driver's as the cause. */
const wrapped = (cause: unknown) => Object.assign(new Error("Failed query: select 1"), { cause })

describe("a lost database connection is told apart from the database's answers", () => {
  it.each([
    ["a session PostgreSQL terminated (FATAL 57P01)", pgError("FATAL", "57P01"), true, true],
    ["a crash shutdown (57P02) as Drizzle wraps it", wrapped(pgError("FATAL", "57P02")), true, true],
    ["too many connections (FATAL 53300)", pgError("FATAL", "53300"), true, true],
    ["a database that does not allow connections (FATAL 55000, maintenance)", pgError("FATAL", "55000"), true, true],
    ["a 55000 ERROR is an answer (a statement's prerequisite), not a loss", pgError("ERROR", "55000"), false, false],
    ["a wrong password (FATAL 28P01) is a configuration error", pgError("FATAL", "28P01"), false, false],
    ["a missing database (FATAL 3D000) is a configuration error", pgError("FATAL", "3D000"), false, false],
    ["a broken socket", Object.assign(new Error("write EPIPE"), { code: "EPIPE" }), true, false],
    ["postgres-js's closed connection", wrapped(Object.assign(new Error("write CONNECTION_CLOSED"), { code: "CONNECTION_CLOSED" })), true, false],
    ["a connection exception (class 08)", pgError("ERROR", "08006"), true, false],
    ["a taken slot (23P01) is an answer, not a loss", pgError("ERROR", "23P01"), false, false],
    ["a deadlock (40P01) is an answer, not a loss", wrapped(pgError("ERROR", "40P01")), false, false],
    ["a plain error", new Error("boom"), false, false],
  ])("%s", (_name, error, loss, ended) => {
    expect(isConnectionLoss(error)).toBe(loss)
    expect(backendEnded(error)).toBe(ended)
  })
})

describe("reconnecting after an outage", () => {
  it("a connection waits at most RECONNECT_BACKOFF_MAX_S before its next attempt, however many failed before (the driver's default grew to 20 s)", () => {
    for (const retries of [0, 1, 5, 10, 50, 1000]) {
      const wait = reconnectBackoff(retries)
      expect(wait).toBeGreaterThan(0)
      expect(wait).toBeLessThanOrEqual(RECONNECT_BACKOFF_MAX_S)
    }
    expect(RECONNECT_BACKOFF_MAX_S).toBeLessThanOrEqual(1)
  })
})
