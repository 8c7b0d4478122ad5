import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { e2eTarget, uniqueSuffix, type E2ETarget } from "../support/e2e-target.ts"

/**
 * Authentication and limits on every runtime (.ci/runtime-smoke runs this against Node, Bun
 * and Deno): no token, a bad token, an app token on the operator API, another project's app,
 * and an oversized body.
 */
describe("security and limits over HTTP", () => {
  let t: E2ETarget
  let ids: any
  let token: string
  let otherToken: string
  const sfx = uniqueSuffix()
  beforeAll(async () => {
    t = await e2eTarget()
    const project = (key: string) => ({
      key, name: key, timezone: "Asia/Bangkok",
      zones: [{ key: "a", name: "A", floors: [{ key: "a-1", name: "A1" }] }],
      rooms: [{ key: "r1", name: "Sec Room", zone: "a", floor: "a-1" }],
    })
    const applied = await t.admin("PUT", "/manifest", {
      projects: [project(`sec-${sfx}`), project(`sec-other-${sfx}`)],
      apps: [
        { key: `sec-${sfx}`, appId: `sec-${sfx}`, appSecret: "sec-secret-123", projects: [`sec-${sfx}`] },
        { key: `sec-o-${sfx}`, appId: `sec-o-${sfx}`, appSecret: "sec-secret-123", projects: [`sec-other-${sfx}`] },
      ],
    })
    expect(applied.status).toBe(200)
    ids = applied.body.data.projects[`sec-${sfx}`]
    const mint = async (appId: string) =>
      (await t.call("POST", "/auth/accessToken", { body: { grant_type: "app_credentials", app_id: appId, app_secret: "sec-secret-123" } })).body.access_token
    token = await mint(`sec-${sfx}`)
    otherToken = await mint(`sec-o-${sfx}`)
  })
  afterAll(async () => t?.close())

  it("protected routes answer 401 SV002 without a token or with a bad one", async () => {
    for (const path of [`/meeting-rooms?projectId=${ids.id}`, "/desks", "/meetings/0123456789abcdef01234567", "/partner/members/x"]) {
      for (const bad of [undefined, "not-a-token"]) {
        const res = await t.call("GET", path, { token: bad })
        expect([res.status, res.body?.code], path).toEqual([401, "SV002"])
      }
    }
  })

  it("the operator API refuses an app token (401 SV002)", async () => {
    const res = await t.call("GET", "/admin/v1/clock", { token })
    expect([res.status, res.body?.code]).toEqual([401, "SV002"])
  })

  it("another project's app cannot see or book this project's room", async () => {
    const search = await t.call("GET", `/meeting-rooms?projectId=${ids.id}`, { token: otherToken })
    expect([403, 404]).toContain(search.status)
    const detail = await t.call("GET", `/meeting-rooms/${ids.rooms.r1}`, { token: otherToken })
    expect(detail.status).toBe(404)
  })

  it("an oversized body is refused with 413 (or the connection is closed), never accepted", async () => {
    const body = JSON.stringify({ title: "x".repeat(16 * 1024 * 1024) })
    const res = await t.call("POST", "/meetings", { token, body }).catch(() => ({ status: 413, body: undefined }))
    expect(res.status).toBe(413)
  })
})
