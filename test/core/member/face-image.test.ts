import { Result } from "effect"
import { describe, expect, it } from "vitest"
import {
  decodeFaceImage,
  decodedBase64Length,
  MAX_FACE_BYTES,
} from "../../../core/member/face-image.ts"

const SOI = [0xff, 0xd8]
const APP0 = [0xff, 0xe0, 0x00, 0x10, 0x4a, 0x46, 0x49, 0x46, 0x00, 0x01, 0x01, 0x00, 0x00, 0x01, 0x00, 0x01, 0x00, 0x00]
/** A frame header (SOF0) of a 1x1 image, three components. */
const SOF0 = [0xff, 0xc0, 0x00, 0x11, 0x08, 0x00, 0x01, 0x00, 0x01, 0x03, 0x01, 0x11, 0x00, 0x02, 0x11, 0x01, 0x03, 0x11, 0x01]
const SOS = [0xff, 0xda, 0x00, 0x0c, 0x03, 0x01, 0x00, 0x02, 0x11, 0x03, 0x11, 0x00, 0x3f, 0x00, 0x00]
const EOI = [0xff, 0xd9]
/** A JPEG's frame: start of image, APP0 JFIF, the frame header, a scan, end of image. */
const JPEG = new Uint8Array([...SOI, ...APP0, ...SOF0, ...SOS, ...EOI])
const IHDR = [0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52, 0, 0, 0, 1, 0, 0, 0, 1, 8, 6, 0, 0, 0, 0x1f, 0x15, 0xc4, 0x89]
const IDAT = [0, 0, 0, 1, 0x49, 0x44, 0x41, 0x54, 0x00, 0, 0, 0, 0]
const IEND = [0, 0, 0, 0, 0x49, 0x45, 0x4e, 0x44, 0xae, 0x42, 0x60, 0x82]
const SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]
/** A PNG's frame: signature, IHDR first (13 bytes and CRC), image data, IEND last. */
const PNG = new Uint8Array([...SIGNATURE, ...IHDR, ...IDAT, ...IEND])
const GIF = new Uint8Array([0x47, 0x49, 0x46, 0x38, 0x39, 0x61])

const b64 = (bytes: Uint8Array) => btoa(String.fromCharCode(...bytes))
const failure = (input: string) => {
  const r = decodeFaceImage(input)
  if (Result.isSuccess(r)) throw new Error("expected a failure")
  return r.failure
}

