import { Schema } from "effect"

/**
 * Every entity id of the spec is a 24-hex-character MongoDB ObjectId string. The `u` flag lets
 * Effect export the pattern to JSON Schema (patterns without it are left out as approximations),
 * so the OpenAPI document says what the request decoding checks.
 */
export const OBJECT_ID_PATTERN = /^[0-9a-f]{24}$/u

export const ObjectId = Schema.String.check(
  Schema.isPattern(OBJECT_ID_PATTERN, { message: "must be an ObjectId: 24 lowercase hex characters" }),
)

/**
 * ObjectId layout: 4-byte seconds, 5 random bytes, 3-byte counter. The random source is
 * passed in so the core stays free of I/O; adapters hand it crypto.getRandomValues.
 */
export const makeObjectIdFactory = (random: (bytes: Uint8Array) => Uint8Array) => {
  const hex = (n: number, width: number) => n.toString(16).padStart(width, "0")
  // The random part is fixed per factory: its hex is built once, not per id (a create makes ~8).
  const processHex = [...random(new Uint8Array(5))].map((b) => hex(b, 2)).join("")
  let counter = random(new Uint8Array(3)).reduce((acc, b) => (acc << 8) | b, 0)
  return (nowMs: number): string => {
    counter = (counter + 1) & 0xffffff
    const seconds = Math.floor(nowMs / 1000) >>> 0
    return hex(seconds, 8) + processHex + hex(counter, 6)
  }
}
