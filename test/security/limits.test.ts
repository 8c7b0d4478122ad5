import * as http from "node:http"
import * as net from "node:net"
import { readFileSync } from "node:fs"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { pickFreePort, startServer, type ServerProcess } from "../crash/server-process.ts"

/**
 * Request limits over a real socket, against the server process: a 100 MB body is refused
 * early with 413 and never buffered (the answer comes long before the body is sent, and the
 * server's memory does not grow by the body), with or without a Content-Length; oversized
 * headers are refused by the HTTP layer.
 */
const MB = 1024 * 1024
const rssMb = (pid: number) => Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))![1]) / 1024

/** Streams up to `total` bytes; stops at the first answer or when the socket closes. */
const streamBody = (url: string, total: number, withLength: boolean) =>
  new Promise<{ status: number | undefined; body: string; sentMb: number; closedEarly: boolean }>((resolve) => {
    const chunk = Buffer.alloc(MB, 0x61)
    let sent = 0
    let answered = false
    let status: number | undefined
    let body = ""
    const req = http.request(url + "/meetings", {
      method: "POST",
      headers: { "content-type": "application/json", authorization: "Bearer x", ...(withLength ? { "content-length": String(total) } : {}) },
    })
    const finish = (closedEarly: boolean) => resolve({ status, body, sentMb: Math.round(sent / MB), closedEarly })
    req.on("response", (res) => {
      answered = true
      status = res.statusCode
      res.on("data", (d: Buffer) => (body += d.toString()))
      res.on("end", () => {
        req.destroy()
        finish(false)
      })
    })
    req.on("error", () => (answered ? undefined : finish(true)))
    const pump = () => {
      while (!answered && sent < total) {
        sent += chunk.length
        if (!req.write(chunk)) return void req.once("drain", pump)
      }
      if (!answered) req.end()
    }
    pump()
  })

describe("request limits over a real socket", () => {
  let server: ServerProcess
  beforeAll(async () => {
    server = await startServer({ KEYSPACE_DATA_DIR: "memory", KEYSPACE_SEED: "none", KEYSPACE_ADMIN_TOKEN: "limits-admin-token-0123456789" }, await pickFreePort())
  }, 60_000)
  afterAll(async () => server?.kill())

  for (const withLength of [true, false]) {
    it(`a 100 MB body ${withLength ? "with" : "without"} Content-Length is refused early with 413, not buffered`, { timeout: 60_000 }, async () => {
      const before = rssMb(server.child.pid!)
      const r = await streamBody(server.url, 100 * MB, withLength)
      const after = rssMb(server.child.pid!)
      console.log(`limits: 100 MB ${withLength ? "with" : "without"} length: ${r.status ?? "closed"} after ${r.sentMb} MB sent, RSS ${before.toFixed(0)} -> ${after.toFixed(0)} MB`)
      // Either the 413 envelope, or (had the server closed first) a closed socket: never 100 MB in.
      if (!r.closedEarly) {
        expect(r.status).toBe(413)
        expect(JSON.parse(r.body)).toMatchObject({ code: "SV001", success: false })
      }
      expect(r.sentMb, "the answer came before the body was sent").toBeLessThan(60)
      expect(after - before, `server RSS grew from ${before} to ${after} MB`).toBeLessThan(48)
      // And the server still serves.
      expect((await fetch(`${server.url}/healthz`)).status).toBe(200)
    })
  }

  it("headers over the HTTP layer's limit are refused (431), not parsed", async () => {
    const status = await new Promise<number | undefined>((resolve) => {
      const req = http.request(server.url + "/healthz", { headers: { "x-big": "a".repeat(64 * 1024) } }, (res) => resolve(res.statusCode))
      req.on("error", () => resolve(undefined))
      req.end()
    })
    expect([431, undefined]).toContain(status)
  })

  it("a malformed request pipelined after a valid one is answered 400 after the valid one's answer, in order (HTTP/1.1)", async () => {
    const { port } = new URL(server.url)
    const raw = await new Promise<string>((resolve) => {
      let got = ""
      const socket = net.connect(Number(port), "127.0.0.1", () =>
        socket.write("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\nGARBAGE\r\n\r\n"),
      )
      socket.on("data", (d) => (got += d.toString("latin1")))
      socket.on("close", () => resolve(got))
      socket.on("error", () => resolve(got))
      setTimeout(() => socket.destroy(), 5_000).unref()
    })
    const statuses = [...raw.matchAll(/HTTP\/1\.1 (\d{3})/g)].map((m) => m[1])
    expect(statuses).toEqual(["200", "400"])
    expect(raw).toContain('{"status":"ok"}')
  })

  it("HTTP/1.0 without Host (a load balancer's bare health check) is answered; HTTP/1.1 without Host is 400", async () => {
    const { port } = new URL(server.url)
    const ask = (request: string) =>
      new Promise<string>((resolve) => {
        let got = ""
        const socket = net.connect(Number(port), "127.0.0.1", () => socket.write(request))
        socket.on("data", (d) => (got += d.toString("latin1")))
        socket.on("close", () => resolve(got))
        socket.on("error", () => resolve(got))
        setTimeout(() => socket.destroy(), 3_000).unref()
      })
    const http10 = await ask("GET /healthz HTTP/1.0\r\n\r\n")
    expect(http10).toMatch(/^HTTP\/1\.1 200 /)
    expect(http10).toContain('{"status":"ok"}')
    expect(await ask("GET /healthz HTTP/1.1\r\n\r\n")).toMatch(/^HTTP\/1\.1 400 /)
  })

  it("a 14 MiB body (under the 15 MiB limit) to the routes that take large bodies (faces, the manifest) is read and answered (401 without a token), not 413", async () => {
    const big = JSON.stringify({ face: "x".repeat(14 * MB), faceConsentAt: "2030-01-07T09:00:00+07:00" })
    for (const [method, path] of [["PUT", "/partner/members/ext-1/credentials"], ["PUT", "/admin/v1/manifest"]] as const) {
      const res = await fetch(`${server.url}${path}`, { method, headers: { "content-type": "application/json" }, body: big })
      expect(res.status, path).toBe(401)
    }
  })

  it("every other route takes at most 1 MiB: a 2 MiB body to the token endpoint, which anyone may call, is 413 SV001", async () => {
    const res = await fetch(`${server.url}/auth/accessToken`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ grant_type: "app_credentials", app_id: "a", app_secret: "x".repeat(2 * MB) }) })
    expect(res.status).toBe(413)
    expect(await res.json()).toMatchObject({ code: "SV001", success: false })
    const small = await fetch(`${server.url}/auth/accessToken`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ grant_type: "app_credentials", app_id: "a", app_secret: "x".repeat(MB - 100) }) })
    expect(small.status).toBe(401)
  })

  it("a body nested deeper than 64 levels is 400 SV001, refused before it is parsed", async () => {
    const body = '{"grant_type":"app_credentials","x":' + "[".repeat(500_000) + "]".repeat(500_000) + "}"
    const res = await fetch(`${server.url}/auth/accessToken`, { method: "POST", headers: { "content-type": "application/json" }, body })
    expect(res.status).toBe(400)
    expect(await res.json()).toMatchObject({ code: "SV001", message: ["body: JSON nested deeper than 64 levels"] })
  })
})
