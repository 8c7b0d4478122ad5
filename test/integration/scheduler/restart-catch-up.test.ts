import { spawn, type ChildProcess } from "node:child_process"
import { createServer } from "node:net"
import { fileURLToPath } from "node:url"
import postgres from "postgres"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { freshPostgresDatabase } from "../../support/databases.ts"
import { ADMIN_TOKEN, CLOCK_START } from "../../support/harness.ts"
import { local, schedulerManifest, SCHEDULER_APP } from "./scheduler-fixtures.ts"

/**
 * Issue "Done when": the server process is killed (SIGKILL) while ticks are due, restarted,
 * and every overdue tick fires exactly once.
 *
 * A real server process on PostgreSQL with the manual clock: 150 bookings, then one clock
 * advance over all their ticks; the process is killed in the middle of that drain. The manual
 * clock restarts at KEYSPACE_CLOCK_START, so the second process starts where the advance
 * was going: its scheduler catches up on start, in due order, and nothing fires twice.
 */
const ROOT = fileURLToPath(new URL("../../..", import.meta.url))
const ROOMS = 15
const PER_ROOM = 10

const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const srv = createServer()
    srv.once("error", reject)
    srv.listen(0, "127.0.0.1", () => {
      const port = (srv.address() as { port: number }).port
      srv.close(() => resolve(port))
    })
  })

interface Server {
  readonly proc: ChildProcess
  readonly url: string
  readonly output: () => string
}

const startServer = async (databaseUrl: string, clockStart: string): Promise<Server> => {
  const port = await freePort()
  // node itself (not npx) so that the SIGKILL hits the server and not a wrapper.
  const proc = spawn(process.execPath, ["--import", "tsx", "runtimes/node/server.ts"], {
    cwd: ROOT,
    env: {
      ...process.env,
      DATABASE_URL: databaseUrl,
      PORT: String(port),
      KEYSPACE_CLOCK: "manual",
      KEYSPACE_CLOCK_START: clockStart,
      KEYSPACE_ADMIN_TOKEN: ADMIN_TOKEN,
      KEYSPACE_SEED: "none",
      KEYSPACE_LOG_LEVEL: "warn",
    },
    stdio: ["ignore", "pipe", "pipe"],
  })
  let output = ""
  proc.stdout!.on("data", (d) => (output += String(d)))
  proc.stderr!.on("data", (d) => (output += String(d)))
  const url = `http://127.0.0.1:${port}`
  for (let i = 0; i < 300; i++) {
    if (proc.exitCode !== null) throw new Error(`server exited: ${output}`)
    const ok = await fetch(`${url}/healthz`).then((r) => r.ok, () => false)
    if (ok) return { proc, url, output: () => output }
    await new Promise((r) => setTimeout(r, 100))
  }
  throw new Error(`server did not start: ${output}`)
}

