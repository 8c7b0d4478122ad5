import fc from "fast-check"
import { SMALL_BODY_BYTES } from "../../adapters/http/app.ts"
import http from "node:http"
import type { Socket } from "node:net"
import { APPS, setUpFuzzWorld } from "./fuzz-world.ts"
import * as A from "./request-arbitraries.ts"

/**
 * Mixed HTTP traffic as partners and black-box fuzzers send it, replayed over a small pool of
 * keep-alive sockets (issue 17): valid-looking requests from the request arbitraries, their
 * mutations, and what only shows on the wire (bodies on GET, bodies over the limit, chunked
 * bodies, wrong content types, NUL and `../` in paths, duplicate query keys, odd methods).
 * The one property: every request gets a complete HTTP answer. A connection the server
 * closes without saying so shows up as a request without one (ECONNRESET, EPIPE).
 */

export interface WireRequest {
  /** What kind of request this is, for the report. */
  readonly what: string
  readonly method: string
  readonly path: string
  readonly headers: Readonly<Record<string, string>>
  /** A text body, or `filler` bytes built at send time (bodies over the limit). */
  readonly body?: string | { readonly filler: number }
  /** Sent without Content-Length (Transfer-Encoding: chunked). */
  readonly chunked?: boolean
}

export interface WireWorld {
  readonly rooms: readonly string[]
  readonly desks: readonly string[]
  readonly projects: readonly string[]
  readonly tokens: readonly string[]
}

type Call = (method: string, path: string, options?: { body?: unknown; token?: string }) => Promise<{ status: number; body: any }>

/** A JSON call over fetch (its own connections), for setting the world up. */
export const fetchCall =
  (url: string): Call =>
  async (method, path, options = {}) => {
    const headers: Record<string, string> = {}
    if (options.token) headers.authorization = `Bearer ${options.token}`
    if (options.body !== undefined) headers["content-type"] = "application/json"
    const res = await fetch(url + path, { method, headers, body: options.body === undefined ? undefined : JSON.stringify(options.body) })
    const text = await res.text()
    let body: unknown = text
    try {
      body = text === "" ? undefined : JSON.parse(text)
    } catch {}
    return { status: res.status, body }
  }

/** The fuzz tenancy (test/fuzz/fuzz-world.ts) applied on the server at `url`. */
export const setUpWireWorld = async (url: string, adminToken: string): Promise<WireWorld> => {
  const w = await setUpFuzzWorld(fetchCall(url), adminToken)
  return {
    rooms: Object.values(w.hq.rooms) as string[],
    desks: Object.values(w.hq.desks) as string[],
    projects: [w.hq.id, w.far.id],
    tokens: [...Object.values(w.tokens), adminToken],
  }
}

const HOSTILE_PATHS = [
  "/meetings/%00", "/desks/%00", "/desks/../../etc/passwd", "/meetings/..%2f..%2fadmin", "/%2e%2e/admin/v1/manifest",
  "//meetings", "/meetings/", "/desks/%E2%82", `/desks/${encodeURIComponent("💥")}`, `/meetings/${"x".repeat(3000)}`,
  "/meetings?%", "/desks?offset=%zz", "/admin/v1/../../desks", "/nowhere", "/pay/%00", "/healthz/..", "/.env",
]
const ODD_CONTENT_TYPES = [
  "text/plain", "application/xml", "multipart/form-data", "multipart/form-data; boundary=x", "application/json; charset=utf-16",
  'application/json; charset="', "application/x-www-form-urlencoded", ";;;", "application/json".repeat(200), "*/*",
]
const DUPLICATE_QUERIES = ["offset=1e3&offset=-1", "limit=1&limit=x&limit=3000", "projectId=a&projectId=b", "statuses=active&statuses[]=x&statuses=", "offset=1e308", "limit=99999999999999999999"]
const BAD_AUTH = ["Bearer", "Bearer x", `Bearer ${"a".repeat(5000)}`, "Basic YTpi", "bearer  ", "Bearer \u00ff"]

