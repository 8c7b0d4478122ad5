import { Result } from "effect"

export type FaceMimeType = "image/jpeg" | "image/png"

export interface FaceImage {
  readonly bytes: Uint8Array
  readonly mimeType: FaceMimeType
}

/** Limits: face image max 10 MB decoded. */
export const MAX_FACE_BYTES = 10 * 1024 * 1024

const JPEG_MAGIC = [0xff, 0xd8, 0xff] as const
const PNG_MAGIC = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a] as const

/** Declared types a data URI may carry; image/jpg is a common misspelling of image/jpeg. */
const DECLARED: Record<string, FaceMimeType> = {
  "image/jpeg": "image/jpeg",
  "image/jpg": "image/jpeg",
  "image/png": "image/png",
}

const DATA_URI_HEADER = /^data:([^;,]*);base64$/i
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/
const WHITESPACE = /\s/g

/**
 * Whitespace (MIME line breaks) is tolerated, so the exact check runs after stripping it. This
 * cap (twice the longest valid encoding) refuses a huge string before even that copy.
 */
const MAX_RAW_CHARS = Math.ceil(MAX_FACE_BYTES / 3) * 4 * 2

/** A JPEG's start of scan and end of image markers. */
const JPEG_SOS = [0xff, 0xda] as const
const JPEG_EOI = [0xff, 0xd9] as const
/** PNG chunk types: the header must come first, the end last. */
const PNG_IHDR = [0x49, 0x48, 0x44, 0x52] as const
const PNG_IEND = [0x49, 0x45, 0x4e, 0x44] as const
const PNG_IDAT = [0x49, 0x44, 0x41, 0x54] as const

/** Whether `bytes` hold `expected` at `offset` (the magic bytes at 0, a marker or chunk type). */
const at = (bytes: Uint8Array, offset: number, expected: ReadonlyArray<number>) =>
  offset >= 0 && offset + expected.length <= bytes.length && expected.every((b, i) => bytes[offset + i] === b)

/**
 * Beyond the magic bytes (spec: "type verified by magic bytes"), the frame of a whole image, so
 * a header alone, a cut upload or a frame with no picture is refused (rule 4, "an invalid
 * image") before it is stored and earns the member's one auto-generated card. A JPEG: its
 * segments up to the start of scan hold a frame header (SOFn) of a non-empty size, and an end of
 * image marker follows the scan. A PNG: the first chunk is an IHDR of a non-empty size whose CRC
 * holds, and image data (IDAT) comes before the IEND chunk. Bytes after the end are allowed
 * (phones append trailers and motion clips). Pixels are not decoded.
 */
const isWholeJpeg = (bytes: Uint8Array): boolean => {
  let sos = -1
  let framed = false
  // The marker segments after SOI: FF, the marker, then (but for RSTn, TEM) a 16-bit length.
  for (let i = 2; i + 4 <= bytes.length; ) {
    if (bytes[i] !== 0xff) return false
    const marker = bytes[i + 1]!
    if (marker === 0xff) {
      i++ // fill byte
      continue
    }
    if (marker === 0xda) {
      sos = i
      break
    }
    if ((marker >= 0xd0 && marker <= 0xd7) || marker === 0x01) {
      i += 2
      continue
    }
    const length = (bytes[i + 2]! << 8) | bytes[i + 3]!
    if (length < 2) return false
    // SOF0-SOF15 but DHT (C4), JPG (C8) and DAC (CC): precision, height, width.
    if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) {
      if (i + 9 > bytes.length) return false
      const height = (bytes[i + 5]! << 8) | bytes[i + 6]!
      const width = (bytes[i + 7]! << 8) | bytes[i + 8]!
      framed = height > 0 && width > 0
    }
    i += 2 + length
  }
  if (sos < 0 || !framed) return false
  for (let i = bytes.length - 2; i > sos + 1; i--) if (bytes[i] === 0xff && at(bytes, i, JPEG_EOI)) return true
  return false
}

const uint32 = (bytes: Uint8Array, i: number) => ((bytes[i]! << 24) | (bytes[i + 1]! << 16) | (bytes[i + 2]! << 8) | bytes[i + 3]!) >>> 0

