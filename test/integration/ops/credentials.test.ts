import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { readCacheEpoch } from "../../../adapters/postgres/cache-epoch.ts"
import { boot } from "../../../adapters/wiring/boot.ts"
import { ADMIN_TOKEN, CLOCK_START, startHarness, type Harness } from "../../support/harness.ts"

/** Issue 15, point 4: credentials can be recovered without wiping the database. */
describe("operator credentials: rotate an app secret, read the ids again", () => {
  let h: Harness
  beforeAll(async () => {
    h = await startHarness("pglite", { KEYSPACE_SEED: "demo" })
  })
  afterAll(async () => h?.close())

  it("the demo project's ids can be read again from the operator API", async () => {
    const res = await h.admin("GET", "/manifest/ids")
    expect(res.status).toBe(200)
    const ids = res.body.data
    expect(ids.projects.demo.id).toMatch(/^[0-9a-f]{24}$/)
    expect(Object.keys(ids.projects.demo.rooms).sort()).toEqual(["jasmine", "lotus", "orchid"])
    expect(ids.projects.demo.users.alice).toMatch(/^[0-9a-f]{24}$/)
    expect(ids.apps["demo-app"]).toMatch(/^[0-9a-f]{24}$/)
  })

  it("a rotated secret works at once and the previous one stops working", async () => {
    const first = await h.admin("POST", "/apps/demo-app/secret")
    expect(first.status).toBe(200)
    expect(first.body.data.appId).toBe("demo-app")
    const token = await h.tokenFor("demo-app", first.body.data.appSecret)
    const rooms = await h.request("GET", `/meeting-rooms?projectId=${(await h.admin("GET", "/manifest/ids")).body.data.projects.demo.id}`, { token })
    expect(rooms.status).toBe(200)

    const second = await h.admin("POST", "/apps/demo-app/secret", { appSecret: "chosen-secret-0123" })
    expect(second.body.data.appSecret).toBe("chosen-secret-0123")
    const old = await h.request("POST", "/auth/accessToken", {
      body: { grant_type: "app_credentials", app_id: "demo-app", app_secret: first.body.data.appSecret },
    })
    expect(old.status).toBe(401)
    await expect(h.tokenFor("demo-app", "chosen-secret-0123")).resolves.toBeTypeOf("string")
  })

  it("a rotation revokes the app's refresh tokens (a leaked one would otherwise outlive the secret); its access tokens run to their expiry", async () => {
    const before = await h.admin("POST", "/apps/demo-app/secret", { appSecret: "before-rotation-0123" })
    expect(before.status).toBe(200)
    const pair = await h.request("POST", "/auth/accessToken", {
      body: { grant_type: "app_credentials", app_id: "demo-app", app_secret: "before-rotation-0123" },
    })
    expect(pair.status).toBe(201)
    // A refresh before the rotation still rotates as usual.
    const refreshed = await h.request("POST", "/auth/accessToken", { body: { grant_type: "refresh_token", refresh_token: pair.body.refresh_token } })
    expect(refreshed.status).toBe(201)
    expect((await h.admin("POST", "/apps/demo-app/secret", { appSecret: "after-rotation-0123" })).status).toBe(200)
    const stale = await h.request("POST", "/auth/accessToken", { body: { grant_type: "refresh_token", refresh_token: refreshed.body.refresh_token } })
    expect(stale.status).toBe(401)
    expect(stale.body.code).toBe("SV002")
    const projectId = (await h.admin("GET", "/manifest/ids")).body.data.projects.demo.id
    expect((await h.request("GET", `/meeting-rooms?projectId=${projectId}`, { token: refreshed.body.access_token })).status).toBe(200)
  })

  it("a new appSecret in the manifest is a rotation too: the app's refresh tokens stop working; the same secret again changes nothing", async () => {
    const manifest = (appSecret: string) => ({
      projects: [{ key: "rot", name: "Rotation", timezone: "Asia/Bangkok" }],
      apps: [{ key: "rot-app", appId: "rot-app", appSecret, projects: ["rot"] }],
    })
    expect((await h.admin("PUT", "/manifest", manifest("manifest-secret-one-0123"))).status).toBe(200)
    const pair = await h.request("POST", "/auth/accessToken", {
      body: { grant_type: "app_credentials", app_id: "rot-app", app_secret: "manifest-secret-one-0123" },
    })
    expect(pair.status).toBe(201)
    // Re-applying the same secret keeps the refresh token.
    expect((await h.admin("PUT", "/manifest", manifest("manifest-secret-one-0123"))).status).toBe(200)
    const kept = await h.request("POST", "/auth/accessToken", { body: { grant_type: "refresh_token", refresh_token: pair.body.refresh_token } })
    expect(kept.status).toBe(201)
    expect((await h.admin("PUT", "/manifest", manifest("manifest-secret-two-0123"))).status).toBe(200)
    const stale = await h.request("POST", "/auth/accessToken", { body: { grant_type: "refresh_token", refresh_token: kept.body.refresh_token } })
    expect(stale.status).toBe(401)
  })

  it("a rotation moves the cache epoch when it commits, and a refused one does not", async () => {
    const epochNow = () => readCacheEpoch(h.booted.services.database.db)
    const before = await epochNow()
    expect((await h.admin("POST", "/apps/demo-app/secret")).status).toBe(200)
    expect(await epochNow()).toBe(before + 1n)

    // The update and the move are one transaction: nothing rotated, nothing moved.
    expect((await h.admin("POST", "/apps/no-such-app/secret")).status).toBe(404)
    expect((await h.admin("POST", "/apps/demo-app/secret", { appSecret: "short" })).status).toBe(400)
    expect(await epochNow()).toBe(before + 1n)
  })

  it("rotating an unknown app is 404 and a bad secret is 400 SV001", async () => {
    const missing = await h.admin("POST", "/apps/no-such-app/secret")
    expect(missing.status).toBe(404)
    const short = await h.admin("POST", "/apps/demo-app/secret", { appSecret: "short" })
    expect(short.status).toBe(400)
    expect(short.body.code).toBe("SV001")
    // A percent-encoded NUL reached the database (a 500) before.
    const nul = await h.admin("POST", "/apps/%00/secret")
    expect(nul.status).toBe(400)
    expect(nul.body).toMatchObject({ code: "SV001", message: ["appId: must not contain control characters"] })
  })

  it("the operator routes need the operator token", async () => {
    expect((await h.request("POST", "/admin/v1/apps/demo-app/secret")).status).toBe(401)
    expect((await h.request("GET", "/admin/v1/manifest/ids")).status).toBe(401)
  })
})