/** Valid-looking requests on the spec routes, mutated like the in-process fuzz mutates them. */
const apiRequest = (w: WireWorld, base: number): fc.Arbitrary<WireRequest> => {
  const token = fc.constantFrom(...w.tokens)
  const id = fc.oneof({ weight: 3, arbitrary: A.objectId }, { weight: 1, arbitrary: fc.constantFrom("%00", "..", "0123456789ABCDEF01234567") })
  const withBody = (what: string, method: string, path: fc.Arbitrary<string>, value: fc.Arbitrary<Record<string, unknown>>) =>
    fc.record({ path, value, m: A.mutation, enc: A.encoding, token }).map(({ path, value, m, enc, token }): WireRequest => {
      const { body, contentType } = A.encode(A.applyMutation(value, m), enc)
      return {
        what: `${what} (${m.kind}, ${enc})`,
        method,
        path,
        headers: { authorization: `Bearer ${token}`, ...(contentType ? { "content-type": contentType } : {}) },
        ...(body === undefined ? {} : { body }),
      }
    })
  const withQuery = (what: string, path: fc.Arbitrary<string>, value: fc.Arbitrary<Record<string, unknown>>) =>
    fc.record({ path, value, m: A.mutation, token }).map(({ path, value, m, token }): WireRequest => ({
      what: `${what} (${m.kind})`,
      method: "GET",
      path: `${path}?${A.toQuery(A.applyMutation(value, m))}`,
      headers: { authorization: `Bearer ${token}` },
    }))
  return fc.oneof(
    { weight: 4, arbitrary: withBody("create", "POST", fc.constant("/meetings"), A.createMeetingBody(w.rooms, w.desks, base)) },
    { weight: 2, arbitrary: withBody("update", "PATCH", id.map((x) => `/meetings/${x}`), A.updateMeetingBody(base)) },
    { weight: 2, arbitrary: withBody("action", "POST", fc.tuple(id, fc.constantFrom("cancel", "check-in", "check-out")).map(([x, a]) => `/meetings/${x}/${a}`), A.meetingActionBody) },
    { weight: 2, arbitrary: withBody("token", "POST", fc.constant("/auth/accessToken"), A.tokenRequestBody(APPS.app)) },
    { weight: 1, arbitrary: withBody("member", "PUT", A.externalUserId.map((x) => `/partner/members/${encodeURIComponent(x)}`), A.memberUpsertBody) },
    { weight: 3, arbitrary: withQuery("desks", fc.constant("/desks"), A.listDesksQuery(w.projects, base)) },
    { weight: 2, arbitrary: withQuery("rooms", fc.constant("/meeting-rooms"), A.listRoomsQuery(w.projects, base)) },
    { weight: 2, arbitrary: withQuery("meetings", fc.constant("/meetings"), A.listMeetingsQuery(w.projects, base)) },
    { weight: 2, arbitrary: withQuery("desk", fc.oneof(fc.constantFrom(...w.desks), A.objectId).map((x) => `/desks/${x}`), fc.constant({})) },
    { weight: 1, arbitrary: withQuery("room", fc.oneof(fc.constantFrom(...w.rooms), A.objectId).map((x) => `/meeting-rooms/${x}`), fc.constant({})) },
    { weight: 1, arbitrary: withQuery("meeting", id.map((x) => `/meetings/${x}`), fc.constant({})) },
    { weight: 1, arbitrary: fc.constant<WireRequest>({ what: "health", method: "GET", path: "/healthz", headers: {} }) },
  )
}

