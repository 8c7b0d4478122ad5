import { failureBody } from "./envelope.ts"

/**
 * Bun and Deno hand the app a Request whose URL they built from the Host header and the
 * request target. A Host that is not a host name (`x/admin/v1/clock?`, `u@x`) then moved the
 * path the router saw (Deno routed `GET /healthz` with such a Host to the operator clock),
 * and a request without Host reached Bun's fetch with a relative URL, which the router cut
 * (`/healthz` became `z`). Node's adapter refuses the first (400) and routes the second by its
 * target; this gives Bun and Deno the same rule: a request is routed by its target, and a Host
 * that is not `host[:port]` is 400.
 */

/** A host name or bracketed IP literal, then an optional port: RFC 9110's `uri-host [ ":" port ]`. */
const HOST_PORT = /^(\[[0-9A-Fa-f:.]+\]|[^\s:/?#@[\]\\]+)(?::(\d{1,5}))?$/

/** Whether `host` is a host name or address with an optional port, and nothing else. */
export const isHostHeader = (host: string): boolean => {
  const m = HOST_PORT.exec(host)
  if (m === null || (m[2] !== undefined && Number(m[2]) > 65_535)) return false
  return URL.canParse(`http://${m[1]}/`)
}

/** A refusal before the app: the error envelope, and the connection ends. */
const refused = (status: number, body: string) =>
  new Response(body, { status, headers: { "Content-Type": "application/json; charset=utf-8", Connection: "close" } })

const BAD_HOST = JSON.stringify(failureBody("SV001", ["Host: must be a host name or address with an optional port"]))

/** A percent-encoded dot, which a URL resolves as a dot segment when it is a whole segment. */
const DOT_ESCAPE = /%2e/i

/** What Node's parser takes for a 100-continue expectation (node:_http_server's continueExpression). */
const CONTINUE = /(?:^|\W)100-continue(?:$|\W)/i

/**
 * The 417 body for an `Expect` other than 100-continue (RFC 9110: a server MAY answer 417), on
 * every runtime: Node's own 417 had no body, Bun and Deno ignored the expectation.
 */
export const unmetExpectationBody = (expect: string): string =>
  JSON.stringify(failureBody("SV001", [`Expect: "${expect.slice(0, 64)}" cannot be met; only 100-continue is`]))

/**
 * The request at another URL. The Fetch standard's Request refuses some methods (TRACE,
 * CONNECT, TRACK: a TypeError, which was a 500); such a request stays as it came, and no route
 * of the app takes those methods.
 */
const readdressed = (request: Request, url: string): Request => {
  try {
    return new Request(url, request)
  } catch {
    return request
  }
}

/**
 * The app's fetch for a runtime that builds request URLs from Host: an invalid Host is 400,
 * an unmet Expect 417, and a request whose URL came without a host (no Host header) is
 * addressed to `localHost`.
 */
export const routedByTarget = <Rest extends unknown[]>(
  fetch: (request: Request, ...rest: Rest) => Response | Promise<Response>,
  localHost: string,
) => {
  let lastGood: string | undefined
  return (request: Request, ...rest: Rest): Response | Promise<Response> => {
    const host = request.headers.get("host")
    // Clients send one Host over and over: the last good one skips the check.
    if (host !== null && host !== "" && host !== lastGood) {
      if (!isHostHeader(host)) return refused(400, BAD_HOST)
      lastGood = host
    }
    const expect = request.headers.get("expect")
    if (expect !== null && !CONTINUE.test(expect)) return refused(417, unmetExpectationBody(expect))
    const url = request.url
    if (url.startsWith("/")) return fetch(readdressed(request, `http://${localHost}${url}`), ...rest)
    // Deno keeps dot segments (`/partner/members/..` reached a member named ".."); Node and Bun
    // resolve them as a URL does. Resolved here the same way, so every runtime routes alike.
    if (url.includes("/.") || DOT_ESCAPE.test(url)) {
      const resolved = new URL(url).href
      if (resolved !== url) return fetch(readdressed(request, resolved), ...rest)
    }
    return fetch(request, ...rest)
  }
}
