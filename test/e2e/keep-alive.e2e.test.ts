import http from "node:http"
import net, { type Socket } from "node:net"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { replay, setUpWireWorld, wireTraffic, type WireWorld } from "../fuzz/wire-traffic.ts"
import { SMALL_BODY_BYTES } from "../../adapters/http/app.ts"
import { CLOCK_START } from "../support/harness.ts"
import { socketServer, type SocketServer } from "../support/socket-server.ts"

/**
 * Issue 17: keep-alive connections were reset under mixed traffic. Over a real socket (under
 * `npm test` the Node runtime's server in-process; under .ci/runtime-smoke the Node, Bun and
 * Deno servers), a connection the server gives up must be announced (`Connection: close`),
 * never closed under a client entitled to reuse it. The causes found, each guarded below:
 * - a body left unread by an early answer (401, 404, a DELETE): @hono/node-server closed the
 *   socket 500 ms later without a word, even after answering further requests on it;
 * - a body over the limit: Bun dropped it unanswered, and a server closing while the client
 *   still sends makes the client's write fail (EPIPE) before it reads the 413;
 * - a request line over the HTTP layer's limit: Node answered 431 and reset the connection
 *   under the client still sending it, so the answer was lost (and an answer with a body to
 *   a HEAD would break the client's parsing);
 * - CONNECT: Node dropped the socket unanswered.
 */
const SEED = 20261123
const REQUESTS = 1500
const MIB = 1024 * 1024

interface Answer {
  readonly status: number
  readonly connection: string | undefined
  readonly socket: Socket
  readonly body: string
}

const guarded = new WeakSet<Socket>()

/** One request through `agent`, read to the end; rejects when there is no complete answer. */
const ask = (
  agent: http.Agent,
  url: string,
  r: { method: string; path: string; headers?: Record<string, string>; body?: Buffer | string; chunked?: boolean },
) =>
  new Promise<Answer>((resolve, reject) => {
    const target = new URL(url)
    const headers: Record<string, string> = { ...r.headers }
    if (r.body !== undefined) {
      if (r.chunked) headers["transfer-encoding"] = "chunked"
      else headers["content-length"] = String(Buffer.byteLength(r.body))
    }
    let socket: Socket
    const req = http.request({ host: target.hostname, port: target.port, method: r.method, path: r.path, headers, agent }, (res) => {
      let body = ""
      res.on("data", (d: Buffer) => (body += d.toString()))
      res.on("error", reject)
      res.on("end", () =>
        res.complete ? resolve({ status: res.statusCode!, connection: res.headers.connection, socket, body }) : reject(new Error("incomplete answer")),
      )
    })
    req.on("socket", (s: Socket) => {
      socket = s
      // A write error on a socket the server closed arrives here, not on the request.
      if (!guarded.has(s)) s.on("error", () => {})
      guarded.add(s)
    })
    req.on("error", reject)
    req.end(r.body)
  })

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