/** What only shows on the wire, applied on top of an API request. */
type Oddity = (r: WireRequest, maxBodyBytes: number) => WireRequest
const ODDITIES: Record<string, fc.Arbitrary<Oddity>> = {
  "body on GET": fc.constantFrom("GET", "DELETE", "OPTIONS", "HEAD").map((method) => (r) => ({
    ...r, method, body: typeof r.body === "string" ? r.body : '{"a":1}', headers: { ...r.headers, "content-type": "application/json" },
  })),
  // Over the limit of most routes (SMALL_BODY_BYTES; the credentials and manifest routes take
  // KEYSPACE_MAX_BODY_BYTES): within twice the limit, so the server reads it to its end.
  "body over the limit": fc.tuple(fc.integer({ min: 1, max: 4096 }), fc.boolean()).map(([over, chunked]) => (r, max) => ({
    ...r, method: r.method === "GET" ? "POST" : r.method, body: { filler: Math.min(SMALL_BODY_BYTES, max) + over }, chunked,
  })),
  "large body": fc.integer({ min: 20_000, max: 200_000 }).map((size) => (r) => ({ ...r, body: JSON.stringify({ title: "x".repeat(size) }) })),
  chunked: fc.constant((r) => ({ ...r, chunked: true })),
  "wrong content type": fc.constantFrom(...ODD_CONTENT_TYPES).map((type) => (r) => ({ ...r, headers: { ...r.headers, "content-type": type } })),
  "odd path": fc.constantFrom(...HOSTILE_PATHS).map((path) => (r) => ({ ...r, path })),
  "duplicate query keys": fc.constantFrom(...DUPLICATE_QUERIES).map((q) => (r) => ({ ...r, path: `${r.path}${r.path.includes("?") ? "&" : "?"}${q}` })),
  "odd method": fc.constantFrom("PROPFIND", "TRACE", "PATCH", "PUT", "DELETE", "HEAD", "OPTIONS").map((method) => (r) => ({ ...r, method })),
  "bad authorization": fc.constantFrom(...BAD_AUTH).map((authorization) => (r) => ({ ...r, headers: { ...r.headers, authorization } })),
  "no authorization": fc.constant((r) => {
    const { authorization: _, ...headers } = r.headers
    return { ...r, headers }
  }),
}

/** One request of mixed traffic: about a third as generated, the rest with one or two oddities. */
export const wireRequest = (w: WireWorld, options: { maxBodyBytes: number; base: number }): fc.Arbitrary<WireRequest> =>
  fc
    .tuple(
      apiRequest(w, options.base),
      fc.oneof(
        { weight: 1, arbitrary: fc.constant([] as Array<[string, Oddity]>) },
        { weight: 2, arbitrary: fc.array(fc.oneof(...Object.entries(ODDITIES).map(([name, odd]) => odd.map((f): [string, Oddity] => [name, f]))), { minLength: 1, maxLength: 2 }) },
      ),
    )
    .map(([r, odds]) =>
      odds.reduce((acc, [name, odd]) => {
        const next = odd(acc, options.maxBodyBytes)
        return { ...next, what: `${acc.what}, ${name}` }
      }, r),
    )

/**
 * `count` requests of mixed traffic, the same for the same seed. `overLimit` caps the bodies
 * over the limit (a server's default limit is 15 MiB); the ones past it are sent at 100 kB.
 */
export const wireTraffic = (
  w: WireWorld,
  options: { maxBodyBytes: number; base: number; seed: number; count: number; overLimit?: number },
): WireRequest[] => {
  let overLimit = options.overLimit ?? Infinity
  return fc.sample(wireRequest(w, options), { seed: options.seed, numRuns: options.count }).map((r) =>
    typeof r.body === "object" && overLimit-- <= 0 ? { ...r, body: { filler: 100_000 } } : r,
  )
}

export interface Unanswered {
  readonly request: string
  readonly error: string
  /** Whether the request went out on a kept-alive socket, and what that socket carried before. */
  readonly reusedSocket: boolean
  readonly previous?: string
}

