/**
 * Receiver kit for integrators: verify a Keyspace webhook delivery before trusting it.
 * Web APIs only (crypto.subtle, TextEncoder/TextDecoder, atob/btoa) and no imports, so this
 * one file can be copied as is into a Node 20, Bun or Deno receiver.
 *
 * Usage (any framework): read the body as raw text or bytes BEFORE parsing JSON, then
 *
 *   const r = await verifyDelivery({ secret, headers: req.headers, rawBody })
 *   if (!r.ok) return new Response(r.reason, { status: 401 })
 *   if (await seen(r.deliveryId)) return new Response(null, { status: 200 }) // redelivery
 *   // handle r.envelope, ordering by r.envelope.occurredAt; answer 2xx within 10 s
 */

export interface DeliveryEnvelope {
  /** Unique per delivery; equals X-Service-Delivery. */
  readonly id: string
  readonly type: string
  readonly version: number
  /** ISO 8601; order events by this, deliveries may arrive out of order. */
  readonly occurredAt: string
  readonly projectId: string
  /** A change signal, not the record; tolerate absent and unknown fields. */
  readonly data: Readonly<Record<string, unknown>>
}

export type DeliveryRejection =
  | "missing-timestamp"
  | "malformed-timestamp"
  | "stale-timestamp"
  | "missing-signature"
  | "bad-signature"
  | "malformed-body"
  | "unsupported-version"
  | "delivery-id-mismatch"
  | "event-type-mismatch"

export type VerifyDeliveryResult =
  | { readonly ok: true; readonly envelope: DeliveryEnvelope; readonly deliveryId: string }
  | { readonly ok: false; readonly reason: DeliveryRejection }

/** A Fetch `Headers`, or a plain record such as Node's `req.headers`. */
export type HeaderSource =
  | { get(name: string): string | null }
  | Readonly<Record<string, string | ReadonlyArray<string> | undefined>>

/** The spec's receiver-side replay guard. */
export const DEFAULT_TOLERANCE_MS = 5 * 60_000

const encoder = new TextEncoder()

const header = (headers: HeaderSource, name: string): string | undefined => {
  if (typeof headers.get === "function") {
    return (headers as { get(name: string): string | null }).get(name) ?? undefined
  }
  const record = headers as Readonly<Record<string, string | ReadonlyArray<string> | undefined>>
  const lower = name.toLowerCase()
  for (const key of Object.keys(record)) {
    if (key.toLowerCase() !== lower) continue
    const value = record[key]
    return typeof value === "string" ? value : value?.[0]
  }
  return undefined
}

const bytesOf = (body: string | Uint8Array | ArrayBuffer): Uint8Array<ArrayBuffer> => {
  if (typeof body === "string") return encoder.encode(body)
  const view = body instanceof Uint8Array ? body : new Uint8Array(body)
  const copy = new Uint8Array(view.byteLength)
  copy.set(view)
  return copy
}

const hmac = async (secret: string, data: Uint8Array<ArrayBuffer>): Promise<Uint8Array> => {
  const key = await crypto.subtle.importKey(
    "raw",
    encoder.encode(secret),
    { name: "HMAC", hash: "SHA-256" },
    false,
    ["sign"],
  )
  return new Uint8Array(await crypto.subtle.sign("HMAC", key, data))
}

const hex = (bytes: Uint8Array): string =>
  Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("")

/** Time depends only on the (public) lengths, never on where the inputs differ. */
const constantTimeEqual = (a: string, b: string): boolean => {
  const x = encoder.encode(a)
  const y = encoder.encode(b)
  if (x.byteLength !== y.byteLength) return false
  let diff = 0
  for (let i = 0; i < x.byteLength; i++) diff |= (x[i] ?? 0) ^ (y[i] ?? 0)
  return diff === 0
}

const isRecord = (u: unknown): u is Record<string, unknown> =>
  typeof u === "object" && u !== null && !Array.isArray(u)

const parseEnvelope = (bytes: Uint8Array): DeliveryEnvelope | undefined => {
  try {
    const u: unknown = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(bytes))
    if (
      isRecord(u) &&
      typeof u["id"] === "string" &&
      typeof u["type"] === "string" &&
      typeof u["version"] === "number" &&
      typeof u["occurredAt"] === "string" &&
      typeof u["projectId"] === "string" &&
      isRecord(u["data"])
    ) {
      return u as unknown as DeliveryEnvelope
    }
    return undefined
  } catch {
    return undefined
  }
}

/**
 * Verifies one delivery: X-Service-Timestamp within `toleranceMs` of the receiver's clock,
 * X-Service-Signature equal (constant-time) to sha256=HMAC-SHA256(secret, `${ts}.${rawBody}`)
 * over the raw body exactly as received, then parses the envelope. The returned deliveryId is
 * the dedupe key: retries of one delivery share it.
 */
