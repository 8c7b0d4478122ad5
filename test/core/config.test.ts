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
      // An env file's trailing space: every operator call would be a 401.
      ["KEYSPACE_ADMIN_TOKEN", "admin-token-0123456789 "],
    ] as const) {
      expect(() => parseConfig({ [name]: value })).toThrow(ConfigError)
      expect(() => parseConfig({ [name]: value })).toThrow(name)
    }
  })
})
