import { CLOCK_START } from "../support/harness.ts"
import { socketServer } from "../support/socket-server.ts"
import { replay, setUpWireWorld, wireTraffic, type ReplayReport } from "./wire-traffic.ts"

/**
 * The HTTP half of `npm run fuzz`: mixed traffic (test/fuzz/wire-traffic.ts) over keep-alive
 * sockets against a real server, the one at `url` or the service booted here behind the Node
 * runtime's HTTP server. A request without a complete answer, or answered 5xx, is a failure.
 */
export interface WireFuzzOptions {
  readonly url?: string
  readonly adminToken?: string
  readonly requests: number
  readonly seed: number
  readonly sockets: number
  /** The server's body limit; bodies just over it are part of the traffic. */
  readonly maxBodyBytes?: number
}

export const runWireFuzz = async (o: WireFuzzOptions): Promise<{ report: ReplayReport; ok: boolean }> => {
  if (o.url) process.env.KEYSPACE_E2E_URL = o.url
  if (o.adminToken) process.env.KEYSPACE_E2E_ADMIN_TOKEN = o.adminToken
  if (o.maxBodyBytes) process.env.KEYSPACE_E2E_MAX_BODY_BYTES = String(o.maxBodyBytes)
  const server = await socketServer({ KEYSPACE_MAX_BODY_BYTES: String(o.maxBodyBytes ?? 64 * 1024), KEYSPACE_PARTNER_RATE_LIMIT: "1000000" })
  try {
    const world = await setUpWireWorld(server.url, server.adminToken)
    // Bodies over the limit, up to about 1 GiB of them (a server's default limit is 15 MiB).
    const overLimit = Math.max(4, Math.floor(2 ** 30 / server.maxBodyBytes))
    const requests = wireTraffic(world, { seed: o.seed, count: o.requests, maxBodyBytes: server.maxBodyBytes, base: Date.parse(CLOCK_START), overLimit })
    console.log(`HTTP fuzz: ${o.requests} requests (seed ${o.seed}) over ${o.sockets} keep-alive sockets to ${o.url ?? `${server.url} (in-process, Node)`}`)
    const started = Date.now()
    const report = await replay(server.url, requests, { sockets: o.sockets })
    const took = ((Date.now() - started) / 1000).toFixed(1)
    console.log(`${report.answered} of ${report.sent} requests answered in ${took}s; ${report.announcedClose} answers announced Connection: close; statuses ${JSON.stringify(report.statuses)}`)
    for (const u of report.unanswered.slice(0, 20))
      console.error(`NO ANSWER (${u.error}${u.reusedSocket ? ", on a reused socket" : ""}): ${u.request}${u.previous ? `\n  after, on the same socket: ${u.previous}` : ""}`)
    for (const e of report.serverErrors.slice(0, 20)) console.error(`5xx: ${e.request} -> ${e.status} ${e.body}`)
    return { report, ok: report.unanswered.length === 0 && report.serverErrors.length === 0 }
  } finally {
    await server.close()
  }
}
