import { connect } from "node:net"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { RUNTIMES, spawnServer, type Spawned } from "./server-runtime.ts"

/**
 * The HTTP edge as each runtime's own parser hands requests over (found by the runtime-parity
 * probe): a request is routed by its target, never by its Host header; a request without Host
 * is routed like any other; a body the parser gives up on is answered at once, not when the
 * client leaves.
 */
const ADMIN = "edge-admin-token-0123456789"

/** Sends raw bytes; resolves with what came back when the server closes or `waitMs` passes. */
const raw = (port: number, bytes: string, waitMs = 8_000) =>
  new Promise<{ text: string; closedAfterMs: number | undefined }>((resolve) => {
    const started = Date.now()
    let text = ""
    const socket = connect(port, "127.0.0.1", () => socket.write(bytes))
    socket.on("data", (d) => (text += d.toString("latin1")))
    socket.on("end", () => {
      resolve({ text, closedAfterMs: Date.now() - started })
      socket.destroy()
    })
    socket.on("error", () => resolve({ text, closedAfterMs: Date.now() - started }))
    setTimeout(() => {
      resolve({ text, closedAfterMs: undefined })
      socket.destroy()
    }, waitMs).unref()
  })

const statusOf = (text: string) => /^HTTP\/1\.[01] (\d{3})/.exec(text)?.[1]

describe.each(RUNTIMES)("the HTTP edge on %s", (runtime) => {
  let server: Spawned
  let port = 0
  beforeAll(async () => {
    server = spawnServer(runtime, { KEYSPACE_DATA_DIR: "memory", KEYSPACE_ADMIN_TOKEN: ADMIN, KEYSPACE_CLOCK: "manual" })
    port = await server.listening(90_000)
  }, 120_000)
  afterAll(async () => server?.stop())

  it("a Host header that is not host[:port] is 400 and never reaches another route", async () => {
    for (const host of ["x/admin/v1/clock?", "x/admin/v1/clock#", "u@x", "x:abc"]) {
      const { text } = await raw(port, `GET /healthz HTTP/1.1\r\nHost: ${host}\r\nAuthorization: Bearer ${ADMIN}\r\nConnection: close\r\n\r\n`)
      expect(statusOf(text), `${runtime} Host: ${host}\n${text}`).toBe("400")
      expect(text).not.toContain('"mode"')
    }
  })

  it("an Expect other than 100-continue is 417 with the error envelope, on every runtime", async () => {
    const body = "{}"
    const { text } = await raw(
      port,
      `POST /meetings HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nExpect: bogus\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`,
    )
    expect(statusOf(text), `${runtime}\n${text}`).toBe("417")
    expect(text).toContain('"code":"SV001"')
    expect(text).toContain('Expect: \\"bogus\\" cannot be met')
  })

  it("without a Host header (HTTP/1.0) a request is routed by its target", async () => {
    const health = await raw(port, "GET /healthz HTTP/1.0\r\n\r\n")
    expect(statusOf(health.text), health.text).toBe("200")
    expect(health.text).toContain('{"status":"ok"}')
    const clock = await raw(port, `GET /admin/v1/clock HTTP/1.0\r\nAuthorization: Bearer ${ADMIN}\r\n\r\n`)
    expect(statusOf(clock.text), clock.text).toBe("200")
    expect(clock.text).toContain('"mode":"manual"')
  })

  it("a bad chunk size followed by more bytes still gets its 400 before the close (a lingering close, not a reset)", async () => {
    if (runtime === "deno") return // closes without an answer (its parser's own behaviour)
    const { text } = await raw(
      port,
      "POST /auth/accessToken HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n" + "a".repeat(100_000),
    )
    expect(statusOf(text), `${runtime}: ${text.slice(0, 200)}`).toBe("400")
  })

  it("a chunked body with a malformed chunk size is answered or closed at once, not left waiting for the client", async () => {
    const { text, closedAfterMs } = await raw(
      port,
      "POST /auth/accessToken HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nabc\r\n0\r\n\r\n",
    )
    expect(closedAfterMs, `${runtime}: ${text}`).toBeDefined()
    // Deno's parser closes without an answer; Node and Bun answer 400 first.
    if (runtime === "deno" && text === "") return
    expect(statusOf(text), `${runtime}: ${text}`).toBe("400")
  })
})
