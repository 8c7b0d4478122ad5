import { spawn, type ChildProcess } from "node:child_process"
import { createServer } from "node:net"
import postgres from "postgres"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { freshPostgresDatabase } from "../../support/databases.ts"
import { webhookManifest, hostCancelled } from "./fixtures.ts"
import { startReceiver, type Receiver } from "./receiver.ts"

/**
 * At-least-once across a crash: real server processes (node --import tsx runtimes/node/server.ts) on one
 * PostgreSQL database, SIGKILLed while deliveries are in flight and queued.
 */

const ADMIN = "crash-test-admin-token-0123"
const AT = "2030-01-07T02:00:00.000Z"

const freePort = () =>
  new Promise<number>((resolve) => {
    const srv = createServer()
    srv.listen(0, "127.0.0.1", () => {
      const port = (srv.address() as { port: number }).port
      srv.close(() => resolve(port))
    })
  })

interface Server {
  readonly base: string
  readonly child: ChildProcess
  readonly admin: (method: string, path: string, body?: unknown) => Promise<{ status: number; body: any }>
  readonly kill: (signal?: NodeJS.Signals) => Promise<void>
}

const startServer = async (databaseUrl: string): Promise<Server> => {
  const port = await freePort()
  // Node itself, not npx: a signal reaches the server, and its exit is the server's.
  const child = spawn(process.execPath, ["--import", "tsx", "runtimes/node/server.ts"], {
    cwd: new URL("../../../", import.meta.url).pathname,
    env: {
      ...process.env,
      DATABASE_URL: databaseUrl,
      PORT: String(port),
      KEYSPACE_CLOCK: "manual",
      KEYSPACE_CLOCK_START: AT,
      KEYSPACE_ADMIN_TOKEN: ADMIN,
      KEYSPACE_SEED: "none",
      KEYSPACE_ALLOW_INSECURE_WEBHOOKS: "1",
      KEYSPACE_LOG_LEVEL: "silent",
    },
    // Own process group: a SIGKILL reaches the server and whatever it started.
    detached: true,
    stdio: "ignore",
  })
  const base = `http://127.0.0.1:${port}`
  const deadline = Date.now() + 60_000
  for (;;) {
    try {
      if ((await fetch(`${base}/healthz`)).ok) break
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline || child.exitCode !== null) throw new Error("server did not start")
    await new Promise((r) => setTimeout(r, 200))
  }
  return {
    base,
    child,
    admin: async (method, path, body) => {
      const res = await fetch(`${base}/admin/v1${path}`, {
        method,
        headers: { authorization: `Bearer ${ADMIN}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
        body: body === undefined ? undefined : JSON.stringify(body),
      })
      return { status: res.status, body: await res.json() }
    },
    kill: (signal: NodeJS.Signals = "SIGKILL") =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve()
        child.once("exit", () => resolve())
        process.kill(-child.pid!, signal)
      }),
  }
}

const publishAll = async (srv: Server, projectId: string, n: number): Promise<string[]> => {
  const ids: string[] = []
  for (let i = 0; i < n; i++) {
    const res = await srv.admin("POST", `/projects/${projectId}/visitor-events`, {
      type: "VMS_HOST_CANCELLED",
      data: { ...hostCancelled(projectId, AT), visitorName: `visitor ${i}` },
    })
    expect(res.status).toBe(202)
    ids.push(res.body.data)
  }
  return ids
}

const waitUntil = async (cond: () => boolean, timeoutMs: number, what: string) => {
  const deadline = Date.now() + timeoutMs
  while (!cond()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((r) => setTimeout(r, 100))
  }
}

describe("webhook delivery across a server crash (PostgreSQL, real processes)", () => {
  let db: { url: string; drop: () => Promise<void> }
  let rx: Receiver
  const servers: Server[] = []
  beforeAll(async () => {
    db = await freshPostgresDatabase()
    rx = await startReceiver(() => "hang")
  })
  afterAll(async () => {
    for (const s of servers) await s.kill()
    await rx?.close()
    await db?.drop()
  })

  it("deliveries in flight or queued when the server is SIGKILLed are all delivered after restart", async () => {
    const first = await startServer(db.url)
    servers.push(first)
    const applied = await first.admin("PUT", "/manifest", webhookManifest("crash", [{ key: "ops", url: rx.url }]))
    expect(applied.status).toBe(200)
    const projectId = applied.body.data.projects.crash.id
    const webhookId = applied.body.data.projects.crash.webhooks.ops

    const ids = await publishAll(first, projectId, 30)
    // The receiver holds every request open: some deliveries are in flight, the rest queued.
    await waitUntil(() => rx.received.length >= 4, 20_000, "the first deliveries to arrive")
    const inFlightAtCrash = new Set(rx.received.map((r) => r.headers["x-service-delivery"] as string))
    expect(inFlightAtCrash.size).toBeLessThan(ids.length)
    await first.kill()

    // None was answered before the crash: every one must arrive (again) after the restart.
    const mark = rx.received.length
    rx.respond = () => ({ status: 200 })
    const second = await startServer(db.url)
    servers.push(second)
    const delivered = () =>
      new Set(rx.received.slice(mark).map((r) => r.headers["x-service-delivery"] as string))
    // Queued ones go at once; the ones in flight when the process died wait out their lease.
    await waitUntil(() => ids.every((id) => delivered().has(id)), 60_000, "every delivery after restart")

    const log = await second.admin("GET", `/webhooks/${webhookId}/deliveries?limit=100`)
    expect(log.body.meta.total).toBe(30)
    const states = async () => (await second.admin("GET", `/webhooks/${webhookId}/deliveries?limit=100`)).body.data.map((d: any) => d.state)
    const deadline = Date.now() + 10_000
    while ((await states()).some((s: string) => s !== "delivered") && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100))
    expect(new Set(await states())).toEqual(new Set(["delivered"]))
    // Duplicates (at least once) only for deliveries that were in flight at the crash.
    const counts = new Map<string, number>()
    for (const r of rx.received) counts.set(r.headers["x-service-delivery"] as string, (counts.get(r.headers["x-service-delivery"] as string) ?? 0) + 1)
    for (const [id, n] of counts) if (n > 1) expect(inFlightAtCrash.has(id)).toBe(true)
  }, 150_000)

  it("two server processes share the dispatcher: every delivery is sent exactly once", async () => {
    const a = servers.at(-1)!
    const b = await startServer(db.url)
    servers.push(b)
    const other = await startReceiver(() => ({ status: 200 }))
    try {
      const applied = await a.admin("PUT", "/manifest", webhookManifest("shared", [{ key: "ops", url: other.url }]))
      const projectId = applied.body.data.projects.shared.id
      const ids = [...(await publishAll(a, projectId, 20)), ...(await publishAll(b, projectId, 20))]
      await other.waitFor(40, 30_000)
      await new Promise((r) => setTimeout(r, 1_500))
      const got = other.received.map((r) => r.headers["x-service-delivery"])
      expect(got).toHaveLength(40)
      expect(new Set(got)).toEqual(new Set(ids))
    } finally {
      await other.close()
    }
  }, 120_000)

  it("a SIGTERM lets the deliveries in flight finish and records them: none is left to be sent again", async () => {
    // Alone on the database: no other process's attempts in flight.
    for (const other of servers) await other.kill()
    const server = await startServer(db.url)
    servers.push(server)
    const applied = await server.admin("PUT", "/manifest", webhookManifest("sigterm", [{ key: "ops", url: rx.url }]))
    expect(applied.status).toBe(200)
    const projectId = applied.body.data.projects.sigterm.id
    rx.respond = () => ({ status: 204, delayMs: 300 })
    const mark = rx.received.length
    // The stop meets the dispatcher's round relaying and claiming what was just published.
    await Promise.all(Array.from({ length: 8 }, () => publishAll(server, projectId, 12)))
    await server.kill("SIGTERM")
    expect(rx.received.length).toBeGreaterThan(mark)
    // Every delivery the receiver got was answered 204 and must be recorded delivered, not
    // left leased for another process to send again.
    const got = new Set(rx.received.slice(mark).map((r) => r.headers["x-service-delivery"] as string))
    const sql = postgres(db.url, { max: 1, onnotice: () => {} })
    try {
      const rows = await sql<{ id: string; state: string }[]>`select id, state from webhook_deliveries where id in ${sql([...got])}`
      expect(rows).toHaveLength(got.size)
      expect(rows.filter((r) => r.state !== "delivered").map((r) => r.state)).toEqual([])
    } finally {
      await sql.end()
    }
  }, 120_000)
})
