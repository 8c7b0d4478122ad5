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
    for (const [name, value] of [["PORT", "abc"], ["KEYSPACE_CLOCK", "fast"], ["KEYSPACE_CLOCK_START", "yesterday"], ["DATABASE_URL", "mysql://x"]] as const) {
      expect(() => parseConfig({ [name]: value })).toThrow(ConfigError)
      expect(() => parseConfig({ [name]: value })).toThrow(name)
    }
  })
})
