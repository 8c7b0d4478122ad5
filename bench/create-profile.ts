/**
 * `npx tsx bench/create-profile.ts`: where the time of one `POST /meetings` goes (issue 13).
 *
 *   --duration 8       seconds of load (autocannon, random free 15-minute desk slots)
 *   --connections 16   clients
 *   --desks 200        desks in the manifest
 *   --dist             run dist/runtimes/node/server.js (npm run build first) instead of tsx
 *   --entry FILE       with --dist: this bundle instead (A/B: a copy of another commit's dist/)
 *   --cpu-prof DIR     write the server's V8 CPU profile into DIR (summarised after the run)
 *   --windows 1        loads of --duration seconds one after the other, each printed, the last
 *                      measured in full (a fresh process spends its first seconds compiling)
 *   --setup-sql SQL    run SQL on the fresh database once the manifest is applied (experiments:
 *                      what a constraint or trigger costs per create)
 *   --node-arg A      pass A to the server's node (repeatable: V8 flags such as --max-semi-space-size)
 *   --explain          also log the plans (ANALYZE, BUFFERS, triggers) of the sequential creates
 *                      statements into PostgreSQL's log (auto_explain; read them there)
 *   --draft            send draft creates (the whole request and use case, nothing written): what the
 *                      write itself adds to a create, by difference
 *   --log-load         also log every statement during the load and print them per create
 *                      (logging costs PostgreSQL time: use for counts, not for CPU figures)
 *
 * Prints, per create: the server's CPU ms (utime+stime from /proc over the load), PostgreSQL
 * transactions, rows inserted and read (pg_stat_database of the run's own database), and for
 * 50 sequential creates every statement PostgreSQL logged for the database
 * (log_min_duration_statement = 0 set on that database only, read back from the server log),
 * grouped by text with its mean duration; then the wait events of the database's backends
 * sampled every 20 ms during the load.
 */
import autocannon from "autocannon"
import { spawn } from "node:child_process"
import { existsSync, readdirSync, statSync } from "node:fs"
import { parseArgs } from "node:util"
import postgres from "postgres"
import { freshPostgresDatabase } from "../test/support/databases.ts"
import { summariseCpuProfile } from "./cpu-profile.ts"
import { LOG, printStatements } from "./statement-log.ts"
import { cpuMs, startChild, stderrOf, stopChild, systemCpuMs } from "./support.ts"

const { values: args } = parseArgs({
  options: {
    duration: { type: "string", default: "8" },
    connections: { type: "string", default: "16" },
    desks: { type: "string", default: "200" },
    dist: { type: "boolean", default: false },
    entry: { type: "string", default: "dist/runtimes/node/server.js" },
    "log-load": { type: "boolean", default: false },
    windows: { type: "string", default: "1" },
    "cpu-prof": { type: "string" },
    port: { type: "string", default: "42610" },
    "setup-sql": { type: "string" },
    explain: { type: "boolean", default: false },
    draft: { type: "boolean", default: false },
    "node-arg": { type: "string", multiple: true, default: [] },
  },
})
const ADMIN = "bench-admin-token-0123456789"
/** The status of a create that did what was asked: 201, or 200 for a draft's price preview. */
const DONE = args.draft ? "200" : "201"
const everyDay = Object.fromEntries(
  ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"].map((d) => [d, { availableTime: { start: "00:00:00", end: "23:59:00" } }]),
)
const manifest = {
  projects: [
    {
      key: "bench", name: "Bench Tower", timezone: "Asia/Bangkok",
      zones: [{ key: "a", name: "A", floors: [{ key: "a-1", name: "A1" }] }],
      desks: Array.from({ length: Number(args.desks) }, (_, i) => ({ key: `d${i}`, name: `Desk ${i}`, index: i, zone: "a", floor: "a-1", config: { dayConfig: everyDay } })),
    },
  ],
  apps: [{ key: "bench", appId: "bench-app", appSecret: "bench-secret-123", projects: ["bench"] }],
}

