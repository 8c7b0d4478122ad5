import { createHash } from "node:crypto"
import { Effect, Layer } from "effect"
import { Secrets } from "../../core/ports/secrets.ts"
/** Secrets at rest: PBKDF2-SHA256 over Web Crypto, so Node, Bun and Deno share one code path. */
const ITERATIONS = 100_000
const enc = new TextEncoder()

const b64 = (bytes: Uint8Array): string => btoa(String.fromCharCode(...bytes))
const unb64 = (s: string): Uint8Array => Uint8Array.from(atob(s), (ch) => ch.charCodeAt(0))

const derive = async (secret: string, salt: Uint8Array, iterations: number): Promise<Uint8Array> => {
  const key = await crypto.subtle.importKey("raw", enc.encode(secret), "PBKDF2", false, ["deriveBits"])
  const bits = await crypto.subtle.deriveBits(
    { name: "PBKDF2", hash: "SHA-256", salt: salt as BufferSource, iterations },
    key,
    256,
  )
  return new Uint8Array(bits)
}

export const hashSecret = async (secret: string): Promise<string> => {
  const salt = crypto.getRandomValues(new Uint8Array(16))
  return `pbkdf2$${ITERATIONS}$${b64(salt)}$${b64(await derive(secret, salt, ITERATIONS))}`
}

export const verifySecret = async (secret: string, stored: string): Promise<boolean> => {
  const [scheme, iterations, salt, hash] = stored.split("$")
  if (scheme !== "pbkdf2" || !iterations || !salt || !hash) return false
  return constantTimeEqual(await derive(secret, unb64(salt), Number(iterations)), unb64(hash))
}

export const constantTimeEqual = (a: Uint8Array, b: Uint8Array): boolean => {
  let diff = a.length ^ b.length
  for (let i = 0; i < Math.max(a.length, b.length); i++) diff |= (a[i] ?? 0) ^ (b[i] ?? 0)
  return diff === 0
}

/** Opaque bearer tokens are 32 random bytes; only their SHA-256 is stored. */
export const newOpaqueToken = (): string => {
  const bytes = crypto.getRandomValues(new Uint8Array(32))
  return b64(bytes).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "")
}

// node:crypto's one-shot hash (Node, Bun and Deno all have it): every authenticated request
// hashes its token, and WebCrypto's digest is a thread-pool round trip plus a promise.
export const sha256Hex = (value: string): string => createHash("sha256").update(value, "utf8").digest("hex")

/** The Secrets port over these functions (Node, Bun and Deno). */
export const SecretsLive = Layer.succeed(
  Secrets,
  Secrets.of({
    hash: (secret) => Effect.promise(() => hashSecret(secret)),
    verify: (secret, stored) => Effect.promise(() => verifySecret(secret, stored)),
    sha256: sha256Hex,
    opaqueToken: newOpaqueToken,
  }),
)
