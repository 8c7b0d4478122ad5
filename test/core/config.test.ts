import { describe, expect, it } from "vitest"
import { ConfigError, parseConfig } from "../../adapters/config/config.ts"

describe("configuration", () => {
  it("defaults follow the operator contract", () => {
    const c = parseConfig({})
    expect(c.port).toBe(3000)
    expect(c.publicUrl).toBe("http://localhost:3000")
    expect(c.dataDir).toBe(".keyspace/data")
    expect(c.seed).toBe("demo")
    expect(c.clock.mode).toBe("system")
    expect(c.payments).toBe("sandbox")
  })
  it("a bad value stops the start with a message naming the variable", () => {
    for (const [name, value] of [
      ["PORT", "abc"],
      ["KEYSPACE_CLOCK", "fast"],
      ["KEYSPACE_CLOCK_START", "yesterday"],
      // Outside the clock's range: a grant's 30-day refresh expiry would pass year 9999.
      ["KEYSPACE_CLOCK_START", "9999-12-31T00:00:00Z"],
      ["KEYSPACE_CLOCK_START", "0001-01-01T00:00:00Z"],
      ["DATABASE_URL", "mysql://x"],
      // A day the calendar lacks was rolled into March.
      ["KEYSPACE_CLOCK_START", "2030-02-30T09:00:00Z"],
      ["KEYSPACE_CLOCK_START", "2030-01-07T24:30:00+07:00"],
      // The driver threw a URIError with a stack; an unknown SSL mode failed as "unreachable".
      ["DATABASE_URL", "postgres://postgres:p%ss@127.0.0.1/test"],
      ["DATABASE_URL", "postgres://postgres@127.0.0.1/test?sslmode=bogus"],
      // Paths are appended to it: a query would swallow them.
      ["KEYSPACE_PUBLIC_URL", "https://a.example?x=1"],
      // An env file's trailing space: every operator call would be a 401.
      ["KEYSPACE_ADMIN_TOKEN", "admin-token-0123456789 "],
    ] as const) {
      expect(() => parseConfig({ [name]: value })).toThrow(ConfigError)
      expect(() => parseConfig({ [name]: value })).toThrow(name)
    }
  })

  it("the Temporal scheduler needs DATABASE_URL; a real leap day and a percent-encoded password are fine", () => {
    expect(() => parseConfig({ KEYSPACE_SCHEDULER: "temporal" })).toThrow("KEYSPACE_SCHEDULER")
    expect(parseConfig({ KEYSPACE_SCHEDULER: "temporal", DATABASE_URL: "postgres://u@h/db" }).scheduler).toBe("temporal")
    expect(parseConfig({ KEYSPACE_CLOCK: "manual", KEYSPACE_CLOCK_START: "2032-02-29T23:59:59+07:00" }).clock.start).toBe(Date.parse("2032-02-29T23:59:59+07:00"))
    expect(parseConfig({ DATABASE_URL: "postgres://u:p%25ss@h/db?sslmode=require" }).databaseUrl).toBe("postgres://u:p%25ss@h/db?sslmode=require")
    // Forms the driver takes: several hosts, IPv6, verify-ca, a lowercase t in the clock start.
    for (const url of ["postgres://u:p@h1:5432,h2:5433/db", "postgres://u@[::1]:5432/db", "postgres://u@h/db?sslmode=verify-ca", "postgres:///db"])
      expect(parseConfig({ DATABASE_URL: url }).databaseUrl).toBe(url)
    expect(parseConfig({ KEYSPACE_CLOCK: "manual", KEYSPACE_CLOCK_START: "2030-01-01t09:00:00Z" }).clock.start).toBe(Date.parse("2030-01-01T09:00:00Z"))
  })
})
