/**
 * Face images for the credentials tests: `bytes` decoded bytes framed as a whole image, which is
 * what the service checks (core/member/face-image.ts: magic bytes, and a JPEG's start of scan and
 * end of image, a PNG's IHDR first and IEND last). The body is `fill` bytes.
 */

/** A whole JPEG's frame; at least 8 bytes. */
export const jpegBase64 = (bytes: number, fill = 0): string => {
  const buf = Buffer.alloc(bytes, fill)
  buf.set([0xff, 0xd8, 0xff, 0xe0])
  buf.set([0xff, 0xda], 4)
  buf.set([0xff, 0xd9], bytes - 2)
  return buf.toString("base64")
}

/** A whole PNG's frame: signature, IHDR, one IDAT chunk of `fill` bytes, IEND; at least 57 bytes. */
export const pngBase64 = (bytes = 64, fill = 0): string => {
  const buf = Buffer.alloc(bytes, fill)
  buf.set([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])
  buf.set([0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52], 8)
  // IHDR's 13 bytes and CRC end at 33; IDAT's data runs to its CRC before IEND.
  buf.writeUInt32BE(bytes - 57, 33)
  buf.set([0x49, 0x44, 0x41, 0x54], 37)
  buf.set([0, 0, 0, 0, 0x49, 0x45, 0x4e, 0x44, 0xae, 0x42, 0x60, 0x82], bytes - 12)
  return buf.toString("base64")
}
