import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { SCOPES } from "../../../adapters/coherence/versions.ts"
import { boot, type Booted } from "../../../adapters/runtime/boot.ts"
import { ADMIN_TOKEN, CLOCK_START, startHarness, type Harness } from "../../support/harness.ts"

/**
 * Issue 16: a secret rotated on one process is the only one any process accepts, and every
 * process hears the rotation through the coherence version (so a credentials cache anywhere
 * drops the old secret). Two services booted on one PostgreSQL database, as two processes.
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
    b = await boot(
      {
        DATABASE_URL: a.booted.services.config.databaseUrl!,
        KEYSPACE_SEED: "none",
        KEYSPACE_CLOCK: "manual",
        KEYSPACE_CLOCK_START: CLOCK_START,
        KEYSPACE_ADMIN_TOKEN: ADMIN_TOKEN,
        KEYSPACE_LOG_LEVEL: "silent",
      },
      { print: () => {} },
    )
  }, 120_000)
  afterAll(async () => {
    await b?.close()
    await a?.close()
  })

  it("the other process hears the bump, takes the new secret and refuses the old one", { timeout: 60_000 }, async () => {
    const first = await a.admin("POST", "/apps/demo-app/secret")
    expect(first.status).toBe(200)
    expect((await signIn(b, first.body.data.appSecret)).status).toBe(201)

    await b.services.coherence.refresh()
    const before = b.services.coherence.version(SCOPES.manifest)
    const heard = new Promise<number>((resolve, reject) => {
      // The poll runs every second; 20 s is only a bound under a loaded machine.
      const late = setTimeout(() => reject(new Error("process B never heard the rotation")), 20_000)
      const stop = b.services.coherence.onChange((scope, version) => {
        if (scope !== SCOPES.manifest) return
        clearTimeout(late)
        stop()
        resolve(version)
      })
    })
    const second = await a.admin("POST", "/apps/demo-app/secret", { appSecret: "rotated-on-a-0123" })
    expect(second.status).toBe(200)
    // Heard through NOTIFY or, at the latest, the poll: no refresh() here on purpose.
    expect(await heard).toBe(before + 1)

    expect((await signIn(b, first.body.data.appSecret)).status).toBe(401)
    expect((await signIn(b, "rotated-on-a-0123")).status).toBe(201)
    expect((await a.request("POST", "/auth/accessToken", {
      body: { grant_type: "app_credentials", app_id: "demo-app", app_secret: first.body.data.appSecret },
    })).status).toBe(401)
  })
})
