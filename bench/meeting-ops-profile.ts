/**
 * `npx tsx bench/meeting-ops-profile.ts`: what one request on an existing booking costs the
 * server (issue 13: every hot path). The 09:00 rush is not only creates: people open their
 * booking, preview a price, cancel. Each load runs at --connections clients and prints req/s
 * and the server's CPU per request (utime+stime from /proc, the figure a loaded machine moves
 * least); a request whose answer is not the expected status is listed.
 *
 *   GET /meetings/:id     random bookings of the seeded set, --duration seconds
 *   POST /meetings draft  a price preview of a random free slot (nothing written)
 *   PATCH /meetings/:id   a new title for a random booking of the seeded set
 *   POST .../cancel       each seeded booking once (as many requests as bookings)
 *
 *   --duration 5  --connections 16  --bookings 4000  --windows 2 (the first warms the JIT)
 *   --entry FILE  the server bundle (default dist/runtimes/node/server.js; A/B: another build)
 *   --only TEXT   only the loads whose name contains TEXT (GET, PATCH, draft, cancel)
 *   --cpu-prof DIR  the server's V8 CPU profile
 *   --log N       first PATCH, then cancel, N bookings one by one with every statement logged for
 *                 the run's database, and print the statements per request (PostgreSQL's log)
 */
import autocannon from "autocannon"
import { existsSync, statSync } from "node:fs"
import { parseArgs } from "node:util"
import postgres from "postgres"
import { freshPostgresDatabase } from "../test/support/databases.ts"
import { LOG, printStatements } from "./statement-log.ts"
import { cpuMs, startChild, stderrOf, stopChild } from "./support.ts"

const { values: args } = parseArgs({
  options: {
    duration: { type: "string", default: "5" },
    connections: { type: "string", default: "16" },
    bookings: { type: "string", default: "4000" },
    windows: { type: "string", default: "2" },
    entry: { type: "string", default: "dist/runtimes/node/server.js" },
    port: { type: "string", default: "42620" },
    "cpu-prof": { type: "string" },
    log: { type: "string", default: "0" },
    only: { type: "string", default: "" },
  },
})
const ADMIN = "bench-admin-token-0123456789"
const everyDay = Object.fromEntries(
  ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"].map((d) => [d, { availableTime: { start: "00:00:00", end: "23:59:00" } }]),
)
const DESKS = 200
const manifest = {
  projects: [
    {
      key: "bench", name: "Bench Tower", timezone: "Asia/Bangkok",
      zones: [{ key: "a", name: "A", floors: [{ key: "a-1", name: "A1" }] }],
      desks: Array.from({ length: DESKS }, (_, i) => ({ key: `d${i}`, name: `Desk ${i}`, index: i, zone: "a", floor: "a-1", config: { dayConfig: everyDay } })),
    },
  ],
  apps: [{ key: "bench", appId: "bench-app", appSecret: "bench-secret-123", projects: ["bench"] }],
}

