/**
 * `npm run bench -- --processes N` (issue 16): create and search throughput of one server
 * process, then of N processes on the same PostgreSQL database, the load split evenly over
 * them as a load balancer would (one autocannon per process, the same total connections).
 *
 * On a machine with few cores (the 2-core development machine) N processes share the cores
 * with PostgreSQL and the load generator: the figure shows what coordinating through the
 * database costs (more connections, shared locks and NOTIFY), not a speed-up. Scale-out pays
 * on a machine (or machines) with cores to spare, and only while PostgreSQL is not the limit.
 *
 * Also measured: one process on the manual clock, whose every API request first reads the
 * deployment's clock row (adapters/postgres/shared-clock.ts), against the system clock.
 */
import autocannon from "autocannon"
import { mkdirSync, writeFileSync } from "node:fs"
import { cpus, totalmem } from "node:os"
import postgres from "postgres"
import { pickFreePort, startServer, type ServerProcess } from "../test/crash/server-process.ts"
import { freshPostgresDatabase } from "../test/support/databases.ts"
import { startNodeArgs } from "./support.ts"

const ADMIN = "bench-admin-token-0123456789"
const HOUR = 3_600_000
const CONNECTIONS = 16
const root = new URL("..", import.meta.url).pathname

const everyDay = Object.fromEntries(
  ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"].map((d) => [d, { availableTime: { start: "00:00:00", end: "23:59:00" } }]),
)
const manifest = {
  projects: [
    {
      key: "bench", name: "Bench Tower", timezone: "Asia/Bangkok",
      zones: [{ key: "a", name: "A", floors: [{ key: "a-1", name: "A1" }] }],
      rooms: Array.from({ length: 100 }, (_, i) => ({ key: `r${i}`, name: `Room ${i}`, zone: "a", floor: "a-1", capacity: 8, config: { dayConfig: everyDay } })),
      desks: Array.from({ length: 500 }, (_, i) => ({ key: `d${i}`, name: `Desk ${i}`, index: i, zone: "a", floor: "a-1", config: { dayConfig: everyDay } })),
    },
  ],
  apps: [{ key: "bench", appId: "bench-app", appSecret: "bench-secret-123", projects: ["bench"] }],
}

interface Figure {
  readonly reqPerSec: number
  readonly p50: number
  readonly p99: number
  readonly statuses: Record<string, number>
}

/** The same load spread over `urls` (one autocannon each, connections split). */
const spread = async (
  urls: ReadonlyArray<string>,
  path: string,
  o: { token: string; seconds: number; method?: "GET" | "POST"; body?: () => unknown },
): Promise<Figure> => {
  const statuses: Record<string, number> = {}
  const runs = await Promise.all(
    urls.map((url) =>
      autocannon({
        url: url + path,
        connections: Math.max(1, Math.round(CONNECTIONS / urls.length)),
        duration: o.seconds,
        requests: [
          {
            method: o.method ?? "GET",
            headers: { authorization: `Bearer ${o.token}`, "content-type": "application/json" },
            ...(o.body ? { setupRequest: (req: any) => ({ ...req, body: JSON.stringify(o.body!()) }) } : {}),
            onResponse: (status: number) => void (statuses[status] = (statuses[status] ?? 0) + 1),
          },
        ],
      }),
    ),
  )
  const total = runs.reduce((n, r) => n + r.requests.average, 0)
  return {
    reqPerSec: Math.round(total),
    // The slowest process's percentiles: what a client behind the balancer sees at worst.
    p50: Math.max(...runs.map((r) => r.latency.p50)),
    p99: Math.max(...runs.map((r) => r.latency.p99)),
    statuses,
  }
}