const pg = await freshPostgresDatabase()
const dbName = new URL(pg.url).pathname.slice(1)
const sql = postgres(pg.url, { max: 1, onnotice: () => {} })
const port = Number(args.port)
const base = `http://127.0.0.1:${port}`
const profDir = args["cpu-prof"]
const command = [
  process.execPath,
  ...args["node-arg"]!,
  ...(profDir ? ["--cpu-prof", `--cpu-prof-dir=${profDir}`] : []),
  ...(args.dist ? [args.entry] : ["--import", "tsx", "runtimes/node/server.ts"]),
]
const startedProfiles = new Set(profDir && existsSync(profDir) ? readdirSync(profDir) : [])
let loadEnded = 0
let exitedAfterLoadMs = 0
const server = await startChild(command, { DATABASE_URL: pg.url, KEYSPACE_SEED: "none", KEYSPACE_ADMIN_TOKEN: ADMIN, KEYSPACE_LOG_LEVEL: "info" }, port)
try {
  const json = { "content-type": "application/json" }
  const applied = (await (await fetch(`${base}/admin/v1/manifest`, { method: "PUT", headers: { authorization: `Bearer ${ADMIN}`, ...json }, body: JSON.stringify(manifest) })).json()) as any
  const deskIds = Object.values(applied.data.projects.bench.desks ?? {}) as string[]
  const desks = deskIds.length > 0 ? deskIds : (await sql`select id from desks`).map((r) => r.id as string)
  const token = ((await (await fetch(`${base}/auth/accessToken`, { method: "POST", headers: json, body: JSON.stringify({ grant_type: "app_credentials", app_id: "bench-app", app_secret: "bench-secret-123" }) })).json()) as any).access_token as string
  const day0 = Math.ceil(Date.now() / 86_400_000) * 86_400_000
  const body = () => {
    // Quarter 67 (UTC 16:45) ends after the desks' 23:59 close in Asia/Bangkok (a 400): skipped.
    const q = Math.floor(Math.random() * 89)
    const start = day0 + (10 + Math.floor(Math.random() * 300)) * 86_400_000 + (q >= 67 ? q + 1 : q) * 15 * 60_000
    return JSON.stringify({ deskId: desks[Math.floor(Math.random() * desks.length)], title: "bench", ...(args.draft ? { draft: true } : {}), startDateTime: new Date(start).toISOString(), endDateTime: new Date(start + 15 * 60_000).toISOString() })
  }
  const headers = { authorization: `Bearer ${token}`, ...json }
  if (args["setup-sql"]) await sql.unsafe(args["setup-sql"])
  // Warm-up: caches, prepared statements, JIT.
  for (let i = 0; i < 30; i++) await fetch(`${base}/meetings`, { method: "POST", headers, body: body() })

  // 50 sequential creates with every statement logged for this database only.
  await sql.unsafe(`alter database ${dbName} set log_min_duration_statement = 0`)
  if (args.explain)
    for (const [k, v] of [["session_preload_libraries", "auto_explain"], ["auto_explain.log_min_duration", "0"], ["auto_explain.log_analyze", "on"], ["auto_explain.log_buffers", "on"], ["auto_explain.log_triggers", "on"], ["auto_explain.log_timing", "on"]])
      await sql.unsafe(`alter database ${dbName} set ${k} = '${v}'`)
  // Sessions read the setting when they start: end the server's (its pool reconnects).
  await sql`select pg_terminate_backend(pid) from pg_stat_activity where datname = ${dbName} and pid <> pg_backend_pid()`
  await new Promise((r) => setTimeout(r, 500))
  for (let i = 0; i < 5; i++) await fetch(`${base}/meetings`, { method: "POST", headers, body: body() })
  const logFrom = existsSync(LOG) ? statSync(LOG).size : 0
  const SEQ = 50
  const seqStarted = performance.now()
  for (let i = 0; i < SEQ; i++) {
    const r = await fetch(`${base}/meetings`, { method: "POST", headers, body: body() })
    if (String(r.status) !== DONE) console.log(`sequential create: ${r.status} ${await r.text()}`)
  }
  const seqMs = (performance.now() - seqStarted) / SEQ
  await new Promise((r) => setTimeout(r, 500))
  if (!args["log-load"]) {
    await sql.unsafe(`alter database ${dbName} reset all`) // the statement log, and --explain's settings
    await sql`select pg_terminate_backend(pid) from pg_stat_activity where datname = ${dbName} and pid <> pg_backend_pid()`
  }
  printStatements(`\n${SEQ} sequential creates: ${seqMs.toFixed(1)} ms each from the client; statements logged per create (background included):`, logFrom, SEQ, dbName)
  await new Promise((r) => setTimeout(r, 500))
  for (let i = 0; i < 10; i++) await fetch(`${base}/meetings`, { method: "POST", headers, body: body() })

  /** One load of random free creates at --connections for --duration, counting statuses into `counts`. */
  const createLoad = (counts: Record<string, number>) =>
    autocannon({
      url: `${base}/meetings`,
      connections: Number(args.connections),
      duration: Number(args.duration),
      requests: [{ method: "POST", headers, setupRequest: (req: any) => ({ ...req, body: body() }), onResponse: (st: number) => void (counts[st] = (counts[st] ?? 0) + 1) }],
    })

  // Earlier windows of the same load (--windows): V8 compiles the create path during the first
  // seconds of a fresh process (on its own threads, counted in the server's CPU).
  for (let w = 1; w < Number(args.windows); w++) {
    const counts: Record<string, number> = {}
    const [cpu0, sysBefore] = [cpuMs(server.pid!), systemCpuMs(server.pid!)]
    const r = await createLoad(counts)
    const k = Math.max(1, counts[DONE] ?? 0)
    if (Object.keys(counts).some((k) => k.startsWith("5"))) console.log(`\nserver stderr (last 4,000 characters):\n${stderrOf(server)}`)
    console.log(`window ${w}: ${Math.round(r.requests.average)} req/s, server CPU per create ${((cpuMs(server.pid!) - cpu0) / k).toFixed(2)} ms (system ${((systemCpuMs(server.pid!) - sysBefore) / k).toFixed(2)}), statuses ${JSON.stringify(counts)}`)
  }

  // The load.
  const stat = async () => (await sql`select xact_commit::int8 as c, xact_rollback::int8 as r, tup_inserted::int8 as i, tup_fetched::int8 as f, tup_returned::int8 as t, blk_write_time, active_time from pg_stat_database where datname = ${dbName}`)[0]!
  const waits = new Map<string, number>()
  let sampling = true
  const sampler = (async () => {
    const s = postgres(pg.url, { max: 1, onnotice: () => {} })
    while (sampling) {
      for (const r of await s`select coalesce(wait_event_type || ':' || wait_event, state) as w from pg_stat_activity where datname = ${dbName} and pid <> pg_backend_pid() and backend_type = 'client backend'`)
        waits.set(r.w as string, (waits.get(r.w as string) ?? 0) + 1)
      await new Promise((r) => setTimeout(r, 20))
    }
    await s.end()
  })()
  const loadLogFrom = existsSync(LOG) ? statSync(LOG).size : 0
  const s0 = await stat()
  // PostgreSQL's side of the same creates: the database's backends plus the WAL writer.
  const pgPids = async () => (await sql`select pid from pg_stat_activity where (datname = ${dbName} and pid <> pg_backend_pid()) or backend_type = 'walwriter'`).map((r) => Number(r.pid))
  const pgBefore = new Map((await pgPids()).map((pid) => [pid, cpuMs(pid)]))
  const harness0 = process.cpuUsage()
  const c0 = cpuMs(server.pid!)
  const sys0 = systemCpuMs(server.pid!)
  const statuses: Record<string, number> = {}
  const result = await createLoad(statuses)
  const c1 = cpuMs(server.pid!)
  const sys1 = systemCpuMs(server.pid!)
  const harness = process.cpuUsage(harness0)
  let pgCpu = 0
  for (const pid of await pgPids()) pgCpu += cpuMs(pid) - (pgBefore.get(pid) ?? 0)
  loadEnded = performance.now()
  sampling = false
  await sampler
  const s1 = await stat()
  const n = statuses[DONE] ?? 0
  const per = (k: string) => ((Number(s1[k]) - Number(s0[k])) / Math.max(1, n)).toFixed(2)
  console.log(`\nload: ${args.connections} connections, ${args.duration} s: ${Math.round(result.requests.average)} req/s, p50 ${result.latency.p50} p99 ${result.latency.p99} ms, statuses ${JSON.stringify(statuses)}`)
  console.log(`server CPU per create: ${((c1 - c0) / Math.max(1, n)).toFixed(2)} ms (system ${((sys1 - sys0) / Math.max(1, n)).toFixed(2)}; ${((c1 - c0) / 10 / Number(args.duration)).toFixed(0)}% of one core)`)
  console.log(`PostgreSQL CPU per create: ${(pgCpu / Math.max(1, n)).toFixed(2)} ms (the database's backends and the WAL writer); load generator (this process) ${((harness.user + harness.system) / 1000 / Math.max(1, n)).toFixed(2)} ms`)
  console.log(`per create: ${per("c")} commits, ${per("r")} rollbacks, ${per("i")} rows inserted, ${per("f")} rows fetched, ${per("t")} rows returned; backend active ${per("active_time")} ms`)
  if (args["log-load"]) {
    await new Promise((r) => setTimeout(r, 500))
    printStatements(`statements logged during the load, per create (background included; the monitoring's own excluded):`, loadLogFrom, n, dbName)
  }
  if (Object.keys(statuses).some((k) => k.startsWith("5"))) console.log(`\nserver stderr (last 4,000 characters):\n${stderrOf(server)}`)
  const total = [...waits.values()].reduce((a, b) => a + b, 0)
  console.log(`backend states sampled (share): ${[...waits.entries()].sort((a, b) => b[1] - a[1]).map(([k, v]) => `${k} ${((100 * v) / total).toFixed(0)}%`).join(", ")}`)
} finally {
  await stopChild(server)
  exitedAfterLoadMs = performance.now() - loadEnded
  await sql.end()
  await pg.drop()
}
if (profDir) {
  // The main thread's profile is the largest (tsx's loader thread writes its own).
  const file = readdirSync(profDir).filter((f) => f.endsWith(".cpuprofile") && !startedProfiles.has(f))
    .sort((a, b) => statSync(`${profDir}/${b}`).size - statSync(`${profDir}/${a}`).size)[0]
  if (file) console.log(`\n${summariseCpuProfile(`${profDir}/${file}`, 40, { endMs: exitedAfterLoadMs + 200, lengthMs: Number(args.duration) * 1000 - 500 })}`)
}
