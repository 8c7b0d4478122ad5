import { afterAll, describe, expect, it } from "vitest"
import { boot, type Booted } from "../../../adapters/wiring/boot.ts"
import { freshPostgresDatabase } from "../../support/databases.ts"
import { ADMIN_TOKEN } from "../../support/harness.ts"

/**
 * Several processes on one PostgreSQL database (docs/deployment.md): "KEYSPACE_SEED=demo is safe
 * with several processes (only an empty database is seeded)", and the operator contract's
 * "applying the same manifest twice changes nothing and returns the same ids" holds when the two
 * applies run at once. Both failed with a duplicate key (a crashed start, 500s) before the
 * manifest's writes were serialized (ManifestStore.serialize).
 */
const env = (databaseUrl: string, seed: "demo" | "none") => ({
  DATABASE_URL: databaseUrl,
  KEYSPACE_SEED: seed,
  KEYSPACE_ADMIN_TOKEN: ADMIN_TOKEN,
  KEYSPACE_LOG_LEVEL: "silent",
})

const put = async (b: Booted, body: unknown) => {
  const res = await b.app.request("/admin/v1/manifest", {
    method: "PUT",
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, "content-type": "application/json" },
    body: JSON.stringify(body),
  })
  return { status: res.status, body: (await res.json()) as any }
}

describe("processes provisioning one new PostgreSQL database together", () => {
  const started: Booted[] = []
  const dropped: Array<() => Promise<void>> = []
  afterAll(async () => {
    for (const b of started) await b.close()
    for (const drop of dropped) await drop()
  })

  it("three processes starting at once on an empty database seed the demo once, and all start", async () => {
    const db = await freshPostgresDatabase()
    dropped.push(db.drop)
    const printed: string[] = []
    const boots = await Promise.all([0, 1, 2].map(() => boot(env(db.url, "demo"), { print: (line: string) => void printed.push(line) })))
    started.push(...boots)
    for (const b of boots) b.announce(3000)
    expect(printed.filter((line) => line.includes("Demo project seeded")).length).toBe(1)
    const ids = await Promise.all(
      boots.map(async (b) => {
        const res = await b.app.request("/admin/v1/manifest/ids", { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } })
        return ((await res.json()) as any).data.projects.demo.id
      }),
    )
    expect(new Set(ids).size).toBe(1)
  }, 120_000)

  it("the same new manifest applied ten times at once, over two processes, answers 200 with the same ids each time", async () => {
    const db = await freshPostgresDatabase()
    dropped.push(db.drop)
    const a = await boot(env(db.url, "none"), { print: () => {} })
    const b = await boot(env(db.url, "none"), { print: () => {} })
    started.push(a, b)
    const manifest = {
      projects: [{ key: "race", name: "Race", timezone: "Asia/Bangkok", accessGroups: [{ key: "lobby", name: "Lobby" }] }],
      apps: [{ key: "race-app", appId: "race-app", appSecret: "race-app-secret-0123", projects: ["race"] }],
    }
    const answers = await Promise.all(Array.from({ length: 10 }, (_, i) => put(i % 2 === 0 ? a : b, manifest)))
    expect(answers.map((r) => r.status)).toEqual(Array(10).fill(200))
    expect(new Set(answers.map((r) => JSON.stringify(r.body.data))).size).toBe(1)
  }, 120_000)

  it("a manifest app whose appId another app key already has is 409 SV006, nothing written", async () => {
    const db = await freshPostgresDatabase()
    dropped.push(db.drop)
    const a = await boot(env(db.url, "none"), { print: () => {} })
    started.push(a)
    const project = { key: "p", name: "P", timezone: "Asia/Bangkok" }
    expect((await put(a, { projects: [project], apps: [{ key: "one", appId: "shared-id", appSecret: "first-secret-0123", projects: ["p"] }] })).status).toBe(200)
    const taken = await put(a, { projects: [project], apps: [{ key: "two", appId: "shared-id", appSecret: "second-secret-0123", projects: ["p"] }] })
    expect(taken.status).toBe(409)
    expect(taken.body).toMatchObject({ code: "SV006", success: false })
    const res = await a.app.request("/admin/v1/manifest/ids", { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } })
    expect(Object.keys(((await res.json()) as any).data.apps)).toEqual(["one"])
  }, 120_000)
})