export const verifyDelivery = async (input: {
  readonly secret: string
  readonly headers: HeaderSource
  /** The body exactly as received: do not re-serialize parsed JSON. */
  readonly rawBody: string | Uint8Array | ArrayBuffer
  /** Receiver clock, epoch ms; defaults to Date.now(). */
  readonly now?: number
  readonly toleranceMs?: number
}): Promise<VerifyDeliveryResult> => {
  const fail = (reason: DeliveryRejection): VerifyDeliveryResult => ({ ok: false, reason })
  const timestamp = header(input.headers, "X-Service-Timestamp")
  if (timestamp === undefined) return fail("missing-timestamp")
  if (!/^\d{1,16}$/.test(timestamp)) return fail("malformed-timestamp")
  const now = input.now ?? Date.now()
  if (Math.abs(now - Number(timestamp)) > (input.toleranceMs ?? DEFAULT_TOLERANCE_MS)) {
    return fail("stale-timestamp")
  }
  const signature = header(input.headers, "X-Service-Signature")
  if (signature === undefined) return fail("missing-signature")
  const body = bytesOf(input.rawBody)
  const prefix = encoder.encode(`${timestamp}.`)
  const signed = new Uint8Array(prefix.byteLength + body.byteLength)
  signed.set(prefix)
  signed.set(body, prefix.byteLength)
  const expected = `sha256=${hex(await hmac(input.secret, signed))}`
  if (!constantTimeEqual(expected, signature.trim())) return fail("bad-signature")
  // Only now is the body trusted enough to parse.
  const envelope = parseEnvelope(body)
  if (envelope === undefined) return fail("malformed-body")
  if (envelope.version !== 1) return fail("unsupported-version")
  const deliveryHeader = header(input.headers, "X-Service-Delivery")
  if (deliveryHeader !== undefined && deliveryHeader !== envelope.id) {
    return fail("delivery-id-mismatch")
  }
  const eventHeader = header(input.headers, "X-Service-Event")
  if (eventHeader !== undefined && eventHeader !== envelope.type) {
    return fail("event-type-mismatch")
  }
  return { ok: true, envelope, deliveryId: envelope.id }
}

export interface ReceiverJwtClaims {
  readonly iss: string
  readonly aud: string | ReadonlyArray<string>
  readonly jti: string
  readonly iat: number
  readonly exp: number
}

export type JwtRejection =
  | "malformed-token"
  | "unsupported-algorithm"
  | "bad-signature"
  | "wrong-issuer"
  | "wrong-audience"
  | "wrong-delivery"
  | "expired"
  | "not-yet-valid"

export type VerifyJwtResult =
  | { readonly ok: true; readonly claims: ReceiverJwtClaims }
  | { readonly ok: false; readonly reason: JwtRejection }

const base64UrlDecode = (s: string): Uint8Array | undefined => {
  if (!/^[A-Za-z0-9_-]*$/.test(s)) return undefined
  try {
    const b64 = s.replace(/-/g, "+").replace(/_/g, "/")
    const binary = atob(b64 + "=".repeat((4 - (b64.length % 4)) % 4))
    return Uint8Array.from(binary, (c) => c.charCodeAt(0))
  } catch {
    return undefined
  }
}

const decodeJson = (s: string): unknown => {
  const bytes = base64UrlDecode(s)
  if (bytes === undefined) return undefined
  try {
    return JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(bytes))
  } catch {
    return undefined
  }
}

const base64UrlEncode = (bytes: Uint8Array): string => {
  let binary = ""
  for (const b of bytes) binary += String.fromCharCode(b)
  return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "")
}

/**
 * Verifies the `jwt` scheme's bearer token (a leading "Bearer " is ignored): HS256 only (a
 * token naming any other alg, "none" included, is refused), signature by the shared secret,
 * iss "service", aud = your projectId, not expired. Pass `deliveryId` to also bind jti to the
 * X-Service-Delivery header. `leewayMs` (default 30 s) absorbs clock skew on a 60 s token.
 */
export const verifyJwt = async (
  secret: string,
  token: string,
  projectId: string,
  options: { readonly now?: number; readonly leewayMs?: number; readonly deliveryId?: string } = {},
): Promise<VerifyJwtResult> => {
  const fail = (reason: JwtRejection): VerifyJwtResult => ({ ok: false, reason })
  const parts = token.replace(/^Bearer\s+/i, "").split(".")
  if (parts.length !== 3) return fail("malformed-token")
  const [h = "", p = "", s = ""] = parts
  const head = decodeJson(h)
  if (!isRecord(head)) return fail("malformed-token")
  if (head["alg"] !== "HS256") return fail("unsupported-algorithm")
  const expected = base64UrlEncode(await hmac(secret, encoder.encode(`${h}.${p}`)))
  if (!constantTimeEqual(expected, s)) return fail("bad-signature")
  const claims = decodeJson(p)
  if (
    !isRecord(claims) ||
    typeof claims["exp"] !== "number" ||
    typeof claims["iat"] !== "number" ||
    typeof claims["jti"] !== "string"
  ) {
    return fail("malformed-token")
  }
  if (claims["iss"] !== "service") return fail("wrong-issuer")
  const aud = claims["aud"]
  const audOk =
    typeof aud === "string" ? aud === projectId : Array.isArray(aud) && aud.includes(projectId)
  if (!audOk) return fail("wrong-audience")
  if (options.deliveryId !== undefined && claims["jti"] !== options.deliveryId) {
    return fail("wrong-delivery")
  }
  const nowSeconds = (options.now ?? Date.now()) / 1000
  const leewaySeconds = (options.leewayMs ?? 30_000) / 1000
  if (nowSeconds > claims["exp"] + leewaySeconds) return fail("expired")
  if (nowSeconds < claims["iat"] - leewaySeconds) return fail("not-yet-valid")
  return { ok: true, claims: claims as unknown as ReceiverJwtClaims }
}
