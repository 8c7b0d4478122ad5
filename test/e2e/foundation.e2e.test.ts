import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { e2eTarget, uniqueSuffix, type E2ETarget } from "../support/e2e-target.ts"

describe("foundation over HTTP", () => {
  let t: E2ETarget
  const sfx = uniqueSuffix()
  beforeAll(async () => {
    t = await e2eTarget()
  })
  afterAll(async () => t?.close())

  it("health, manifest, token and an unknown route", async () => {
    expect((await t.call("GET", "/healthz")).body).toEqual({ status: "ok" })
    const manifest = {
      projects: [{ key: `p-${sfx}`, name: "E2E", timezone: "Asia/Bangkok" }],
      apps: [{ key: `app-${sfx}`, appId: `app-${sfx}`, appSecret: "e2e-secret-123", projects: [`p-${sfx}`] }],
    }
    const applied = await t.admin("PUT", "/manifest", manifest)
    expect(applied.status).toBe(200)
    expect((await t.admin("PUT", "/manifest", manifest)).body.data).toEqual(applied.body.data)
    const token = await t.call("POST", "/auth/accessToken", {
      body: { grant_type: "app_credentials", app_id: `app-${sfx}`, app_secret: "e2e-secret-123" },
    })
    expect(token.status).toBe(201)
    expect(token.body.token_type).toBeUndefined()
    const bad = await t.call("POST", "/auth/accessToken", { body: "{" })
    expect(bad.status).toBe(400)
    expect(bad.body.code).toBe("SV001")
    expect((await t.call("GET", "/nowhere")).body.code).toBe("SV005")
  })
})