describe("face image (PartnerCredentialsRequest.face)", () => {
  it("bare base64 JPEG and PNG are accepted, type from magic bytes", () => {
    const jpeg = Result.getOrThrow(decodeFaceImage(b64(JPEG)))
    expect(jpeg.mimeType).toBe("image/jpeg")
    expect(jpeg.bytes).toEqual(JPEG)
    expect(Result.getOrThrow(decodeFaceImage(b64(PNG))).mimeType).toBe("image/png")
  })

  it("data URIs are accepted (image/jpeg, image/jpg, image/png)", () => {
    expect(Result.getOrThrow(decodeFaceImage(`data:image/jpeg;base64,${b64(JPEG)}`)).bytes)
      .toEqual(JPEG)
    expect(Result.isSuccess(decodeFaceImage(`data:image/jpg;base64,${b64(JPEG)}`))).toBe(true)
    expect(Result.isSuccess(decodeFaceImage(`DATA:IMAGE/PNG;BASE64,${b64(PNG)}`))).toBe(true)
  })

  it("line-wrapped base64 and unpadded base64 are accepted", () => {
    const wrapped = b64(JPEG).replace(/(.{4})/g, "$1\n")
    expect(Result.getOrThrow(decodeFaceImage(wrapped)).bytes).toEqual(JPEG)
    const unpadded = b64(JPEG).replace(/=+$/, "")
    expect(Result.getOrThrow(decodeFaceImage(unpadded)).bytes).toEqual(JPEG)
  })

  it("a data URI whose declared type disagrees with the magic bytes is refused", () => {
    expect(failure(`data:image/png;base64,${b64(JPEG)}`)).toContain("declares image/png")
  })

  it("other image types are refused: by magic bytes, or by the declared type", () => {
    expect(failure(b64(GIF))).toContain("JPEG or PNG")
    expect(failure(`data:image/gif;base64,${b64(GIF)}`)).toContain("JPEG or PNG")
    expect(failure("data:image/png,rawtext")).toContain("data URI")
  })

  it("invalid base64 gives a validation message", () => {
    expect(failure("not base64!!")).toContain("base64")
    expect(failure("/9j/4A=")).toContain("base64")
    expect(failure("/9j/4AA=A")).toContain("base64")
    expect(failure("")).toContain("empty")
  })

  it("decoded size is computed from length and padding", () => {
    expect(decodedBase64Length("")).toBe(0)
    expect(decodedBase64Length("QQ==")).toBe(1)
    expect(decodedBase64Length("QUI=")).toBe(2)
    expect(decodedBase64Length("QUJD")).toBe(3)
    expect(decodedBase64Length("QUI")).toBe(2)
  })

  it("max 10 MB decoded: exactly 10 MB passes, one byte more is refused", () => {
    const exact = new Uint8Array(MAX_FACE_BYTES)
    exact.set(JPEG)
    exact.set([0xff, 0xd9], MAX_FACE_BYTES - 2)
    expect(Result.isSuccess(decodeFaceImage(Buffer.from(exact).toString("base64")))).toBe(true)
    const over = new Uint8Array(MAX_FACE_BYTES + 1)
    over.set(JPEG)
    expect(failure(Buffer.from(over).toString("base64"))).toContain("10 MB")
  })

  it("the magic bytes alone, or an image cut off before its end, are not a whole image (rule 4: an invalid image is 400)", () => {
    expect(failure("/9j/")).toContain("not a whole JPEG")
    expect(failure("iVBORw0KGgo=")).toContain("not a whole PNG")
    expect(failure(`data:image/png;base64,${b64(PNG.slice(0, 20))}`)).toContain("not a whole PNG")
    expect(failure(b64(JPEG.slice(0, JPEG.length - 1)))).toContain("not a whole JPEG")
    // No start of scan: a header and an end marker only.
    expect(failure(b64(new Uint8Array([0xff, 0xd8, 0xff, 0xe0, 0xff, 0xd9])))).toContain("not a whole JPEG")
  })

  it("a frame with no picture is not an image: a JPEG without a frame header or of size 0, a PNG without image data, of size 0 or with a broken IHDR", () => {
    expect(failure(b64(new Uint8Array([...SOI, ...APP0, ...SOS, ...EOI])))).toContain("not a whole JPEG")
    const empty = [...SOF0]
    empty[5] = 0
    empty[6] = 0
    expect(failure(b64(new Uint8Array([...SOI, ...empty, ...SOS, ...EOI])))).toContain("not a whole JPEG")
    expect(failure(b64(new Uint8Array([...SIGNATURE, ...IHDR, ...IEND])))).toContain("not a whole PNG")
    const zero = [...IHDR]
    zero[11] = 0
    expect(failure(b64(new Uint8Array([...SIGNATURE, ...zero, ...IDAT, ...IEND])))).toContain("not a whole PNG")
    const badCrc = [...IHDR]
    badCrc[24] ^= 1
    expect(failure(b64(new Uint8Array([...SIGNATURE, ...badCrc, ...IDAT, ...IEND])))).toContain("not a whole PNG")
  })

  it("bytes after a whole image's end (a phone's trailer, a motion clip) are allowed", () => {
    const trailer = new Uint8Array([0x53, 0x45, 0x46, 0x54, 0, 0, 0, 0])
    expect(Result.isSuccess(decodeFaceImage(b64(new Uint8Array([...JPEG, ...trailer]))))).toBe(true)
    expect(Result.isSuccess(decodeFaceImage(b64(new Uint8Array([...PNG, ...trailer]))))).toBe(true)
  })

  it("a huge string is refused before any decoding", () => {
    const huge = "A".repeat(MAX_FACE_BYTES * 3)
    const started = performance.now()
    expect(failure(huge)).toContain("10 MB")
    expect(performance.now() - started).toBeLessThan(50)
  })
})
