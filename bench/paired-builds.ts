/**
 * `npx tsx bench/paired-builds.ts --a dist-a/runtimes/node/server.js --b dist/runtimes/node/server.js`:
 * two server builds under the same load at the same time, for changes of a few percent on a VM
 * whose speed moves by more than that between minutes (issue 13, session 17).
 *
 *   --a FILE / --b FILE   the two entries (a copy of another commit's dist/ inside the checkout,
 *                         so the bundle finds drizzle/ beside it); the same file twice is the
 *                         control, whose ratio shows what the method cannot tell apart
 *   --path /healthz       the unauthenticated path both are loaded on
 *   --rounds 10           windows, each printed with its ratio
 *   --duration 3          seconds per window
 *   --connections 64      split evenly between the two servers
 *   --node-arg A          passed to both servers' node (repeatable)
 *   --a-node-arg A        passed to A's node only (repeatable)
 *   --b-node-arg A        passed to B's node only (repeatable): A/B of a V8 flag on one build
 *   --idle 0              seconds both servers stay idle between windows (V8's memory reducer
 *                         acts on a process that goes idle after a load)
 *
 * Alternating windows (bench/edge-healthz.ts) compare two minutes of the VM; here both servers
 * share each window, and its noise, on the same two cores. Prints each window's server CPU per
 * request (utime+stime from /proc) and B's ratio to A, then the median ratio and in how many
 * windows B was cheaper. What it resolves on session 17's VM, where alternating windows of one
 * build differed by up to 50%: A/A controls gave medians of 0.98-1.02, but one comparison of
 * two builds repeated three times gave 0.96, 0.80 and 0.99. Run it several times; a difference
 * under about 5% is not one.
 */
import autocannon from "autocannon"
import { parseArgs } from "node:util"
import { freshPostgresDatabase } from "../test/support/databases.ts"
import { cpuMs, sleep, startChild, stopChild } from "./support.ts"

const { values: args } = parseArgs({
  options: {
    a: { type: "string" },
    b: { type: "string" },
    path: { type: "string", default: "/healthz" },
    rounds: { type: "string", default: "10" },
    duration: { type: "string", default: "3" },
    connections: { type: "string", default: "64" },
    port: { type: "string", default: "4160" },
    "node-arg": { type: "string", multiple: true, default: [] },
    "a-node-arg": { type: "string", multiple: true, default: [] },
    "b-node-arg": { type: "string", multiple: true, default: [] },
    idle: { type: "string", default: "0" },
  },
})
if (!args.a || !args.b) throw new Error("--a and --b name the two server entries (the same file twice with --b-node-arg)")
const port = Number(args.port)
const connections = Math.max(1, Math.floor(Number(args.connections) / 2))
const pg = await freshPostgresDatabase()
const env = { DATABASE_URL: pg.url, KEYSPACE_SEED: "none", KEYSPACE_ADMIN_TOKEN: "bench-admin-token-0123456789", KEYSPACE_LOG_LEVEL: "info" }
const servers = [
  { port, child: await startChild([process.execPath, ...args["node-arg"], ...args["a-node-arg"], args.a], env, port) },
  { port: port + 1, child: await startChild([process.execPath, ...args["node-arg"], ...args["b-node-arg"], args.b], env, port + 1) },
]

/** One window: both servers loaded at once; each one's CPU µs per request and req/s. */
const window = (seconds: number) =>
  Promise.all(
    servers.map(async (s) => {
      const before = cpuMs(s.child.pid!)
      const r = await autocannon({ url: `http://127.0.0.1:${s.port}${args.path}`, connections, duration: seconds })
      return { us: ((cpuMs(s.child.pid!) - before) * 1000) / Math.max(1, r.requests.total), rps: r.requests.average, non2xx: r.non2xx }
    }),
  )
const median = (xs: number[]) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)]!

try {
  await window(2)
  const ratios: number[] = []
  for (let i = 1; i <= Number(args.rounds); i++) {
    if (i > 1) await sleep(Number(args.idle) * 1000)
    const [a, b] = await window(Number(args.duration))
    if (a!.non2xx + b!.non2xx > 0) throw new Error(`answers other than 2xx on ${args.path}: A ${a!.non2xx}, B ${b!.non2xx}`)
    ratios.push(b!.us / a!.us)
    console.log(`window ${i}: A ${a!.us.toFixed(1)} µs/req ${Math.round(a!.rps)}/s | B ${b!.us.toFixed(1)} µs/req ${Math.round(b!.rps)}/s | B/A ${(b!.us / a!.us).toFixed(3)}`)
  }
  console.log(`median B/A CPU per request ${median(ratios).toFixed(3)}; B cheaper in ${ratios.filter((r) => r < 1).length} of ${ratios.length} windows`)
} finally {
  for (const s of servers) await stopChild(s.child)
  await pg.drop()
}