const pg = await freshPostgresDatabase()
const port = Number(args.port)
const base = `http://127.0.0.1:${port}`
const prof = args["cpu-prof"] ? ["--cpu-prof", `--cpu-prof-dir=${args["cpu-prof"]}`] : []
const server = await startChild([process.execPath, ...prof, args.entry!], { DATABASE_URL: pg.url, KEYSPACE_SEED: "none", KEYSPACE_ADMIN_TOKEN: ADMIN, KEYSPACE_LOG_LEVEL: "info" }, port)
const connections = Number(args.connections)
const duration = Number(args.duration)
try {
  const json = { "content-type": "application/json" }
  const applied = (await (await fetch(`${base}/admin/v1/manifest`, { method: "PUT", headers: { authorization: `Bearer ${ADMIN}`, ...json }, body: JSON.stringify(manifest) })).json()) as any
  const desks = Object.values(applied.data.projects.bench.desks) as string[]
  const token = ((await (await fetch(`${base}/auth/accessToken`, { method: "POST", headers: json, body: JSON.stringify({ grant_type: "app_credentials", app_id: "bench-app", app_secret: "bench-secret-123" }) })).json()) as any).access_token as string
  const headers = { authorization: `Bearer ${token}`, ...json }
  const day0 = Math.ceil(Date.now() / 86_400_000) * 86_400_000
  // Booking i: desk i % DESKS, its own quarter hour (UTC 00:00-16:30 is 07:00-23:30 in Bangkok).
  const slotOf = (i: number) => {
    const k = Math.floor(i / DESKS)
    const start = day0 + (10 + Math.floor(k / 60)) * 86_400_000 + (k % 60) * 15 * 60_000
    return { deskId: desks[i % DESKS], startDateTime: new Date(start).toISOString(), endDateTime: new Date(start + 15 * 60_000).toISOString() }
  }
  const n = Number(args.bookings)
  const ids: string[] = []
  for (let i = 0; i < n; i += 32) {
    const batch = await Promise.all(
      Array.from({ length: Math.min(32, n - i) }, async (_, j) => {
        const r = await fetch(`${base}/meetings`, { method: "POST", headers, body: JSON.stringify({ title: "bench", ...slotOf(i + j) }) })
        if (r.status !== 201) throw new Error(`seeding create: ${r.status} ${await r.text()}`)
        return ((await r.json()) as any).data._id as string
      }),
    )
    ids.push(...batch)
  }
  // Drafts ask for slots after every seeded one: free, so each is a full preview.
  const draftBody = () => {
    const q = Math.floor(Math.random() * 60)
    const start = day0 + (400 + Math.floor(Math.random() * 200)) * 86_400_000 + q * 15 * 60_000
    return JSON.stringify({ deskId: desks[Math.floor(Math.random() * DESKS)], title: "bench", draft: true, startDateTime: new Date(start).toISOString(), endDateTime: new Date(start + 15 * 60_000).toISOString() })
  }

  const measure = async (name: string, expected: number, options: Record<string, unknown>) => {
    if (!name.includes(args.only!)) return
    const statuses: Record<string, number> = {}
    const c0 = cpuMs(server.pid!)
    const r = await autocannon({ url: base, connections, ...options, requests: (options.requests as any[]).map((q) => ({ ...q, onResponse: (st: number) => void (statuses[st] = (statuses[st] ?? 0) + 1) })) } as any)
    const cpu = cpuMs(server.pid!) - c0
    const done = Math.max(1, r.requests.total)
    const other = Object.entries(statuses).filter(([k]) => Number(k) !== expected)
    console.log(`${name}: ${Math.round(r.requests.average)} req/s, p50 ${r.latency.p50} p99 ${r.latency.p99} ms, server CPU ${((1000 * cpu) / done).toFixed(0)} µs per request${other.length ? `, other statuses ${JSON.stringify(Object.fromEntries(other))}` : ""}`)
    if (other.some(([k]) => k.startsWith("5"))) console.log(stderrOf(server))
  }
  for (let w = 0; w < Number(args.windows); w++) {
    console.log(`window ${w + 1}${w + 1 < Number(args.windows) ? " (warm-up)" : ""}:`)
    await measure("  GET /meetings/:id", 200, { duration, requests: [{ method: "GET", headers, setupRequest: (req: any) => ({ ...req, path: `/meetings/${ids[Math.floor(Math.random() * ids.length)]}` }) }] })
    await measure("  PATCH /meetings/:id", 200, { duration, requests: [{ method: "PATCH", headers, setupRequest: (req: any) => ({ ...req, path: `/meetings/${ids[Math.floor(Math.random() * ids.length)]}`, body: JSON.stringify({ title: `bench ${Math.random()}` }) }) }] })
    await measure("  POST /meetings draft", 200, { duration, requests: [{ method: "POST", path: "/meetings", headers, setupRequest: (req: any) => ({ ...req, body: draftBody() }) }] })
  }
  // Cancels last: each booking once, the second half of the set (the first warmed up with GETs only).
  let next = 0
  const logged = Number(args.log)
  if (logged > 0) {
    const dbName = new URL(pg.url).pathname.slice(1)
    const sql = postgres(pg.url, { max: 1, onnotice: () => {} })
    await sql.unsafe(`alter database ${dbName} set log_min_duration_statement = 0`)
    await sql`select pg_terminate_backend(pid) from pg_stat_activity where datname = ${dbName} and pid <> pg_backend_pid()`
    await new Promise((r) => setTimeout(r, 500))
    await fetch(`${base}/healthz`)
    const from = existsSync(LOG) ? statSync(LOG).size : 0
    for (let i = 0; i < logged; i++) {
      const r = await fetch(`${base}/meetings/${ids[ids.length - 1 - i]}`, { method: "PATCH", headers, body: JSON.stringify({ title: `logged ${i}` }) })
      if (r.status !== 200) console.log(`patch: ${r.status} ${await r.text()}`)
    }
    await new Promise((r) => setTimeout(r, 500))
    printStatements(`${logged} sequential PATCHes (a new title), statements logged per PATCH (background included):`, from, logged, dbName)
    const cancelsFrom = existsSync(LOG) ? statSync(LOG).size : 0
    for (let i = 0; i < logged; i++) {
      const r = await fetch(`${base}/meetings/${ids[next++]}/cancel`, { method: "POST", headers, body: "{}" })
      if (r.status !== 202) console.log(`cancel: ${r.status} ${await r.text()}`)
    }
    await new Promise((r) => setTimeout(r, 500))
    await sql.unsafe(`alter database ${dbName} reset all`)
    await sql`select pg_terminate_backend(pid) from pg_stat_activity where datname = ${dbName} and pid <> pg_backend_pid()`
    await sql.end()
    printStatements(`${logged} sequential cancels, statements logged per cancel (background included):`, cancelsFrom, logged, dbName)
  }
  const half = Math.floor(ids.length / 2)
  await measure("cancel (warm-up, first half)", 202, { amount: half, requests: [{ method: "POST", headers, body: "{}", setupRequest: (req: any) => ({ ...req, path: `/meetings/${ids[next++]}/cancel` }) }] })
  await measure("POST /meetings/:id/cancel", 202, { amount: ids.length - half, requests: [{ method: "POST", headers, body: "{}", setupRequest: (req: any) => ({ ...req, path: `/meetings/${ids[next++]}/cancel` }) }] })
} finally {
  await stopChild(server)
  await pg.drop()
}