export interface ReplayReport {
  readonly sent: number
  readonly answered: number
  readonly statuses: Record<number, number>
  readonly unanswered: readonly Unanswered[]
  /** Requests answered 5xx: bad input never crashes anything. */
  readonly serverErrors: ReadonlyArray<{ readonly request: string; readonly status: number; readonly body: string }>
  readonly announcedClose: number
}

const label = (r: WireRequest) =>
  `${r.method} ${r.path.slice(0, 120)} [${r.what}]${r.body === undefined ? "" : typeof r.body === "string" ? ` body ${r.body.length} chars` : ` body ${r.body.filler} bytes`}${r.chunked ? " chunked" : ""}`

/**
 * Sends every request through one keep-alive agent with `sockets` sockets, `inFlight` at a
 * time, and counts complete answers (status line, headers and the whole body).
 */
export const replay = async (
  url: string,
  requests: readonly WireRequest[],
  options: { sockets?: number; inFlight?: number } = {},
): Promise<ReplayReport> => {
  const sockets = options.sockets ?? 8
  const agent = new http.Agent({ keepAlive: true, maxSockets: sockets })
  const target = new URL(url)
  const lastOnSocket = new WeakMap<Socket, string>()
  const guarded = new WeakSet<Socket>()
  const statuses: Record<number, number> = {}
  const unanswered: Unanswered[] = []
  const serverErrors: Array<{ request: string; status: number; body: string }> = []
  let answered = 0
  let announcedClose = 0

  const send = (r: WireRequest) =>
    new Promise<void>((resolve) => {
      const what = label(r)
      const body = r.body === undefined ? undefined : typeof r.body === "string" ? Buffer.from(r.body) : Buffer.alloc(r.body.filler, 0x78)
      const headers: Record<string, string> = { ...r.headers }
      // Framing stated explicitly: Node's client sends an unframed body on GET, HEAD or DELETE otherwise.
      if (body !== undefined) r.chunked ? (headers["transfer-encoding"] = "chunked") : (headers["content-length"] = String(body.length))
      let socket: Socket | undefined
      let settled = false
      const fail = (error: string, req: http.ClientRequest) => {
        if (settled) return
        settled = true
        unanswered.push({ request: what, error, reusedSocket: req.reusedSocket, ...(socket && lastOnSocket.has(socket) ? { previous: lastOnSocket.get(socket) } : {}) })
        resolve()
      }
      const req = http.request({ host: target.hostname, port: target.port, method: r.method, path: r.path, headers, agent }, (res) => {
        const chunks: Buffer[] = []
        res.on("data", (c: Buffer) => chunks.push(c))
        res.on("error", (e: NodeJS.ErrnoException) => fail(`response broke off: ${e.code ?? e.message}`, req))
        res.on("end", () => {
          if (settled) return
          if (!res.complete) return fail("response incomplete", req)
          settled = true
          answered++
          statuses[res.statusCode!] = (statuses[res.statusCode!] ?? 0) + 1
          if (/close/i.test(res.headers.connection ?? "")) announcedClose++
          if (res.statusCode! >= 500) serverErrors.push({ request: what, status: res.statusCode!, body: Buffer.concat(chunks).toString().slice(0, 300) })
          if (socket) lastOnSocket.set(socket, what)
          resolve()
        })
      })
      req.on("socket", (s: Socket) => {
        socket = s
        // A write error on a socket the server closed arrives here, not on the request.
        if (!guarded.has(s)) s.on("error", () => {})
        guarded.add(s)
      })
      req.on("error", (e: NodeJS.ErrnoException) => fail(e.code ?? e.message, req))
      req.end(body)
    })

  let next = 0
  const worker = async () => {
    while (next < requests.length) await send(requests[next++]!)
  }
  await Promise.all(Array.from({ length: options.inFlight ?? sockets * 2 }, worker))
  agent.destroy()
  return { sent: requests.length, answered, statuses, unanswered, serverErrors, announcedClose }
}
