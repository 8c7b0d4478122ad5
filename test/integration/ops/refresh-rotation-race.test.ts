import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { startHarness, type Harness } from "../../support/harness.ts"

/**
 * A client refreshing in a loop while the operator rotates the app's secret (found by the
 * review): the rotation revokes the refresh tokens in its own statement, so a refresh committing
 * beside it must not leave a token the rotation never saw. Each trial: a refresh chain runs, the
 * secret is rotated, and whatever refresh token the chain holds afterwards must be refused.
 */
describe("a secret rotation beside refresh chains and grants on postgres", () => {
  let h: Harness
  beforeAll(async () => {
    h = await startHarness("postgres", { KEYSPACE_SEED: "demo" })
  }, 120_000)
  afterAll(async () => h?.close())

  it("no refresh chain outlives the rotation", async () => {
    const TRIALS = 12
    let survived = 0
    for (let trial = 0; trial < TRIALS; trial++) {
      const secret = `secret-before-${trial}-0123456789`
      expect((await h.admin("POST", "/apps/demo-app/secret", { appSecret: secret })).status).toBe(200)
      const pair = await h.request("POST", "/auth/accessToken", { body: { grant_type: "app_credentials", app_id: "demo-app", app_secret: secret } })
      let token: string = pair.body.refresh_token
      let stop = false
      const chain = (async () => {
        while (!stop) {
          const r = await h.request("POST", "/auth/accessToken", { body: { grant_type: "refresh_token", refresh_token: token } })
          if (r.status !== 201) return
          token = r.body.refresh_token
        }
      })()
      await new Promise((r) => setTimeout(r, 20 + trial * 3))
      expect((await h.admin("POST", "/apps/demo-app/secret", { appSecret: `secret-after-${trial}-0123456789` })).status).toBe(200)
      stop = true
      await chain
      const last = await h.request("POST", "/auth/accessToken", { body: { grant_type: "refresh_token", refresh_token: token } })
      if (last.status === 201) survived++
    }
    expect(survived).toBe(0)
  }, 300_000)

  it("no token pair granted by the old secret outlives the rotation", async () => {
    // A grant verifies the secret (PBKDF2, milliseconds) before it mints: a rotation committing
    // in between must not leave it a refresh token the rotation never revoked.
    const TRIALS = 8
    let survived = 0
    for (let trial = 0; trial < TRIALS; trial++) {
      const secret = `grant-before-${trial}-0123456789`
      expect((await h.admin("POST", "/apps/demo-app/secret", { appSecret: secret })).status).toBe(200)
      const held: string[] = []
      let stop = false
      const grants = Array.from({ length: 4 }, async () => {
        while (!stop) {
          const r = await h.request("POST", "/auth/accessToken", { body: { grant_type: "app_credentials", app_id: "demo-app", app_secret: secret } })
          if (r.status !== 201) return
          held.push(r.body.refresh_token)
        }
      })
      await new Promise((r) => setTimeout(r, 30 + trial * 5))
      expect((await h.admin("POST", "/apps/demo-app/secret", { appSecret: `grant-after-${trial}-0123456789` })).status).toBe(200)
      stop = true
      await Promise.all(grants)
      for (const token of held.slice(-8)) {
        const r = await h.request("POST", "/auth/accessToken", { body: { grant_type: "refresh_token", refresh_token: token } })
        if (r.status === 201) survived++
      }
    }
    expect(survived).toBe(0)
  }, 300_000)
})
