import { serve } from "@hono/node-server"
import type { IncomingMessage, Server, ServerResponse } from "node:http"
import { Server as NetServer, type Socket } from "node:net"
import { failureBody } from "../../adapters/http/envelope.ts"
import { unmetExpectationBody } from "../../adapters/http/request-target.ts"
import type { Booted } from "../../adapters/wiring/boot.ts"
import { whenArrivalsQuiet } from "../../adapters/wiring/arrivals-quiet.ts"

/**
 * How long an idle keep-alive connection stays open, announced as `Keep-Alive: timeout=65`.
 * Longer than the 60 s idle timeout of common proxies and load balancers and than the idle
 * timeouts of common clients, so the client (which knows when it will reuse) gives up an idle
 * connection first; a server closing one just as the client reuses it is a reset (issue 17).
 */
export const KEEP_ALIVE_TIMEOUT_MS = 65_000

/** How long a connection the server gives up on still reads (and drops) what the client sends. */
const LINGER_MS = 2_000

/**
 * Answers on a socket the HTTP parser gave up on (or never got), then closes it. The close is
 * lingering: the server stops writing but goes on reading until the client closes or LINGER_MS
 * passes. Closing with unread request bytes sends a reset, and a client still sending its
 * request (a 200 kB URL) then loses the answer with it; Node's default does exactly that.
 * Without an envelope the answer has no body: the request it answers may be a HEAD.
 */