describe("keep-alive connections under mixed traffic (issue 17)", () => {
  let server: SocketServer
  let world: WireWorld
  beforeAll(async () => {
    server = await socketServer({ KEYSPACE_MAX_BODY_BYTES: String(MIB), KEYSPACE_PARTNER_RATE_LIMIT: "1000000" })
    world = await setUpWireWorld(server.url, server.adminToken)
  }, 120_000)
  afterAll(async () => server?.close())

  /**
   * After `first`, the connection is either announced closed or still carries a request after
   * 700 ms (past the 500 ms after which the node adapter used to drop it).
   */
  const connectionSurvives = async (first: Parameters<typeof ask>[2]) => {
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 })
    try {
      const a = await ask(agent, server.url, first)
      let closed = false
      a.socket.once("close", () => (closed = true))
      await pause(700)
      const b = await ask(agent, server.url, { method: "GET", path: "/healthz" })
      expect(b.status).toBe(200)
      const announced = a.connection?.toLowerCase() === "close"
      expect({ status: a.status, closedSilently: closed && !announced, reused: b.socket === a.socket || announced }).toEqual({
        status: a.status,
        closedSilently: false,
        reused: true,
      })
      return a
    } finally {
      agent.destroy()
    }
  }

  it(`${REQUESTS} requests of mixed valid and malformed traffic over 4 keep-alive sockets all get a complete answer`, { timeout: 300_000 }, async () => {
    // Under npm test the limit is 1 MiB; a server's default is 15 MiB: a few such bodies do.
    const overLimit = Math.max(4, Math.floor((64 * MIB) / server.maxBodyBytes))
    const requests = wireTraffic(world, { seed: SEED, count: REQUESTS, maxBodyBytes: server.maxBodyBytes, base: Date.parse(CLOCK_START), overLimit })
    const report = await replay(server.url, requests, { sockets: 4 })
    console.log(`keep-alive: ${report.answered}/${report.sent} answered, ${report.announcedClose} announced Connection: close, statuses ${JSON.stringify(report.statuses)}`)
    expect(report.unanswered).toEqual([])
    expect(report.serverErrors).toEqual([])
    expect(report.answered).toBe(REQUESTS)
  })

  it("a body left unread by an early answer (401, 404, DELETE, a body on GET) does not make the server drop the connection later", { timeout: 60_000 }, async () => {
    // Large enough that the old node adapter stalled on it (a few kB were read before the end).
    const body = JSON.stringify({ title: "x".repeat(Math.min(900_000, server.maxBodyBytes - 100)) })
    const json = { "content-type": "application/json" }
    expect((await connectionSurvives({ method: "POST", path: "/meetings", headers: json, body })).status).toBe(401)
    expect((await connectionSurvives({ method: "POST", path: "/nowhere", headers: json, body })).status).toBe(404)
    expect((await connectionSurvives({ method: "DELETE", path: "/partner/members/ext-x", headers: json, body })).status).toBe(401)
    expect((await connectionSurvives({ method: "GET", path: "/healthz", headers: json, body })).status).toBe(200)
    expect((await connectionSurvives({ method: "POST", path: "/admin/v1/clock/advance", headers: json, body, chunked: true })).status).toBe(401)
  })

  it("a body over the limit gets its whole 413, with or without Content-Length, and the client then goes on", { timeout: 120_000 }, async () => {
    // The token endpoint takes the small limit; the manifest KEYSPACE_MAX_BODY_BYTES (a face's).
    const routes = [
      { method: "POST", path: "/auth/accessToken", limit: Math.min(SMALL_BODY_BYTES, server.maxBodyBytes) },
      { method: "PUT", path: "/admin/v1/manifest", limit: server.maxBodyBytes },
    ]
    for (const { method, path, limit } of routes)
      for (const chunked of [false, true]) {
        const over = Buffer.alloc(limit + 1000, 0x78)
        const a = await connectionSurvives({ method, path, headers: { "content-type": "application/json" }, body: over, chunked })
        expect([path, a.status, JSON.parse(a.body).code]).toEqual([path, 413, "SV001"])
      }
  })

  it("a request line over the HTTP layer's limit gets its answer (without a body for HEAD) before the connection closes", { timeout: 60_000 }, async () => {
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 })
    try {
      for (const method of ["GET", "HEAD", "GET", "HEAD", "POST"]) {
        const a = await ask(agent, server.url, { method, path: `/desks?name=${"x".repeat(200_000)}` })
        expect(a.status).toBeGreaterThanOrEqual(400)
        expect((await ask(agent, server.url, { method: "GET", path: "/healthz" })).status).toBe(200)
      }
    } finally {
      agent.destroy()
    }
  })

  it("CONNECT is answered, not dropped", async () => {
    // Node's client does not hand a CONNECT answer over as a response: read the socket.
    const target = new URL(server.url)
    const answer = await new Promise<string>((resolve) => {
      const s = net.connect(Number(target.port), target.hostname)
      let text = ""
      s.on("data", (d) => {
        text += d.toString()
        if (text.includes("\r\n\r\n")) s.destroy()
      })
      s.on("error", () => resolve(text))
      s.on("close", () => resolve(text))
      s.write("CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n")
      setTimeout(() => s.destroy(), 5_000)
    })
    expect(answer).toMatch(/^HTTP\/1\.1 4\d\d /)
  })

  it("a server announcing its keep-alive timeout announces at least 60 s (longer than common proxies and clients wait)", async () => {
    const res = await fetch(`${server.url}/healthz`)
    const hint = /timeout=(\d+)/.exec(res.headers.get("keep-alive") ?? "")?.[1]
    if (hint !== undefined) expect(Number(hint)).toBeGreaterThanOrEqual(60)
  })
})
