/**
 * `npx tsx bench/edge-healthz.ts [--rounds 3] [--duration 5] [--cpu-prof DIR] [--server CMD...]`:
 * GET /healthz through the full middleware against bare node:http with the same bytes
 * (bench/bare-http.ts), 64 connections, alternating rounds; prints req/s and the server's CPU
 * µs per request (utime+stime from /proc; the bench rounds it to 10 µs). Issue 13, stream E.
 */
import autocannon from "autocannon"
import { writeFileSync } from "node:fs"
import { parseArgs } from "node:util"
import { freshPostgresDatabase } from "../test/support/databases.ts"
import { cpuMs, startChild, statusKb, stopChild } from "./support.ts"

const { values: args } = parseArgs({
  options: {
    rounds: { type: "string", default: "3" },
    duration: { type: "string", default: "5" },
    port: { type: "string", default: "4110" },
    entry: { type: "string", default: "dist/runtimes/node/server.js" },
    "cpu-prof": { type: "string" },
    "no-bare": { type: "boolean", default: false },
  },
})
const port = Number(args.port)
const pg = await freshPostgresDatabase()
const prof = args["cpu-prof"] ? ["--cpu-prof", `--cpu-prof-dir=${args["cpu-prof"]}`] : []
const server = await startChild([process.execPath, ...prof, args.entry!], { DATABASE_URL: pg.url, KEYSPACE_SEED: "none", KEYSPACE_ADMIN_TOKEN: "bench-admin-token-0123456789", KEYSPACE_LOG_LEVEL: "info" }, port)
const bytes = Buffer.from(await (await fetch(`http://127.0.0.1:${port}/healthz`)).arrayBuffer())
const file = `/tmp/edge-healthz-${port}.json`
writeFileSync(file, bytes)
const bare = args["no-bare"] ? undefined : await startChild([process.execPath, "--import", "tsx", "bench/bare-http.ts"], { BARE_FILE: file }, port + 1, async (p) => (await fetch(`http://127.0.0.1:${p}/`)).ok)
const run = async (p: number, pid: number) => {
  const before = cpuMs(pid)
  const r = await autocannon({ url: `http://127.0.0.1:${p}/healthz`, connections: 64, duration: Number(args.duration) })
  const cpu = cpuMs(pid) - before
  return { rps: Math.round(r.requests.average), us: Math.round((1000 * cpu) / r.requests.total * 10) / 10, p99: r.latency.p99 }
}
try {
  await autocannon({ url: `http://127.0.0.1:${port}/healthz`, connections: 64, duration: 2 })
  if (bare) await autocannon({ url: `http://127.0.0.1:${port + 1}/healthz`, connections: 64, duration: 2 })
  for (let i = 0; i < Number(args.rounds); i++) {
    const ours = await run(port, server.pid!)
    const b = bare ? await run(port + 1, bare.pid!) : undefined
    console.log(`round ${i}: ours ${ours.rps} req/s ${ours.us} us/req p99 ${ours.p99}` + (b ? ` | bare ${b.rps} req/s ${b.us} us/req | ratio ${(ours.rps / b.rps).toFixed(2)} cpu ratio ${(b.us / ours.us).toFixed(2)}` : "") + ` | rss ${Math.round(statusKb(server.pid!, "VmRSS") / 1024)} MB`)
  }
} finally {
  await stopChild(server)
  if (bare) await stopChild(bare)
  await pg.drop()
}
