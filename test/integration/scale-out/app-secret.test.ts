import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { readCacheEpoch } from "../../../adapters/postgres/cache-epoch.ts"
import type { Booted } from "../../../adapters/wiring/boot.ts"
import { ADMIN_TOKEN, bootBeside, startHarness, type Harness } from "../../support/harness.ts"

/**
 * Issue 16: a secret rotated on one process is the only one any process accepts, at once: the
 * rotation moves cache_epoch when it commits (a trigger on apps), and every process reads the
 * counter before a request, so a credentials cache anywhere drops the old secret. Two services
 * booted on one PostgreSQL database, as two processes.
 */
const call = async (b: Booted, method: string, path: string, body?: unknown) => {
  const res = await b.app.request(path, {
    method,
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, "content-type": "application/json" },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  })
  return { status: res.status, body: (await res.json()) as any }
}

const signIn = (b: Booted, appSecret: string) =>
  call(b, "POST", "/auth/accessToken", { grant_type: "app_credentials", app_id: "demo-app", app_secret: appSecret })

describe("an app secret rotated on one process of a PostgreSQL deployment", () => {
  let a: Harness
  let b: Booted
  beforeAll(async () => {
    a = await startHarness("postgres", { KEYSPACE_SEED: "demo" })
    b = await bootBeside(a)
  }, 120_000)
  afterAll(async () => {
    await b?.close()
    await a?.close()
  })

  it("the rotation moves the cache epoch and the other process refuses the old secret at once", { timeout: 60_000 }, async () => {
    const first = await a.admin("POST", "/apps/demo-app/secret")
    expect(first.status).toBe(200)
    // Process B signs in and serves a request with the first secret: its caches hold the app.
    const signedIn = await signIn(b, first.body.data.appSecret)
    expect(signedIn.status).toBe(201)
    const ids = (await call(b, "GET", "/admin/v1/manifest/ids")).body.data
    const rooms = await b.app.request(`/meeting-rooms?projectId=${ids.projects.demo.id}`, {
      headers: { authorization: `Bearer ${signedIn.body.access_token}` },
    })
    expect(rooms.status).toBe(200)

    const before = await readCacheEpoch(b.services.database.db)
    const second = await a.admin("POST", "/apps/demo-app/secret", { appSecret: "rotated-on-a-0123" })
    expect(second.status).toBe(200)
    // One transaction, one move, visible to every process as soon as the rotation answered.
    expect(await readCacheEpoch(b.services.database.db)).toBe(before + 1n)

    // No wait, no poll: B's very next requests see the rotation.
    expect((await signIn(b, first.body.data.appSecret)).status).toBe(401)
    expect((await signIn(b, "rotated-on-a-0123")).status).toBe(201)
    expect((await a.request("POST", "/auth/accessToken", {
      body: { grant_type: "app_credentials", app_id: "demo-app", app_secret: first.body.data.appSecret },
    })).status).toBe(401)
  })
})
