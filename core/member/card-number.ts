import { Result, Schema } from "effect"
import type { Brand } from "effect"

/**
 * Access-card numbers. Every format decodes to one value, the card UID: the 4 bytes b0 b1 b2 b3
 * in the order the card sends them, read big-endian as an unsigned 32-bit integer
 * (uid = b0<<24 | b1<<16 | b2<<8 | b3). Card sets are diffed on this value, so one card
 * submitted in two formats is one card.
 *
 * | cardCodeFormat   | aliases   | text                            | relation to UID b0b1b2b3  |
 * |------------------|-----------|---------------------------------|---------------------------|
 * | decimal-reversed | 8H-10D-R  | 1-10 digits, max 4294967295     | decimal of b3b2b1b0       |
 * | decimal          | 8H-10D    | 1-10 digits, max 4294967295     | decimal of b0b1b2b3       |
 * | hex              | 8H        | exactly 8 hex digits            | b0b1b2b3                  |
 * | hex-reversed     | 8H-R      | exactly 8 hex digits            | b3b2b1b0                  |
 * | hex-3byte        | 6H        | exactly 6 hex digits            | b1b2b3, b0 = 0            |
 * | decimal-3byte    | 6H-8D, 8D | 1-8 digits, max 16777215        | decimal of b1b2b3, b0 = 0 |
 * | facility-card    | 3D-5D     | "F-C" or 8 digits "FFFCCCCC",   | F = b1, C = b2b3, b0 = 0  |
 * |                  |           | F 0-255, C 0-65535 (Wiegand 26) |                           |
 *
 * The 3-byte forms carry the low 24 bits of the UID (what a Wiegand-26 reader transmits); they
 * map to a UID whose high byte b0 is 0, so `hex-3byte` "ABCDEF" = `hex` "00ABCDEF". A UID with
 * b0 != 0 has no 3-byte encoding. Input is trimmed; hex is case-insensitive; decimals may carry
 * leading zeros. Canonical output: decimals zero-padded to their full width (10 or 8), hex
 * upper-case, facility-card "FFF-CCCCC". Responses always give cardNo as `decimal-reversed`.
 */
export type CardUid = Brand.Branded<number, "CardUid">

export const CARD_CODE_FORMATS = [
  "decimal-reversed",
  "decimal",
  "hex",
  "hex-reversed",
  "hex-3byte",
  "decimal-3byte",
  "facility-card",
] as const
export type CanonicalCardCodeFormat = (typeof CARD_CODE_FORMATS)[number]

/** Reader-vendor names that partners copy from reader manuals. */
export const CARD_CODE_FORMAT_ALIASES = {
  "8H-10D-R": "decimal-reversed",
  "8H-10D": "decimal",
  "8H": "hex",
  "8H-R": "hex-reversed",
  "6H": "hex-3byte",
  "6H-8D": "decimal-3byte",
  "8D": "decimal-3byte",
  "3D-5D": "facility-card",
} as const satisfies Record<string, CanonicalCardCodeFormat>

/** Every accepted cardCodeFormat value, for request validation. */
export const CardCodeFormat = Schema.Literals([
  ...CARD_CODE_FORMATS,
  ...(Object.keys(CARD_CODE_FORMAT_ALIASES) as Array<keyof typeof CARD_CODE_FORMAT_ALIASES>),
])
export type CardCodeFormat = typeof CardCodeFormat.Type

export const DEFAULT_CARD_CODE_FORMAT: CanonicalCardCodeFormat = "decimal-reversed"

const MAX_UINT32 = 0xffffffff
const MAX_UINT24 = 0xffffff

export const canonicalCardCodeFormat = (format: CardCodeFormat): CanonicalCardCodeFormat =>
  format in CARD_CODE_FORMAT_ALIASES
    ? CARD_CODE_FORMAT_ALIASES[format as keyof typeof CARD_CODE_FORMAT_ALIASES]
    : (format as CanonicalCardCodeFormat)

/** Checks the range, so only a real 32-bit value becomes a CardUid. */
export const cardUid = (n: number): Result.Result<CardUid, string> =>
  Number.isInteger(n) && n >= 0 && n <= MAX_UINT32
    ? Result.succeed(n as CardUid)
    : Result.fail(`card UID ${n} is not an unsigned 32-bit integer`)

export const reverseBytes = (n: number): number =>
  (((n & 0xff) << 24) | (((n >>> 8) & 0xff) << 16) | (((n >>> 16) & 0xff) << 8) | (n >>> 24)) >>> 0