describe("a start on an existing database says how to get a credential", () => {
  const dir = mkdtempSync(join(tmpdir(), "keyspace-credentials-"))
  afterAll(() => rmSync(dir, { recursive: true, force: true }))

  it("the second start prints the rotate command, and the command gives a working secret", { timeout: 60_000 }, async () => {
    const env = {
      KEYSPACE_DATA_DIR: join(dir, "data"), KEYSPACE_ADMIN_TOKEN: ADMIN_TOKEN, KEYSPACE_LOG_LEVEL: "silent",
      KEYSPACE_CLOCK: "manual", KEYSPACE_CLOCK_START: CLOCK_START, PORT: "4199",
    }
    const firstLines: string[] = []
    const first = await boot(env, { print: (l) => firstLines.push(l), background: false })
    first.announce(4199)
    await first.close()
    expect(firstLines.join("\n")).toMatch(/app_secret=/)

    const lines: string[] = []
    const second = await boot(env, { print: (l) => lines.push(l), background: false })
    try {
      second.announce(4199)
      const text = lines.join("\n")
      expect(text).not.toMatch(/app_secret=/)
      expect(text).toMatch(/Existing database: demo project [0-9a-f]{24}/)
      expect(text).toContain("curl -s -X POST http://localhost:4199/admin/v1/apps/demo-app/secret")
      const rotated = await second.app.request("/admin/v1/apps/demo-app/secret", {
        method: "POST", headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
      })
      const { data } = (await rotated.json()) as { data: { appSecret: string } }
      const token = await second.app.request("/auth/accessToken", {
        method: "POST", headers: { "content-type": "application/json" },
        body: JSON.stringify({ grant_type: "app_credentials", app_id: "demo-app", app_secret: data.appSecret }),
      })
      expect(token.status).toBe(201)
    } finally {
      await second.close()
    }
  })
})
