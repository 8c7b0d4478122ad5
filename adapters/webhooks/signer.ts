/**
 * Webhook signature (spec "Delivery request"): `sha256=` + lowercase hex of
 * HMAC-SHA256(secret, `${timestamp}.${rawBody}`) over the exact raw body bytes. Web Crypto only
 * (global `crypto.subtle`, TextEncoder), so the same code runs on Node 20, Bun and Deno.
 */

export type RawBody = string | Uint8Array | ArrayBuffer

const encoder = new TextEncoder()

/** Copies into a fresh ArrayBuffer-backed array: what crypto.subtle's BufferSource accepts. */
const ownBytes = (bytes: Uint8Array | ArrayBuffer): Uint8Array<ArrayBuffer> => {
  const view = bytes instanceof Uint8Array ? bytes : new Uint8Array(bytes)
  const copy = new Uint8Array(view.byteLength)
  copy.set(view)
  return copy
}

/** A string body is UTF-8 encoded; bytes are taken as they are (no re-encoding). */
export const bodyBytes = (body: RawBody): Uint8Array<ArrayBuffer> =>
  typeof body === "string" ? encoder.encode(body) : ownBytes(body)

export const hmacSha256 = async (
  secret: string,
  data: Uint8Array<ArrayBuffer>,
): Promise<Uint8Array<ArrayBuffer>> => {
  const key = await crypto.subtle.importKey(
    "raw",
    encoder.encode(secret),
    { name: "HMAC", hash: "SHA-256" },
    false,
    ["sign"],
  )
  return new Uint8Array(await crypto.subtle.sign("HMAC", key, data))
}

export const toHex = (bytes: Uint8Array): string =>
  Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("")

/**
 * Compares in time that depends only on the lengths, not on where the inputs differ. Lengths
 * are public (a signature's length is fixed), so an early exit on them leaks nothing.
 */
export const timingSafeEqual = (a: Uint8Array, b: Uint8Array): boolean => {
  if (a.byteLength !== b.byteLength) return false
  let diff = 0
  for (let i = 0; i < a.byteLength; i++) diff |= (a[i] ?? 0) ^ (b[i] ?? 0)
  return diff === 0
}

/** The signed bytes: `${timestamp}.` followed by the raw body bytes. */
export const signedContent = (
  timestamp: number | string,
  rawBody: RawBody,
): Uint8Array<ArrayBuffer> => {
  const prefix = encoder.encode(`${timestamp}.`)
  const body = bodyBytes(rawBody)
  const out = new Uint8Array(prefix.byteLength + body.byteLength)
  out.set(prefix)
  out.set(body, prefix.byteLength)
  return out
}

/** The X-Service-Signature value for a delivery. */
export const sign = async (
  secret: string,
  timestampMs: number | string,
  rawBody: RawBody,
): Promise<string> =>
  `sha256=${toHex(await hmacSha256(secret, signedContent(timestampMs, rawBody)))}`

/**
 * Whether `signature` is the signature of this timestamp and body. The timestamp is the
 * X-Service-Timestamp text as received, signed verbatim. Only the signature is checked here:
 * freshness of the timestamp is the caller's (see clients/typescript/src/webhooks.ts).
 */
export const verify = async (
  secret: string,
  timestampMs: number | string,
  rawBody: RawBody,
  signature: string,
): Promise<boolean> => {
  const expected = await sign(secret, timestampMs, rawBody)
  return timingSafeEqual(encoder.encode(expected), encoder.encode(signature))
}
