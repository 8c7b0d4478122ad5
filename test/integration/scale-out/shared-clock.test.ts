import { sql } from "drizzle-orm"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { readCacheEpoch } from "../../../adapters/postgres/cache-epoch.ts"
import { boot, type Booted } from "../../../adapters/wiring/boot.ts"
import { contractManifest } from "../../support/contract-manifest.ts"
import { freshPostgresDatabase } from "../../support/databases.ts"
import { ADMIN_TOKEN, CLOCK_START, startHarness, type Harness } from "../../support/harness.ts"

/**
 * Issue 16: the manual clock is the deployment's. Two services booted on one PostgreSQL
 * database (as two server processes would be) share one clock row; the three-process e2e
 * suite (test/e2e/scale-out.e2e.test.ts) checks the same over real sockets.
 */
const env = (databaseUrl: string, start = CLOCK_START) => ({
  DATABASE_URL: databaseUrl,
  KEYSPACE_SEED: "none",
  KEYSPACE_CLOCK: "manual",
  KEYSPACE_CLOCK_START: start,
  KEYSPACE_ADMIN_TOKEN: ADMIN_TOKEN,
  KEYSPACE_LOG_LEVEL: "silent",
})

const call = async (b: Booted, method: string, path: string, body?: unknown, token = ADMIN_TOKEN) => {
  const res = await b.app.request(path, {
    method,
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  })
  return { status: res.status, body: (await res.json()) as any }
}

describe("the shared manual clock on PostgreSQL", () => {
  let a: Harness
  let b: Booted
  let url: string
  beforeAll(async () => {
    a = await startHarness("postgres")
    url = a.booted.services.config.databaseUrl!
    await a.applyManifest(contractManifest())
    b = await boot(env(url), { print: () => {} })
  }, 120_000)
  afterAll(async () => {
    await b?.close()
    await a?.close()
  })

  it("an advance on one process is the time on the other at once", async () => {
    const before = await call(b, "GET", "/admin/v1/clock")
    const advanced = await a.admin("POST", "/clock/advance", { minutes: 30 })
    expect(advanced.status).toBe(200)
    const after = await call(b, "GET", "/admin/v1/clock")
    expect(Date.parse(after.body.data.now) - Date.parse(before.body.data.now)).toBe(30 * 60_000)
    expect(after.body.data).toEqual({ now: advanced.body.data.now, mode: "manual" })
  })

  it("advances sent to both processes at once add up (they never interleave or lose a move)", async () => {
    const start = Date.parse((await a.admin("GET", "/clock")).body.data.now)
    const moves = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        i % 2 === 0 ? a.admin("POST", "/clock/advance", { minutes: 5 }) : call(b, "POST", "/admin/v1/clock/advance", { minutes: 5 }),
      ),
    )
    expect(moves.map((m) => m.status)).toEqual([200, 200, 200, 200, 200, 200])
    const answered = moves.map((m) => Date.parse(m.body.data.now)).sort((x, y) => x - y)
    expect(answered).toEqual(Array.from({ length: 6 }, (_, i) => start + (i + 1) * 5 * 60_000))
    const now = (await call(b, "GET", "/admin/v1/clock")).body.data.now
    expect(Date.parse(now)).toBe(start + 30 * 60_000)
  })

  it("'to' earlier than the deployment's now is refused on the process that did not move it", async () => {
    const now = Date.parse((await a.admin("POST", "/clock/advance", { minutes: 1 })).body.data.now)
    const res = await call(b, "POST", "/admin/v1/clock/advance", { to: new Date(now - 60_000).toISOString() })
    expect(res.status).toBe(400)
    expect(res.body.code).toBe("SV001")
  })

  it("a token minted on one process expires on the other when the clock passes its expiry", async () => {
    const ids = await a.applyManifest(contractManifest())
    const rooms = `/meeting-rooms?projectId=${ids.projects.hq.id}`
    const token = await a.tokenFor("partner-app", "partner-secret-123")
    expect((await call(b, "GET", rooms, undefined, token)).status).toBe(200)
    await a.advance(24 * 60)
    const res = await call(b, "GET", rooms, undefined, token)
    expect(res.status).toBe(401)
    expect(res.body.code).toBe("SV002")
  })

  it("a process joining running ones adopts their clock, whatever its KEYSPACE_CLOCK_START", async () => {
    const now = (await a.admin("GET", "/clock")).body.data.now
    const c = await boot(env(url, "2030-01-01T00:00:00.000Z"), { print: () => {} })
    try {
      expect((await call(c, "GET", "/admin/v1/clock")).body.data.now).toBe(now)
    } finally {
      await c.close()
    }
  })

  it("if the clock cannot be read a request answers 503 SV004, not a stale time", async () => {
    const db = a.booted.services.database.db
    await db.execute(sql`alter table service_clock rename to service_clock_away`)
    try {
      const res = await call(b, "GET", "/admin/v1/clock")
      expect(res.status).toBe(503)
      expect(res.body.code).toBe("SV004")
    } finally {
      await db.execute(sql`alter table service_clock_away rename to service_clock`)
    }
    expect((await call(b, "GET", "/admin/v1/clock")).status).toBe(200)
  })

  it("a manifest applied on one process moves the cache epoch and empties another process's caches before its next request", async () => {
    const probe = b.services.caches.cache<string, string>("coherence-probe", { max: 10 })
    await b.services.caches.sync()
    await probe.getOrLoad("probe", async () => "held")
    expect(probe.get("probe")).toBe("held")

    const before = await readCacheEpoch(b.services.database.db)
    // A manifest that changes a room (an unchanged one writes nothing, and moves nothing).
    const manifest = contractManifest()
    const project = manifest.projects![0]!
    await a.applyManifest({ ...manifest, projects: [{ ...project, rooms: project.rooms!.map((r) => ({ ...r, name: `${r.name} (renamed)` })) }] })
    // Moved by the triggers when the manifest committed: no writer calls anything.
    expect(await readCacheEpoch(b.services.database.db)).toBe(before + 1n)
    // What every request on B does first: the counter moved, so every cache is emptied.
    await b.services.caches.sync()
    expect(probe.get("probe")).toBeUndefined()
  })
})

describe("a process alone on its database", () => {
  it("starts the clock at KEYSPACE_CLOCK_START again after a restart (single-process behaviour)", async () => {
    const pg = await freshPostgresDatabase()
    try {
      const first = await boot(env(pg.url), { print: () => {} })
      expect((await call(first, "POST", "/admin/v1/clock/advance", { minutes: 120 })).status).toBe(200)
      await first.close()
      const second = await boot(env(pg.url), { print: () => {} })
      try {
        expect((await call(second, "GET", "/admin/v1/clock")).body.data.now).toBe(CLOCK_START)
      } finally {
        await second.close()
      }
    } finally {
      await pg.drop()
    }
  }, 120_000)
})
