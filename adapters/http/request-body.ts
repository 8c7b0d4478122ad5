import type { Context, MiddlewareHandler } from "hono"
import { ValidationFailed } from "../../core/shared/errors.ts"

/**
 * Request bodies and keep-alive connections (issue 17).
 *
 * An HTTP/1.1 connection can carry the next request only once the previous request's body
 * has left the wire. Many answers come before the body is read: a 401 from the bearer check,
 * a 404 for an unknown path, a DELETE that ignores its body, a 413. Left unread, that body was
 * the runtime's to clean up: @hono/node-server closed the socket silently 500 ms later (even
 * after answering further requests on it with `Connection: keep-alive`), Bun dropped a body
 * over its own limit unanswered, and a server that closes while the client is still sending
 * makes the client fail its write (EPIPE) before it reads the answer.
 *
 * So every answer first reads what is left of the body and drops it, and the connection
 * stays usable. A body over the limit is read on (and dropped) up to as much again as the
 * limit; one larger still gets its 413 early with `Connection: close`. Never a silent close.
 */

/** Reads the rest of a body and drops it; false when it went past `allowance` bytes or broke off. */
const discard = async (reader: ReadableStreamDefaultReader<Uint8Array>, allowance: number): Promise<boolean> => {
  let seen = 0
  try {
    for (;;) {
      const { done, value } = await reader.read()
      if (done) return true
      seen += value.byteLength
      if (seen > allowance) {
        reader.cancel().catch(() => {})
        return false
      }
    }
  } catch {
    return false
  }
}

/**
 * The client broke off its body (or the server cut the connection while stopping): a 400 that
 * nobody may read, and the connection is done. Not a defect: nothing is wrong in the server.
 */
export const bodyBrokeOff = (c: Context): ValidationFailed => {
  c.header("Connection", "close")
  return new ValidationFailed({ messages: ["body: the request body broke off"] })
}

const closeUnless = (c: Context, drained: boolean) => {
  if (!drained) c.header("Connection", "close")
}

/**
 * Bodies over their route's limit (`limitOf`) are refused (`tooLarge`, a 413) before they are
 * buffered, by their Content-Length or while streaming; the rest of a refused or unread body
 * is read and dropped before the answer goes out.
 */
export const requestBodies =
  (limitOf: (c: Context) => number, tooLarge: (c: Context) => Response): MiddlewareHandler =>
  async (c, next) => {
    const maxBytes = limitOf(c)
    const request = c.req.raw
    const streamed = request.headers.has("transfer-encoding")
    const declared = streamed ? null : request.headers.get("content-length")
    if (declared !== null && Number(declared) > maxBytes) {
      const drained = Number(declared) <= 2 * maxBytes && request.body !== null && (await discard(request.body.getReader(), maxBytes * 2))
      closeUnless(c, drained)
      return tooLarge(c)
    }
    // `declared` first: reading `request.body` turns @hono/node-server's light request into a
    // full one with a web stream, and the JSON read then goes through it instead of its fast path.
    if (declared === null && request.body) {
      // No length declared: count while buffering, up to the limit.
      const reader = request.body.getReader()
      const chunks: Uint8Array[] = []
      let size = 0
      for (;;) {
        const { done, value } = await reader.read().catch(() => {
          throw bodyBrokeOff(c)
        })
        if (done) break
        size += value.byteLength
        if (size > maxBytes) {
          closeUnless(c, await discard(reader, maxBytes))
          return tooLarge(c)
        }
        chunks.push(value)
      }
      const body = new Uint8Array(size)
      chunks.reduce((at, chunk) => (body.set(chunk, at), at + chunk.byteLength), 0)
      c.req.raw = new Request(request, { body })
    }
    await next()
    // Answered without reading the body (or all of it): drop the rest now.
    const answered = c.req.raw
    if (answered.bodyUsed || answered.body === null) return
    if (c.res.headers.get("connection")?.toLowerCase() === "close") return
    closeUnless(c, await discard(answered.body.getReader(), maxBytes))
  }