/** CRC-32 (ISO 3309, as PNG computes it) of bytes[from, to). */
const crc32 = (bytes: Uint8Array, from: number, to: number): number => {
  let crc = 0xffffffff
  for (let i = from; i < to; i++) {
    crc ^= bytes[i]!
    for (let k = 0; k < 8; k++) crc = crc & 1 ? (crc >>> 1) ^ 0xedb88320 : crc >>> 1
  }
  return (crc ^ 0xffffffff) >>> 0
}

const isWholePng = (bytes: Uint8Array): boolean => {
  if (!(at(bytes, 8, [0, 0, 0, 13]) && at(bytes, 12, PNG_IHDR) && bytes.length >= 33)) return false
  // IHDR: width and height, then its CRC over type and data.
  if (uint32(bytes, 16) === 0 || uint32(bytes, 20) === 0 || crc32(bytes, 12, 29) !== uint32(bytes, 29)) return false
  // The chunk chain from IHDR (length, type, data, CRC) to IEND, with image data on the way.
  let data = false
  for (let i = 8; i + 8 <= bytes.length; ) {
    if (at(bytes, i + 4, PNG_IEND)) return data
    if (at(bytes, i + 4, PNG_IDAT) && uint32(bytes, i) > 0) data = true
    i += 12 + uint32(bytes, i)
  }
  return false
}

/** Decoded size from the encoded length and padding alone, before any decoding work. */
export const decodedBase64Length = (base64: string): number => {
  const padding = base64.endsWith("==") ? 2 : base64.endsWith("=") ? 1 : 0
  return Math.floor(((base64.length - padding) * 3) / 4)
}

/**
 * Decodes a face image: base64 JPEG or PNG, bare or as a data URI. The type comes from the
 * magic bytes; a data URI whose declared type disagrees with them is refused, since a client
 * that mislabels its image is more likely sending the wrong file than a mislabelled right one.
 * Failures are validation messages (400 SV001).
 */
export const decodeFaceImage = (input: string): Result.Result<FaceImage, string> => {
  if (input.length > MAX_RAW_CHARS) return Result.fail("face exceeds 10 MB decoded")
  let payload = input
  let declared: FaceMimeType | undefined
  if (/^\s*data:/i.test(input.slice(0, 64))) {
    const comma = input.indexOf(",")
    const header = comma === -1 ? undefined : DATA_URI_HEADER.exec(input.slice(0, comma).trim())
    if (header === undefined || header === null) {
      return Result.fail("face data URI must be data:image/jpeg;base64,... or data:image/png;...")
    }
    declared = DECLARED[header[1]!.toLowerCase()]
    if (declared === undefined) return Result.fail("face must be a JPEG or PNG image")
    payload = input.slice(comma + 1)
  }
  const base64 = payload.replace(WHITESPACE, "")
  if (base64.length === 0) return Result.fail("face is empty")
  if (decodedBase64Length(base64) > MAX_FACE_BYTES) {
    return Result.fail("face exceeds 10 MB decoded")
  }
  // Padding is optional, but when present the length must be a whole number of quads.
  const badLength = base64.length % 4 === 1 || (base64.endsWith("=") && base64.length % 4 !== 0)
  if (!BASE64.test(base64) || badLength) return Result.fail("face is not valid base64")
  let binary: string
  try {
    binary = atob(base64)
  } catch {
    return Result.fail("face is not valid base64")
  }
  const bytes = new Uint8Array(binary.length)
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i)
  const mimeType: FaceMimeType | undefined = at(bytes, 0, JPEG_MAGIC)
    ? "image/jpeg"
    : at(bytes, 0, PNG_MAGIC)
      ? "image/png"
      : undefined
  if (mimeType === undefined) return Result.fail("face is not a JPEG or PNG image")
  if (!(mimeType === "image/jpeg" ? isWholeJpeg(bytes) : isWholePng(bytes)))
    return Result.fail(`face is not a whole ${mimeType === "image/jpeg" ? "JPEG" : "PNG"} image (truncated or only a header)`)
  if (declared !== undefined && declared !== mimeType) {
    return Result.fail(`face data URI declares ${declared} but the image is ${mimeType}`)
  }
  return Result.succeed({ bytes, mimeType })
}
