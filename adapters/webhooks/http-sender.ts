import * as http from "node:http"
import * as https from "node:https"
import { rootCertificates } from "node:tls"
import { isIpLiteral } from "./ssrf-guard.ts"

/**
 * Sends one webhook request over node:http/https (Node, Bun and Deno all provide them). The
 * connection goes to the address the SSRF guard checked, with the URL's host name kept for
 * SNI, certificate verification and the Host header; redirects are never followed.
 */

export interface SendRequest {
  readonly url: URL
  /** The checked IP address to connect to. */
  readonly address: string
  readonly headers: Readonly<Record<string, string>>
  readonly body: string
  readonly timeoutMs: number
}

export type SendResult =
  | { readonly statusCode: number; readonly durationMs: number }
  | { readonly error: string; readonly durationMs: number }

export type Sender = (request: SendRequest) => Promise<SendResult>

export interface SenderOptions {
  /** Extra trusted CA certificates (PEM), added to the default roots: KEYSPACE_WEBHOOK_CA_FILE. */
  readonly extraCa?: string | undefined
  /** Concurrent connections per receiver origin. */
  readonly maxSockets?: number
}

/** Receivers' error bodies are not kept; read at most this much before dropping the socket. */
const MAX_RESPONSE_BYTES = 64 * 1024

const describeError = (e: unknown): string => {
  const err = e as { code?: unknown; message?: unknown }
  const code = typeof err.code === "string" ? err.code : undefined
  switch (code) {
    case "ECONNREFUSED":
      return "connection refused"
    case "ECONNRESET":
      return "connection reset"
    case "EHOSTUNREACH":
    case "ENETUNREACH":
      return "host unreachable"
    default:
      if (code !== undefined)
        return code.startsWith("E") ? `connection error (${code})` : `tls: ${code}`
      return typeof err.message === "string" ? err.message : "request failed"
  }
}

export const makeHttpSender = (options: SenderOptions = {}): Sender => {
  // Node replaces its default roots when `ca` is given: keep them and add the extra one.
  const ca = options.extraCa ? [...rootCertificates, options.extraCa] : undefined
  const agentOptions = {
    keepAlive: true,
    maxSockets: options.maxSockets ?? 4,
    keepAliveMsecs: 1000,
  }
  const httpAgent = new http.Agent(agentOptions)
  const httpsAgent = new https.Agent({ ...agentOptions, ...(ca ? { ca } : {}) })

  return (req) =>
    new Promise<SendResult>((resolve) => {
      const started = performance.now()
      const elapsed = () => Math.round(performance.now() - started)
      let settled = false
      let current: http.ClientRequest | undefined
      const done = (r: SendResult) => {
        if (settled) return
        settled = true
        clearTimeout(timer)
        resolve(r)
      }
      const isHttps = req.url.protocol === "https:"
      const hostname = req.url.hostname.replace(/^\[|\]$/g, "")
      const body = new TextEncoder().encode(req.body)
      const options: https.RequestOptions = {
        host: req.address,
        port: req.url.port === "" ? (isHttps ? 443 : 80) : Number(req.url.port),
        method: "POST",
        path: `${req.url.pathname}${req.url.search}`,
        headers: {
          ...req.headers,
          Host: req.url.host,
          "Content-Length": String(body.byteLength),
        },
        agent: isHttps ? httpsAgent : httpAgent,
        ...(isHttps && !isIpLiteral(hostname) ? { servername: hostname } : {}),
        ...(isHttps && ca ? { ca } : {}),
      }
      const answered = (res: http.IncomingMessage) => {
        let received = 0
        res.on("data", (chunk: Uint8Array) => {
          received += chunk.byteLength
          if (received > MAX_RESPONSE_BYTES) res.destroy()
        })
        const finish = () => done({ statusCode: res.statusCode ?? 0, durationMs: elapsed() })
        res.on("end", finish)
        res.on("close", finish)
        res.on("error", finish)
      }
      const timer = setTimeout(() => {
        done({ error: `timeout after ${req.timeoutMs} ms`, durationMs: elapsed() })
        current?.destroy(new Error("timeout"))
      }, req.timeoutMs)
      const send = (retried: boolean): void => {
        const request = (isHttps ? https : http).request(options, answered)
        current = request
        request.on("error", (e) => {
          // A kept-alive socket the receiver closed as this request went out (its idle timeout):
          // sent again once (the agent has dropped that socket), as Node's documentation advises,
          // rather than spend one of the delivery's attempts on a reset the receiver never answered.
          if (!retried && !settled && request.reusedSocket && (e as { code?: string }).code === "ECONNRESET") return send(true)
          done({ error: describeError(e), durationMs: elapsed() })
        })
        request.end(body)
      }
      send(false)
    })
}
