import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { ENGINES } from "../../support/databases.ts"
import { contractManifest } from "../../support/contract-manifest.ts"
import { CLOCK_START, startHarness, type Harness } from "../../support/harness.ts"

describe.each(ENGINES)("foundation on %s", (engine) => {
  let h: Harness
  beforeAll(async () => {
    h = await startHarness(engine)
  })
  afterAll(async () => h?.close())

  it("GET /healthz answers 200 {status: ok}", async () => {
    const res = await h.request("GET", "/healthz")
    expect(res.status).toBe(200)
    expect(res.body).toEqual({ status: "ok" })
  })

  it("operator API requires the admin token (401 SV002)", async () => {
    const res = await h.request("GET", "/admin/v1/clock", { token: "wrong-token-wrong-token" })
    expect(res.status).toBe(401)
    expect(res.body).toMatchObject({ code: "SV002", success: false })
  })

  it("the contract manifest applies twice with identical ids", async () => {
    const first = await h.applyManifest(contractManifest())
    const second = await h.applyManifest(contractManifest())
    expect(second).toEqual(first)
    expect(first.projects.hq.id).toMatch(/^[0-9a-f]{24}$/)
    for (const group of ["zones", "floors", "rooms", "desks", "units", "accessGroups", "discounts", "users", "webhooks"])
      for (const id of Object.values(first.projects.hq[group])) expect(id).toMatch(/^[0-9a-f]{24}$/)
    expect(first.apps.partner).toMatch(/^[0-9a-f]{24}$/)
  })

  it("manifest validation gives 400 SV001 with one message per violated constraint", async () => {
    const res = await h.admin("PUT", "/manifest", { projects: [{ key: "BAD KEY", timezone: "Mars/Base" }], apps: 3 })
    expect(res.status).toBe(400)
    expect(res.body.code).toBe("SV001")
    expect(Array.isArray(res.body.message)).toBe(true)
    expect(res.body.message.length).toBeGreaterThanOrEqual(4)
  })

  it("manifest with a broken key reference is refused and nothing is written", async () => {
    const base = contractManifest().projects![0]!
    const m = { projects: [{ ...base, key: "other", rooms: [{ ...base.rooms![0]!, zone: "nope" }] }], apps: [] }
    const res = await h.admin("PUT", "/manifest", m)
    expect(res.status).toBe(400)
    expect(res.body.message.join(" ")).toContain("unknown zone")
  })

  it("malformed JSON to the manifest is 400 SV001", async () => {
    const res = await h.request("PUT", "/admin/v1/manifest", { body: "{nope", token: "test-admin-token-0123456789" })
    expect(res.status).toBe(400)
    expect(res.body.code).toBe("SV001")
  })

  describe("token endpoint", () => {
    it("app_credentials gives 201 TokenResponse without envelope or token_type", async () => {
      const res = await h.request("POST", "/auth/accessToken", {
        body: { grant_type: "app_credentials", app_id: "partner-app", app_secret: "partner-secret-123" },
      })
      expect(res.status).toBe(201)
      expect(Object.keys(res.body).sort()).toEqual(["access_token", "expires_in", "refresh_token", "refresh_token_expires_in"])
      expect(res.body.expires_in).toBe(3600)
    })

    it("wrong secret is 401", async () => {
      const res = await h.request("POST", "/auth/accessToken", {
        body: { grant_type: "app_credentials", app_id: "partner-app", app_secret: "nope" },
      })
      expect(res.status).toBe(401)
      expect(res.body.success).toBe(false)
    })

    it("unknown grant_type, wrong types and missing fields are 400 SV001 with an array", async () => {
      for (const body of [{ grant_type: "password" }, { grant_type: "app_credentials", app_id: 1 }, {}, [], "x"]) {
        const res = await h.request("POST", "/auth/accessToken", { body })
        expect(res.status).toBe(400)
        expect(res.body.code).toBe("SV001")
        expect(Array.isArray(res.body.message)).toBe(true)
      }
    })

    it("a grant_type no grant has, with other fields of the wrong type, gets a message for each", async () => {
      const res = await h.request("POST", "/auth/accessToken", { body: { grant_type: { bad: true }, app_id: { bad: true }, app_secret: 7 } })
      expect(res.status).toBe(400)
      expect(res.body.message).toHaveLength(3)
      expect(res.body.message.map((m: string) => m.split(":")[0])).toEqual(["grant_type", "app_id", "app_secret"])
    })

    it("refresh rotates the pair; the old refresh token is refused", async () => {
      const first = await h.request("POST", "/auth/accessToken", {
        body: { grant_type: "app_credentials", app_id: "partner-app", app_secret: "partner-secret-123" },
      })
      const second = await h.request("POST", "/auth/accessToken", {
        body: { grant_type: "refresh_token", refresh_token: first.body.refresh_token },
      })
      expect(second.status).toBe(201)
      expect(second.body.refresh_token).not.toBe(first.body.refresh_token)
      const again = await h.request("POST", "/auth/accessToken", {
        body: { grant_type: "refresh_token", refresh_token: first.body.refresh_token },
      })
      expect(again.status).toBe(401)
    })

    it("an access token expires on the service clock (401 SV002)", async () => {
      const token = await h.tokenFor("partner-app", "partner-secret-123")
      // Used first: the grant is kept and its principal built, and expiry still refuses it.
      const projectId = (await h.applyManifest(contractManifest())).projects.hq.id
      const used = await h.request("GET", `/desks?projectId=${projectId}&limit=1`, { token })
      expect(used.status).toBe(200)
      expect((await h.request("GET", `/desks?projectId=${projectId}&limit=1`, { token })).status).toBe(200)
      const res = await h.admin("POST", "/clock/advance", { minutes: 61 })
      expect(res.status).toBe(200)
      const { Tokens } = await import("../../../core/auth/tokens.ts")
      const { Effect } = await import("effect")
      const authenticate = Tokens.use((t) => t.authenticate(`Bearer ${token}`))
      await expect(h.booted.runtime.runPromise(authenticate)).rejects.toMatchObject({ _tag: "Unauthenticated" })
      const expired = await h.request("GET", `/desks?projectId=${projectId}&limit=1`, { token })
      expect(expired.status).toBe(401)
      expect(expired.body).toMatchObject({ code: "SV002", success: false })
    })
  })

  describe("clock", () => {
    it("GET /admin/v1/clock reports manual mode", async () => {
      const res = await h.admin("GET", "/clock")
      expect(res.body.data.mode).toBe("manual")
      expect(Date.parse(res.body.data.now)).toBeGreaterThanOrEqual(Date.parse(CLOCK_START))
    })
    it("advance by minutes and to an instant; earlier than now is 400", async () => {
      const before = Date.parse((await h.admin("GET", "/clock")).body.data.now)
      const res = await h.admin("POST", "/clock/advance", { minutes: 5 })
      expect(Date.parse(res.body.data.now)).toBe(before + 5 * 60_000)
      const to = new Date(before + 3_600_000).toISOString()
      expect((await h.admin("POST", "/clock/advance", { to })).body.data.now).toBe(to)
      expect((await h.admin("POST", "/clock/advance", { to: CLOCK_START })).status).toBe(400)
      expect((await h.admin("POST", "/clock/advance", { minutes: -1 })).status).toBe(400)
    })
    it("the clock stops a year before 10000, so what it stamps ahead (a refresh token's 30 days) stays a date", async () => {
      const res = await h.admin("POST", "/clock/advance", { to: "9999-06-01T00:00:00Z" })
      expect(res.status).toBe(400)
      expect(res.body.message).toEqual(["clock: must stay before 9999-01-01T00:00:00Z"])
    })
    it("a body with both minutes and to, or neither, is 400 SV001 with one message, and the clock stays", async () => {
      const before = (await h.admin("GET", "/clock")).body.data.now
      for (const body of [{ minutes: 5, to: "2099-01-01T00:00:00Z" }, {}]) {
        const res = await h.admin("POST", "/clock/advance", body)
        expect(res.status).toBe(400)
        expect(res.body).toMatchObject({ code: "SV001", message: [expect.stringContaining("exactly one of minutes and to")] })
      }
      expect((await h.admin("POST", "/clock/advance", { minutes: -1 })).body.message).toEqual([
        "minutes: Expected a value greater than or equal to 0",
      ])
      expect((await h.admin("GET", "/clock")).body.data.now).toBe(before)
    })
  })

  it("a string with a lone UTF-16 surrogate is 400 SV001, not 500 (found by the HTTP fuzzer)", async () => {
    const res = await h.request("PUT", "/admin/v1/manifest", {
      body: '{"projects":[{"key":"x","name":"\\ud800","timezone":"UTC"}]}',
      token: "test-admin-token-0123456789",
    })
    expect(res.status).toBe(400)
    expect(res.body.code).toBe("SV001")
  })

  it("the manual clock moves to a `to` in any form the booking routes take, to the millisecond (a comma fraction, a lower-case t)", async () => {
    const now = Date.parse((await h.admin("GET", "/clock")).body.data.now)
    const later = new Date(now + 3 * 86_400_000 + 30_500).toISOString().replace("T", "t").replace(".", ",")
    const res = await h.admin("POST", "/clock/advance", { to: later })
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    expect(res.body.data.now).toBe(new Date(now + 3 * 86_400_000 + 30_500).toISOString())
  })

  it("the manual clock refuses to move past year 9999 (400, found by the HTTP fuzzer)", async () => {
    const res = await h.admin("POST", "/clock/advance", { minutes: 5_000_000_000 })
    expect(res.status).toBe(400)
    expect((await h.admin("POST", "/clock/advance", { minutes: 0 })).status).toBe(200)
  })

  it("unknown route is 404 SV005 in the envelope", async () => {
    const res = await h.request("GET", "/no/such/route")
    expect(res.status).toBe(404)
    expect(res.body).toMatchObject({ code: "SV005", success: false })
  })
})

describe("clock advance on a system clock", () => {
  it("is 409 SV006", async () => {
    const h = await startHarness("pglite", { KEYSPACE_CLOCK: "system" })
    try {
      const res = await h.admin("POST", "/clock/advance", { minutes: 1 })
      expect(res.status).toBe(409)
      expect(res.body.code).toBe("SV006")
    } finally {
      await h.close()
    }
  })
})
