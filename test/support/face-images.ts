import { crc32 } from "node:zlib"

/**
 * Face images for the credentials tests: `bytes` decoded bytes framed as a whole image, which is
 * what the service checks (core/member/face-image.ts: magic bytes; a JPEG's frame header of a
 * non-empty size before its start of scan, and its end of image; a PNG's IHDR of a non-empty
 * size with its CRC first, image data, and IEND last). The body is `fill` bytes.
 */

/** SOF0 of a 1x1 image with three components. */
const JPEG_SOF0 = [0xff, 0xc0, 0x00, 0x11, 0x08, 0x00, 0x01, 0x00, 0x01, 0x03, 0x01, 0x11, 0x00, 0x02, 0x11, 0x01, 0x03, 0x11, 0x01]
const JPEG_MIN = 2 + JPEG_SOF0.length + 2 + 2

/** A whole JPEG's frame; at least 25 bytes (a smaller `bytes` gets 25). */
export const jpegBase64 = (bytes: number, fill = 0): string => {
  const buf = Buffer.alloc(Math.max(bytes, JPEG_MIN), fill)
  buf.set([0xff, 0xd8])
  buf.set(JPEG_SOF0, 2)
  buf.set([0xff, 0xda], 2 + JPEG_SOF0.length)
  buf.set([0xff, 0xd9], buf.length - 2)
  return buf.toString("base64")
}

/** A whole PNG's frame: signature, IHDR of 1x1, one IDAT chunk of `fill` bytes, IEND; at least 58 bytes. */
export const pngBase64 = (bytes = 64, fill = 0): string => {
  const buf = Buffer.alloc(bytes, fill)
  buf.set([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])
  buf.set([0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52], 8)
  buf.set([0, 0, 0, 1, 0, 0, 0, 1, 8, 0, 0, 0, 0], 16)
  buf.writeUInt32BE(crc32(buf.subarray(12, 29)), 29)
  // IHDR's 13 bytes and CRC end at 33; IDAT's data runs to its CRC before IEND.
  buf.writeUInt32BE(bytes - 57, 33)
  buf.set([0x49, 0x44, 0x41, 0x54], 37)
  buf.set([0, 0, 0, 0, 0x49, 0x45, 0x4e, 0x44, 0xae, 0x42, 0x60, 0x82], bytes - 12)
  return buf.toString("base64")
}
