import { hmacSha256 } from "./signer.ts"

/**
 * The `jwt` receiver-authentication scheme (spec "Receiver-side authentication"): an HS256 JWT
 * signed with the webhook's shared secret, sent as `Authorization: Bearer <JWT>` next to the
 * always-present signature. Web APIs only (crypto.subtle, btoa), like signer.ts.
 */

/** Spec: time-to-live about 60 s. */
export const RECEIVER_JWT_TTL_SECONDS = 60

export const RECEIVER_JWT_ISSUER = "service"

export interface ReceiverJwtClaims {
  readonly iss: typeof RECEIVER_JWT_ISSUER
  /** The project the delivery belongs to. */
  readonly aud: string
  /** The delivery id (X-Service-Delivery), so a token cannot be replayed for another one. */
  readonly jti: string
  /** Seconds since the epoch, as JWT NumericDate. */
  readonly iat: number
  readonly exp: number
}

const encoder = new TextEncoder()

/** base64url without padding (RFC 7515 section 2). */
export const base64UrlEncode = (bytes: Uint8Array): string => {
  let binary = ""
  for (const b of bytes) binary += String.fromCharCode(b)
  return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "")
}

const encodeJson = (value: unknown): string =>
  base64UrlEncode(encoder.encode(JSON.stringify(value)))

export const receiverJwtClaims = (input: {
  readonly projectId: string
  readonly deliveryId: string
  readonly nowMs: number
}): ReceiverJwtClaims => {
  const iat = Math.floor(input.nowMs / 1000)
  return {
    iss: RECEIVER_JWT_ISSUER,
    aud: input.projectId,
    jti: input.deliveryId,
    iat,
    exp: iat + RECEIVER_JWT_TTL_SECONDS,
  }
}

/** The token for one delivery attempt; minted per attempt since it lives only 60 s. */
export const signReceiverJwt = async (
  secret: string,
  input: { readonly projectId: string; readonly deliveryId: string; readonly nowMs: number },
): Promise<string> => {
  const header = encodeJson({ alg: "HS256", typ: "JWT" })
  const signingInput = `${header}.${encodeJson(receiverJwtClaims(input))}`
  const signature = await hmacSha256(secret, encoder.encode(signingInput))
  return `${signingInput}.${base64UrlEncode(signature)}`
}
