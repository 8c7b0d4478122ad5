import http from "node:http"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { socketServer, type SocketServer } from "../support/socket-server.ts"

/**
 * Every answer carries one `X-Request-Id` over a real socket: the client's own (up to 64
 * characters) or a new one. Under `npm test` the Node runtime's server, where the edge sets it on
 * Node's response before the app answers (adapters/http/edge.ts); under .ci/runtime-smoke also
 * Bun and Deno, where it goes on the answer itself.
 */
interface Answer {
  readonly status: number
  readonly ids: string[]
  readonly body: string
}

const ask = (url: string, r: { method: string; path: string; headers?: Record<string, string>; body?: string }) =>
  new Promise<Answer>((resolve, reject) => {
    const target = new URL(url)
    const headers = { ...r.headers, ...(r.body === undefined ? {} : { "content-type": "application/json", "content-length": String(Buffer.byteLength(r.body)) }) }
    const req = http.request({ host: target.hostname, port: target.port, method: r.method, path: r.path, headers, agent: false }, (res) => {
      let body = ""
      res.on("data", (d: Buffer) => (body += d.toString()))
      res.on("end", () =>
        resolve({
          status: res.statusCode!,
          ids: res.rawHeaders.filter((_, i) => i % 2 === 1 && res.rawHeaders[i - 1]!.toLowerCase() === "x-request-id"),
          body,
        }),
      )
    })
    req.on("error", reject)
    req.end(r.body)
  })

describe("every answer carries its request id", () => {
  let server: SocketServer
  beforeAll(async () => {
    server = await socketServer()
  }, 120_000)
  afterAll(async () => server?.close())

  const answers: Array<[string, { method: string; path: string; headers?: Record<string, string>; body?: string }, number]> = [
    ["a health probe", { method: "GET", path: "/healthz" }, 200],
    ["a HEAD", { method: "HEAD", path: "/healthz" }, 200],
    ["the metrics", { method: "GET", path: "/metrics" }, 200],
    ["the OpenAPI document", { method: "GET", path: "/openapi.json" }, 200],
    ["an unknown route (404 SV005)", { method: "GET", path: "/no-such-route" }, 404],
    ["a request without a token (401)", { method: "GET", path: "/meeting-rooms" }, 401],
    ["a bad token request (400 SV001)", { method: "POST", path: "/auth/accessToken", body: "{}" }, 400],
    ["an operator request without the admin token (401)", { method: "GET", path: "/admin/v1/manifest" }, 401],
  ]
  for (const [what, request, status] of answers)
    it(`${what}: one X-Request-Id, the client's own when it sent one`, async () => {
      const fresh = await ask(server.url, request)
      expect({ status: fresh.status, ids: fresh.ids.length }).toEqual({ status, ids: 1 })
      expect(fresh.ids[0]!.length).toBeGreaterThan(0)
      const sent = await ask(server.url, { ...request, headers: { ...request.headers, "x-request-id": `client-${status}` } })
      expect({ status: sent.status, ids: sent.ids }).toEqual({ status, ids: [`client-${status}`] })
    })

  it("dot segments of a target are resolved as a URL resolves them, on every runtime (Deno kept them: a member named \"..\")", async () => {
    expect((await ask(server.url, { method: "GET", path: "/meetings/../healthz" })).status).toBe(200)
    expect((await ask(server.url, { method: "GET", path: "/meetings/%2e%2e/healthz" })).status).toBe(200)
    // Resolved to PUT /partner/, no route: never a member named "..".
    expect((await ask(server.url, { method: "PUT", path: "/partner/members/..", body: "{}" })).status).toBe(404)
  })

  it("a client's id longer than 64 characters is answered cut to 64", async () => {
    const answer = await ask(server.url, { method: "GET", path: "/healthz", headers: { "x-request-id": "x".repeat(100) } })
    expect(answer.ids).toEqual(["x".repeat(64)])
  })

  it("a client's id with a space, quote, comma, backslash or a byte outside visible ASCII is replaced by a new one; trace and base64 ids are kept", async () => {
    for (const sent of ["Root=1-5759e988-bd862e3fe1be46a994272793", "dGVzdA==/+x:y;z@h"]) {
      const answer = await ask(server.url, { method: "GET", path: "/healthz", headers: { "x-request-id": sent } })
      expect(answer.ids, sent).toEqual([sent])
    }
    for (const sent of ["has space", "a,b", 'q"uote', "back\\slash", "caf\u00e9"]) {
      const answer = await ask(server.url, { method: "GET", path: "/healthz", headers: { "x-request-id": sent } })
      expect(answer.ids, sent).toHaveLength(1)
      expect(answer.ids[0], sent).not.toBe(sent)
      expect(answer.ids[0]).toMatch(/^[\w-]{1,64}$/)
    }
  })

  it("ids the server makes differ from request to request", async () => {
    const ids = new Set<string>()
    for (let i = 0; i < 20; i++) ids.add((await ask(server.url, { method: "GET", path: "/healthz" })).ids[0]!)
    expect(ids.size).toBe(20)
  })
})