const call = async (server: Server, method: string, path: string, body?: unknown, token = ADMIN_TOKEN) => {
  const res = await fetch(`${server.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  })
  return { status: res.status, body: (await res.json().catch(() => undefined)) as any }
}

const exited = (proc: ChildProcess) =>
  new Promise<void>((resolve) => (proc.exitCode !== null || proc.signalCode !== null ? resolve() : proc.once("exit", () => resolve())))

describe("scheduler after a crash (SIGKILL) on PostgreSQL", () => {
  let pg: { url: string; drop: () => Promise<void> }
  let sql: postgres.Sql
  const servers: Server[] = []
  beforeAll(async () => {
    pg = await freshPostgresDatabase()
    sql = postgres(pg.url, { max: 2, onnotice: () => {} })
  })
  afterAll(async () => {
    for (const s of servers) if (s.proc.exitCode === null) s.proc.kill("SIGKILL")
    await Promise.all(servers.map((s) => exited(s.proc)))
    await sql?.end()
    await pg?.drop()
  })

  it("every overdue tick fires exactly once after a SIGKILL mid-drain and a restart", async () => {
    const first = await startServer(pg.url, CLOCK_START)
    servers.push(first)
    const manifest = await call(first, "PUT", "/admin/v1/manifest", schedulerManifest({ rooms: ROOMS }))
    expect(manifest.status).toBe(200)
    const rooms = manifest.body.data.projects.hq.rooms
    const tokenRes = await call(first, "POST", "/auth/accessToken", {
      grant_type: "app_credentials",
      app_id: SCHEDULER_APP.appId,
      app_secret: SCHEDULER_APP.appSecret,
    })
    const token = tokenRes.body.access_token as string
    // Ten 30-minute bookings per room from 10:00 local: nobody checks in, so each gets a
    // reminder, a no-show warning and a no-show cancel (which drops its end ticks).
    const ids: string[] = []
    for (let r = 0; r < ROOMS; r++) {
      const created = await Promise.all(
        Array.from({ length: PER_ROOM }, (_, i) => {
          const start = new Date(Date.parse(local("10:00")) + i * 30 * 60_000)
          const end = new Date(start.getTime() + 30 * 60_000)
          return call(first, "POST", "/meetings", {
            meetingRoomId: rooms[`r${r}`],
            title: "Crash",
            startDateTime: start.toISOString(),
            endDateTime: end.toISOString(),
          }, token)
        }),
      )
      for (const c of created) {
        expect(c.status, JSON.stringify(c.body)).toBe(201)
        ids.push(c.body.data._id)
      }
    }
    const expectedTicks = ids.length * 3
    // Each create wrote its five ticks as one plan row (tables/scheduler.ts).
    const [{ pending, plans }] = await sql`select count(*)::int as plans,
      sum(jsonb_array_length(plan))::int as pending from scheduled_ticks where state = 'pending' and kind = 'plan'`
    expect({ pending, plans }).toEqual({ pending: ids.length * 5, plans: ids.length })

    // Advance past every tick, and kill the process while it is applying them.
    const target = local("23:00")
    void call(first, "POST", "/admin/v1/clock/advance", { to: target }).catch(() => undefined)
    for (let i = 0; i < 2000; i++) {
      const [{ done }] = await sql`select count(*)::int as done from scheduled_ticks where state = 'done'`
      if (done >= 20) break
      await new Promise((r) => setTimeout(r, 5))
    }
    first.proc.kill("SIGKILL")
    await exited(first.proc)
    const [mid] = await sql`select count(*) filter (where state = 'done')::int as done,
      count(*) filter (where state = 'pending' and due_at <= ${target}::timestamptz)::int as due
      from scheduled_ticks`
    // The crash left work behind: some ticks applied, others due and not applied.
    expect(mid!.done).toBeGreaterThan(0)
    expect(mid!.due).toBeGreaterThan(0)

    // Restart where the advance was going: the scheduler catches up on start. An advance of
    // zero minutes answers once everything due is applied.
    const second = await startServer(pg.url, target)
    servers.push(second)
    const settle = await call(second, "POST", "/admin/v1/clock/advance", { minutes: 0 })
    expect(settle.status).toBe(200)

    const [ticks] = await sql`select count(*) filter (where state = 'done')::int as done,
      count(*) filter (where state = 'pending')::int as pending,
      count(*) filter (where attempts <> 1 and state = 'done')::int as odd
      from scheduled_ticks`
    expect(ticks).toEqual({ done: expectedTicks, pending: 0, odd: 0 })
    const perBooking = await sql`select booking_id, type, count(*)::int as n from outbox_events
      where type <> 'ROOM_BOOK' group by booking_id, type`
    expect(perBooking.every((r) => r.n === 1)).toBe(true)
    const byType = await sql`select type, count(*)::int as n from outbox_events group by type order by type`
    expect(Object.fromEntries(byType.map((r) => [r.type, r.n]))).toEqual({
      ROOM_BOOK: ids.length,
      ROOM_CANCEL: ids.length,
      ROOM_NO_SHOW_WARNING: ids.length,
      ROOM_REMINDER: ids.length,
    })
    const statuses = await sql`select status, count(*)::int as n from bookings group by status`
    expect(statuses.map((r) => [r.status, r.n])).toEqual([["cancelled", ids.length]])
    // Each event carries its tick's due time, whichever process applied it.
    const [late] = await sql`select count(*)::int as n from outbox_events o
      join bookings b on b.id = o.booking_id
      where o.type = 'ROOM_CANCEL' and o.occurred_at <> b.start_at + interval '15 minutes'`
    expect(late!.n).toBe(0)
    const [histories] = await sql`select count(*)::int as n, count(distinct booking_id)::int as b
      from booking_histories where action = 'no-show'`
    expect(histories).toEqual({ n: ids.length, b: ids.length })
  }, 180_000)
})