const answerAndClose = (socket: Socket, status: string, envelope?: object) => {
  const body = envelope === undefined ? "" : JSON.stringify(envelope)
  socket.on("error", () => {})
  if (socket.writable)
    socket.end(
      `HTTP/1.1 ${status}\r\n${body ? "Content-Type: application/json\r\n" : ""}Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    )
  setTimeout(() => socket.destroy(), LINGER_MS).unref()
}

type ResponseSocket = Socket & { _httpMessage?: (NodeJS.EventEmitter & { headersSent?: boolean; req?: IncomingMessage }) | null }

/**
 * Runs `then` once the responses already under way on `socket` are written: HTTP/1.1 answers
 * pipelined requests in order, so an answer to a later malformed request must not overtake (or
 * cut off) the answer to a valid one before it. Node assigns the next queued response after a
 * `finish`, hence the re-check on the next turn.
 */
const afterResponses = (socket: ResponseSocket, then: () => void): void => {
  const current = socket._httpMessage
  if (current == null) return then()
  current.once("finish", () => setImmediate(() => afterResponses(socket, then)))
}

const CLIENT_ERRORS: Record<string, string> = {
  HPE_HEADER_OVERFLOW: "431 Request Header Fields Too Large",
  ERR_HTTP_REQUEST_TIMEOUT: "408 Request Timeout",
  ERR_HTTP_HEADERS_TIMEOUT: "408 Request Timeout",
}

/**
 * Per server: whether it is stopping, its open connections (tracked per connection), and those
 * that have carried a request (a connection that has not may be one whose request is on its way).
 */
const stateOf = new WeakMap<Server, { stopping: boolean; readonly sockets: Set<ResponseSocket>; readonly served: WeakSet<Socket> }>()

/**
 * Closes the connections that carried requests and have none under way now. Node's own
 * `closeIdleConnections` (also run by `server.close`) closes a connection accepted a moment ago
 * too, before its request is read: at a SIGTERM under a burst of new connections those were
 * reset unanswered, which their clients cannot tell from a request cut mid-way. A connection
 * that never sends a request is cut when the grace period ends.
 */
const closeSpentConnections = (
  state: { readonly sockets: Set<ResponseSocket>; readonly served: WeakSet<Socket> },
  listenerClosed: boolean,
) => {
  for (const socket of state.sockets)
    if (state.served.has(socket) ? socket._httpMessage == null : listenerClosed && socket.bytesRead === 0) socket.destroySoon()
}
/** How often a stopping server closes the connections that have become idle. */
const DRAIN_SWEEP_MS = 50

/**
 * Stops accepting and resolves once every connection is closed: idle ones at once; a busy one's
 * answer goes out with `Connection: close` (or, already under way, the connection ends after it),
 * and so does the answer to a request arriving on a kept-alive connection meanwhile; a sweep
 * closes what has become idle. Node's own close left a keep-alive connection open after its
 * answer, so a stop waited out the whole grace period for a request finished in a second.
 * Connections are tracked per connection, not per request: nothing is added to a request.
 */
export const drain = (server: Server): Promise<void> => {
  const state = stateOf.get(server)
  if (state !== undefined) state.stopping = true
  // The listener closes once no connection has come for a moment (whenArrivalsQuiet): the
  // connections the kernel had already accepted (the listen backlog) are taken and answered
  // (Connection: close) instead of reset when it closes (an operator review: 1-3 of 160
  // concurrent creates at a SIGTERM, and most of a burst's backlog under load). net.Server's
  // close: http.Server's first closes every connection without a request under way, a
  // connection accepted a moment ago too.
  let listenerClosedAt: number | undefined
  const closed = whenArrivalsQuiet((arrived) => {
    server.on("connection", arrived)
    return () => server.off("connection", arrived)
  }).then(
    () =>
      new Promise<void>((resolve) => {
        listenerClosedAt = Date.now()
        NetServer.prototype.close.call(server, () => resolve())
      }),
  )
  for (const socket of state?.sockets ?? []) {
    const res = socket._httpMessage as (ServerResponse & { headersSent: boolean }) | null | undefined
    if (res == null) continue
    if (!res.headersSent) res.shouldKeepAlive = false
    else res.once("finish", () => socket.end())
  }
  if (state === undefined) return closed
  // A connection that has sent nothing by then (a browser's preconnect, a TCP probe) is not
  // waited for: it goes a sweep after the listener has closed, not at the grace period's end.
  const sweepSpent = () => closeSpentConnections(state, listenerClosedAt !== undefined && Date.now() - listenerClosedAt >= DRAIN_SWEEP_MS)
  sweepSpent()
  const sweep = setInterval(sweepSpent, DRAIN_SWEEP_MS)
  return closed.finally(() => clearInterval(sweep))
}

/** The Node HTTP server for the app, with its limits: every Node entry point uses this one. */
export const listen = (booted: Booted, port: number, onListen?: (port: number) => void): Server => {
  const { requestTimeoutMs, maxConnections } = booted.services.config
  const server = serve({ fetch: booted.app.fetch, port }, (info) => onListen?.(info.port)) as Server
  // Deliberate limits: slow clients cannot hold sockets or half-sent requests forever.
  server.headersTimeout = 15_000
  server.requestTimeout = requestTimeoutMs
  server.keepAliveTimeout = KEEP_ALIVE_TIMEOUT_MS
  server.maxConnections = maxConnections
  const state = { stopping: false, sockets: new Set<ResponseSocket>(), served: new WeakSet<Socket>() }
  stateOf.set(server, state)
  server.on("connection", (socket: ResponseSocket) => {
    state.sockets.add(socket)
    socket.once("close", () => state.sockets.delete(socket))
  })
  // HTTP/1.0 makes Host optional (health checkers send `GET /healthz HTTP/1.0` bare), and the
  // adapter refuses a request without one; the app's own addresses never come from it
  // (KEYSPACE_PUBLIC_URL). HTTP/1.1 without Host is still 400, by Node, as RFC 9112 says.
  server.prependListener("request", (req: IncomingMessage, res: ServerResponse) => {
    if (req.headers.host === undefined && req.httpVersion === "1.0") req.headers.host = "localhost"
    state.served.add(req.socket)
    // Stopping: this answer is the connection's last (the client does not reuse it).
    if (state.stopping) res.shouldKeepAlive = false
  })
  // A request the parser refuses (too long, malformed, too slow) is answered like Node's own
  // default (no body: the method is unknown), but with a lingering close.
  const answered = new WeakSet<Socket>()
  server.on("clientError", (err: NodeJS.ErrnoException, socket: Socket) => {
    if (answered.has(socket)) return
    answered.add(socket)
    if (err.code === "ECONNRESET" || !socket.writable) return void socket.destroy()
    const status = CLIENT_ERRORS[err.code ?? ""] ?? "400 Bad Request"
    // The parser gave up inside a request's body (a bad chunk size): that request's handler
    // waits for a body that will never end, so its answer (and every one after it) would wait
    // until the client left. Answered here instead, before the app wrote anything.
    const res = (socket as ResponseSocket)._httpMessage
    const req = res?.req
    if (req != null && !req.complete && res != null && res.headersSent === false) {
      // The lingering close ends the connection; Node then aborts the request, which releases
      // its handler (destroying the request here would reset the socket and could lose the 400).
      return void answerAndClose(socket, status)
    }
    afterResponses(socket, () => answerAndClose(socket, status))
  })
  // An Expect other than 100-continue: the envelope Bun and Deno answer too (request-target.ts),
  // and the connection ends (the body, if any, unread).
  server.on("checkExpectation", (req: IncomingMessage, res: ServerResponse) => {
    const body = unmetExpectationBody(String(req.headers.expect))
    res.writeHead(417, { "content-type": "application/json; charset=UTF-8", "content-length": Buffer.byteLength(body), connection: "close" })
    res.end(body)
  })
  // Node hands CONNECT to this event, not to the app, and without a listener drops the
  // socket unanswered; Bun and Deno pass it to the app, which has no route for it.
  server.on("connect", (req: { method?: string; url?: string }, socket: Socket) =>
    answerAndClose(socket, "404 Not Found", failureBody("SV005", `no route for ${req.method} ${req.url}`)),
  )
  return server
}