const json = async (url: string, method: string, body: unknown, token?: string) => {
  const res = await fetch(url, {
    method,
    headers: { "content-type": "application/json", ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify(body),
  })
  return (await res.json()) as any
}

/** Mean round trip of the clock read every API request makes on the manual clock. */
const timeClockReads = async (databaseUrl: string): Promise<number> => {
  const sql = postgres(databaseUrl, { max: 1, prepare: true, onnotice: () => {} })
  try {
    const count = 2_000
    await sql`select now_ms from service_clock where id = 1`
    const t0 = performance.now()
    for (let i = 0; i < count; i++) await sql`select now_ms from service_clock where id = 1`
    return (performance.now() - t0) / count
  } finally {
    await sql.end()
  }
}

export const benchProcesses = async (options: { processes: number; durationSeconds: number }): Promise<void> => {
  const n = Math.max(2, Math.floor(options.processes))
  const seconds = options.durationSeconds
  const print = (line: string) => console.log(line)
  const rows: Array<[string, Figure]> = []
  const start = Date.now()

  const deployment = async (count: number, clock: "system" | "manual", body: (urls: string[], ctx: { token: string; project: string; deskIds: string[]; databaseUrl: string }) => Promise<void>) => {
    const pg = await freshPostgresDatabase()
    const servers: ServerProcess[] = []
    try {
      const env = {
        DATABASE_URL: pg.url, KEYSPACE_SEED: "none", KEYSPACE_ADMIN_TOKEN: ADMIN, KEYSPACE_LOG_LEVEL: "warn",
        ...(clock === "manual" ? { KEYSPACE_CLOCK: "manual", KEYSPACE_CLOCK_START: new Date().toISOString() } : {}),
      }
      for (let i = 0; i < count; i++) servers.push(await startServer(env, await pickFreePort(), { startTimeoutMs: 120_000, entry: "scripts/start.mjs", nodeArgs: startNodeArgs }))
      const urls = servers.map((s) => s.url)
      const applied = await json(`${urls[0]}/admin/v1/manifest`, "PUT", manifest, ADMIN)
      const token = (await json(`${urls[0]}/auth/accessToken`, "POST", { grant_type: "app_credentials", app_id: "bench-app", app_secret: "bench-secret-123" })).access_token
      const bench = applied.data.projects.bench
      await body(urls, { token, project: bench.id, deskIds: Object.values(bench.desks) as string[], databaseUrl: pg.url })
    } finally {
      await Promise.all(servers.map((s) => s.kill("SIGTERM")))
      await pg.drop()
    }
  }

  const day0 = Math.ceil(Date.now() / 86_400_000) * 86_400_000
  const iso = (ms: number) => new Date(ms).toISOString()
  const createBody = (deskIds: string[]) => () => {
    const s = day0 + (2 + Math.floor(Math.random() * 50)) * 24 * HOUR + Math.floor(Math.random() * 96) * 15 * 60_000
    return { deskId: deskIds[Math.floor(Math.random() * deskIds.length)], title: "bench", startDateTime: iso(s), endDateTime: iso(s + 15 * 60_000) }
  }
  const searchPath = (project: string) =>
    `/meeting-rooms?projectId=${project}&startDateTime=${encodeURIComponent(iso(day0 + 30 * 60_000))}&endDateTime=${encodeURIComponent(iso(day0 + 90 * 60_000))}`

  const measure = async (label: string, count: number, clock: "system" | "manual") =>
    deployment(count, clock, async (urls, { token, project, deskIds, databaseUrl }) => {
      const create = await spread(urls, "/meetings", { token, seconds, method: "POST", body: createBody(deskIds) })
      rows.push([`POST /meetings, ${label}`, create])
      print(`bench: POST /meetings, ${label}: ${create.reqPerSec} req/s p50 ${create.p50} p99 ${create.p99} ms`)
      const search = await spread(urls, searchPath(project), { token, seconds })
      rows.push([`room search (100 rooms), ${label}`, search])
      print(`bench: room search, ${label}: ${search.reqPerSec} req/s p50 ${search.p50} p99 ${search.p99} ms`)
      if (clock === "manual") clockRead = await timeClockReads(databaseUrl)
    })
  let clockRead: number | undefined

  await measure("1 process", 1, "system")
  await measure(`${n} processes`, n, "system")
  await measure("1 process, manual clock (clock row read per request)", 1, "manual")

  const machine = `${cpus().length} x ${cpus()[0]?.model.trim()}, ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}, PostgreSQL local`
  console.log(`\nKeyspace scale-out bench, ${new Date().toISOString()}, ${machine}, ${CONNECTIONS} connections in total, ${seconds} s per load, ${((Date.now() - start) / 1000).toFixed(0)} s total`)
  console.log("| benchmark | req/s | p50 ms | p99 ms | statuses |")
  console.log("|---|---|---|---|---|")
  for (const [name, f] of rows)
    console.log(`| ${name} | ${f.reqPerSec} | ${f.p50} | ${f.p99} | ${Object.entries(f.statuses).map(([k, v]) => `${v} x ${k}`).join(", ")} |`)
  console.log(`\nThe manual clock's per-request read alone (the statement the service sends, 2,000 in a row): ${clockRead?.toFixed(3)} ms per round trip.`)
  if (cpus().length <= 2)
    console.log(`\nOn ${cpus().length} cores the ${n} processes, PostgreSQL and the load generator share the same cores: the difference is the cost of coordinating through one database, not a speed-up.`)
  mkdirSync(`${root}bench/results`, { recursive: true })
  const file = `${root}bench/results/${new Date().toISOString().slice(0, 19).replace(/:/g, "-")}-processes-${n}.json`
  writeFileSync(file, JSON.stringify({ machine, processes: n, connections: CONNECTIONS, durationSeconds: seconds, rows, clockReadMs: clockRead }, null, 2))
  console.log(`\nwritten ${file}`)
}