const hexOf = (n: number, width: number) => n.toString(16).toUpperCase().padStart(width, "0")
const decOf = (n: number, width: number) => n.toString(10).padStart(width, "0")

const DECIMAL_10 = /^\d{1,10}$/
const DECIMAL_8 = /^\d{1,8}$/
const HEX_8 = /^[0-9a-fA-F]{8}$/
const HEX_6 = /^[0-9a-fA-F]{6}$/
const FACILITY_SPLIT = /^(\d{1,3})-(\d{1,5})$/
const FACILITY_JOINED = /^(\d{3})(\d{5})$/

const invalid = (cardNo: string, format: CanonicalCardCodeFormat, expected: string) =>
  Result.fail(`cardNo "${cardNo}" is not a valid ${format} card number (${expected})`)

/**
 * Decodes a submitted card number to its UID. The failure is one validation message
 * (400 SV001); the caller prefixes the field path.
 */
export const decodeCardNumber = (
  cardNo: string,
  format: CardCodeFormat = DEFAULT_CARD_CODE_FORMAT,
): Result.Result<CardUid, string> => {
  const f = canonicalCardCodeFormat(format)
  const text = cardNo.trim()
  switch (f) {
    case "decimal-reversed":
    case "decimal": {
      const n = DECIMAL_10.test(text) ? Number(text) : NaN
      if (!(n <= MAX_UINT32)) return invalid(cardNo, f, "1-10 digits, at most 4294967295")
      return Result.succeed((f === "decimal" ? n : reverseBytes(n)) as CardUid)
    }
    case "hex":
    case "hex-reversed": {
      if (!HEX_8.test(text)) return invalid(cardNo, f, "exactly 8 hex digits")
      const n = parseInt(text, 16)
      return Result.succeed((f === "hex" ? n : reverseBytes(n)) as CardUid)
    }
    case "hex-3byte":
      return HEX_6.test(text)
        ? Result.succeed(parseInt(text, 16) as CardUid)
        : invalid(cardNo, f, "exactly 6 hex digits")
    case "decimal-3byte": {
      const n = DECIMAL_8.test(text) ? Number(text) : NaN
      return n <= MAX_UINT24
        ? Result.succeed(n as CardUid)
        : invalid(cardNo, f, "1-8 digits, at most 16777215")
    }
    case "facility-card": {
      const m = FACILITY_SPLIT.exec(text) ?? FACILITY_JOINED.exec(text)
      const facility = m ? Number(m[1]) : NaN
      const card = m ? Number(m[2]) : NaN
      if (!(facility <= 0xff && card <= 0xffff)) {
        return invalid(cardNo, f, "facility 0-255 and card 0-65535 as F-C or 8 digits FFFCCCCC")
      }
      return Result.succeed(((facility << 16) | card) as CardUid)
    }
  }
}

/**
 * Encodes a UID in a format's canonical text. Fails only for a 3-byte format and a UID whose
 * high byte is set, which that format cannot carry.
 */
export const encodeCardNumber = (
  uid: CardUid,
  format: CardCodeFormat = DEFAULT_CARD_CODE_FORMAT,
): Result.Result<string, string> => {
  const f = canonicalCardCodeFormat(format)
  const threeByte = f === "hex-3byte" || f === "decimal-3byte" || f === "facility-card"
  if (threeByte && uid > MAX_UINT24) {
    return Result.fail(`card UID ${hexOf(uid, 8)} does not fit the 3-byte format ${f}`)
  }
  switch (f) {
    case "decimal-reversed":
      return Result.succeed(decOf(reverseBytes(uid), 10))
    case "decimal":
      return Result.succeed(decOf(uid, 10))
    case "hex":
      return Result.succeed(hexOf(uid, 8))
    case "hex-reversed":
      return Result.succeed(hexOf(reverseBytes(uid), 8))
    case "hex-3byte":
      return Result.succeed(hexOf(uid, 6))
    case "decimal-3byte":
      return Result.succeed(decOf(uid, 8))
    case "facility-card":
      return Result.succeed(`${decOf(uid >>> 16, 3)}-${decOf(uid & 0xffff, 5)}`)
  }
}

/** The cardNo of every response: decimal-reversed, 10 digits (always encodable). */
export const toResponseCardNo = (uid: CardUid): string => decOf(reverseBytes(uid), 10)

/** Label used when the request gives none: built from the UID as the card prints it. */
export const defaultCardLabel = (uid: CardUid): string => `Card ${hexOf(uid, 8)}`
