import { execFileSync } from "node:child_process"
import { mkdtempSync, readFileSync, rmSync } from "node:fs"
import * as http from "node:http"
import * as https from "node:https"
import type { AddressInfo } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"

/** One request a test receiver got, with the body exactly as received. */
export interface Received {
  readonly method: string
  readonly path: string
  readonly headers: http.IncomingHttpHeaders
  readonly rawBody: string
  readonly body: any
  /** Real time it arrived. */
  readonly receivedAt: number
}

export type Responder = (
  req: Received,
  index: number,
) => { status: number; headers?: Record<string, string>; delayMs?: number } | "hang"

export interface Receiver {
  readonly url: string
  readonly port: number
  readonly received: Received[]
  respond: Responder
  /** Resolves once `n` requests in total have arrived (rejects after `timeoutMs`). */
  readonly waitFor: (n: number, timeoutMs?: number) => Promise<Received[]>
  readonly close: () => Promise<void>
}

const handler = (state: { received: Received[]; respond: Responder; waiters: Array<() => void> }) =>
  (req: http.IncomingMessage, res: http.ServerResponse) => {
    const chunks: Buffer[] = []
    req.on("data", (c: Buffer) => chunks.push(c))
    req.on("end", () => {
      const rawBody = Buffer.concat(chunks).toString("utf8")
      let body: unknown
      try {
        body = JSON.parse(rawBody)
      } catch {
        body = undefined
      }
      const r: Received = {
        method: req.method ?? "",
        path: req.url ?? "",
        headers: req.headers,
        rawBody,
        body,
        receivedAt: Date.now(),
      }
      state.received.push(r)
      for (const w of state.waiters.splice(0)) w()
      const answer = state.respond(r, state.received.length - 1)
      if (answer === "hang") return
      const send = () => {
        res.writeHead(answer.status, answer.headers ?? {})
        res.end("ok")
      }
      if (answer.delayMs === undefined) send()
      else setTimeout(send, answer.delayMs)
    })
  }

const wrap = (server: http.Server, scheme: "http" | "https", host: string, state: { received: Received[]; respond: Responder; waiters: Array<() => void> }): Promise<Receiver> =>
  new Promise((resolve) => {
    server.listen(0, "127.0.0.1", () => {
      const port = (server.address() as AddressInfo).port
      const receiver: Receiver = {
        url: `${scheme}://${host}:${port}/hook`,
        port,
        received: state.received,
        get respond() {
          return state.respond
        },
        set respond(r: Responder) {
          state.respond = r
        },
        waitFor: (n, timeoutMs = 20_000) =>
          new Promise((ok, fail) => {
            const deadline = setTimeout(
              () => fail(new Error(`receiver got ${state.received.length} of ${n} requests`)),
              timeoutMs,
            )
            const check = () => {
              if (state.received.length >= n) {
                clearTimeout(deadline)
                ok(state.received.slice(0, n))
              } else state.waiters.push(check)
            }
            check()
          }),
        close: () =>
          new Promise<void>((done) => {
            server.closeAllConnections()
            server.close(() => done())
          }),
      }
      resolve(receiver)
    })
  })

/** A plain HTTP receiver on 127.0.0.1 (reachable with KEYSPACE_ALLOW_INSECURE_WEBHOOKS=1). */
export const startReceiver = (respond: Responder = () => ({ status: 200 })): Promise<Receiver> => {
  const state = { received: [] as Received[], respond, waiters: [] as Array<() => void> }
  return wrap(http.createServer(handler(state)), "http", "127.0.0.1", state)
}

export interface TestCertificate {
  readonly certFile: string
  readonly cert: string
  readonly key: string
  readonly cleanup: () => void
}

/** A self-signed certificate for localhost and 127.0.0.1, made with openssl for this run. */
export const makeTestCertificate = (): TestCertificate => {
  const dir = mkdtempSync(join(tmpdir(), "ks-webhook-cert-"))
  const certFile = join(dir, "cert.pem")
  const keyFile = join(dir, "key.pem")
  execFileSync(
    "openssl",
    [
      "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-sha256", "-days", "2",
      "-keyout", keyFile, "-out", certFile, "-subj", "/CN=localhost",
      "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1",
      "-addext", "basicConstraints=critical,CA:TRUE",
    ],
    { stdio: "ignore" },
  )
  return {
    certFile,
    cert: readFileSync(certFile, "utf8"),
    key: readFileSync(keyFile, "utf8"),
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
  }
}

/** An HTTPS receiver on 127.0.0.1 serving `cert`; its URL names the host `localhost`. */
export const startHttpsReceiver = (
  cert: TestCertificate,
  respond: Responder = () => ({ status: 200 }),
): Promise<Receiver> => {
  const state = { received: [] as Received[], respond, waiters: [] as Array<() => void> }
  return wrap(https.createServer({ cert: cert.cert, key: cert.key }, handler(state)), "https", "localhost", state)
}
