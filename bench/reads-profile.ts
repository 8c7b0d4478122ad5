/**
 * `npx tsx bench/reads-profile.ts --database URL [--entry A --entry B] [--rounds 2]`: where the
 * time of the authenticated read paths goes (issue 13, session 5, stream R).
 *
 *   --database URL     a database kept by `npm run bench -- --keep` (10,000 desks, 100,000
 *                      bookings; its project, app and token are looked up, nothing is written
 *                      but one access token)
 *   --entry FILE       server entry (repeatable: alternating A/B rounds); default dist/
 *   --rounds 2         alternating rounds per entry
 *   --duration 5       seconds of load per read (autocannon, after a 1 s warm-up)
 *   --connections 16
 *   --cpu-prof DIR     write each server's V8 CPU profile into DIR (summarised at the end)
 *   --port 42300
 *
 * Per read (the bench's desk listing, its GET /meetings week and `GET /desks?limit=1` as the
 * authenticated trivial answer) and entry: req/s, the server's CPU µs per request
 * (utime+stime from /proc), and the cache-epoch reads per request (scans of `cache_epoch` in
 * pg_stat_user_tables: every sync is one primary-key read of its one row). The answers of
 * every entry are compared byte for byte.
 */
import autocannon from "autocannon"
import { existsSync, readdirSync } from "node:fs"
import { parseArgs } from "node:util"
import postgres from "postgres"
import { summariseCpuProfile } from "./cpu-profile.ts"
import { readFileSync } from "node:fs"
import { sleep, startChild, stopChild } from "./support.ts"

const { values: args } = parseArgs({
  options: {
    database: { type: "string" },
    entry: { type: "string", multiple: true },
    rounds: { type: "string", default: "2" },
    duration: { type: "string", default: "5" },
    connections: { type: "string", default: "16" },
    "cpu-prof": { type: "string" },
    port: { type: "string", default: "42300" },
    only: { type: "string" },
  },
})
if (!args.database) throw new Error("--database URL (npm run bench -- --keep prints one)")
const ADMIN = "bench-admin-token-0123456789"
const HOUR = 3_600_000
const entries = args.entry?.length ? args.entry : ["dist/runtimes/node/server.js"]
const sql = postgres(args.database, { max: 1, onnotice: () => {} })
const [{ id: project }] = await sql`select id from projects where key = 'bench'`
const day0 = Math.ceil(Date.now() / 86_400_000) * 86_400_000
const iso = (ms: number) => new Date(ms).toISOString()
const windowStart = day0 + 30 * 60_000
const paths: Array<[string, string]> = [
  ["desk listing (86 KiB)", `/desks?projectId=${project}&startDateTime=${encodeURIComponent(iso(windowStart))}&endDateTime=${encodeURIComponent(iso(windowStart + HOUR))}&limit=100`],
  ["GET /meetings week (62 KiB)", `/meetings?projectId=${project}&from=${encodeURIComponent(iso(day0))}&to=${encodeURIComponent(iso(day0 + 7 * 24 * HOUR))}`],
  ["GET /desks?limit=1 (trivial)", `/desks?projectId=${project}&limit=1`],
  ["room search (501 KiB)", `/meeting-rooms?projectId=${project}&startDateTime=${encodeURIComponent(iso(windowStart))}&endDateTime=${encodeURIComponent(iso(windowStart + HOUR))}`],
].filter(([name]) => !args.only || name.includes(args.only)) as Array<[string, string]>
/** User and system CPU ms of a process so far (Linux clock ticks are 10 ms). */
const cpu = (pid: number) => {
  const f = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ")
  return { user: Number(f[11]) * 10, sys: Number(f[12]) * 10 }
}
const epochScans = async () => {
  const [r] = await sql`select coalesce(seq_scan, 0) + coalesce(idx_scan, 0) as n from pg_stat_user_tables where relname = 'cache_epoch'`
  return Number(r?.n ?? 0)
}

const profDir = args["cpu-prof"]
const port = Number(args.port)
const answers = new Map<string, Buffer>()
const results: Array<{ entry: string; read: string; rps: number; us: number; sysUs: number; epochPerReq: number; p99: number }> = []
for (let round = 0; round < Number(args.rounds); round++) {
  for (const entry of entries) {
    const prof = profDir ? ["--cpu-prof", `--cpu-prof-dir=${profDir}`] : []
    const server = await startChild([process.execPath, ...prof, entry], { DATABASE_URL: args.database, KEYSPACE_SEED: "none", KEYSPACE_ADMIN_TOKEN: ADMIN, KEYSPACE_LOG_LEVEL: "info" }, port)
    const base = `http://127.0.0.1:${port}`
    try {
      const token = ((await (await fetch(`${base}/auth/accessToken`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ grant_type: "app_credentials", app_id: "bench-app", app_secret: "bench-secret-123" }) })).json()) as { access_token: string }).access_token
      const headers = { authorization: `Bearer ${token}` }
      for (const [name, path] of paths) {
        const body = Buffer.from(await (await fetch(base + path, { headers })).arrayBuffer())
        const seen = answers.get(name)
        if (seen === undefined) answers.set(name, body)
        else if (!seen.equals(body)) throw new Error(`${entry}: ${name} answered other bytes`)
        await autocannon({ url: base + path, connections: Number(args.connections), duration: 1, requests: [{ headers }] })
        await sleep(1200)
        const e0 = await epochScans()
        const c0 = cpu(server.pid!)
        let other = 0
        const r = await autocannon({ url: base + path, connections: Number(args.connections), duration: Number(args.duration), requests: [{ headers, onResponse: (status) => void (status !== 200 && other++) }] })
        const c1 = cpu(server.pid!)
        await sleep(1200)
        const e1 = await epochScans()
        const n = Math.max(1, r.requests.total)
        if (other > 0) throw new Error(`${entry}: ${name}: ${other} answers other than 200`)
        results.push({ entry, read: name, rps: Math.round(r.requests.average), us: Math.round((1000 * (c1.user + c1.sys - c0.user - c0.sys)) / n), sysUs: Math.round((1000 * (c1.sys - c0.sys)) / n), epochPerReq: Math.round((100 * (e1 - e0)) / n) / 100, p99: r.latency.p99 })
        console.log(`${entry} | ${name}: ${results.at(-1)!.rps} req/s, p99 ${r.latency.p99} ms, ${results.at(-1)!.us} CPU µs/req (sys ${results.at(-1)!.sysUs}), ${results.at(-1)!.epochPerReq} epoch reads/req`)
      }
    } finally {
      await stopChild(server)
    }
  }
}
await sql.end()
if (profDir && existsSync(profDir))
  for (const f of readdirSync(profDir).filter((f) => f.endsWith(".cpuprofile"))) console.log(summariseCpuProfile(`${profDir}/${f}`, 30))
