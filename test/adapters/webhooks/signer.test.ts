import { createHmac } from "node:crypto"
import { describe, expect, it } from "vitest"
import { sign, verify } from "../../../adapters/webhooks/signer.ts"

const secret = "whsec_0123456789abcdef0123456789abcdef"
const ts = 1_740_830_400_000
const body = '{"id":"d1","type":"ROOM_BOOK","version":1,"data":{"roomName":"กล้วยไม้ — 12F"}}'

const reference = (s: string, t: number, raw: string | Buffer) =>
  `sha256=${createHmac("sha256", s).update(`${t}.`).update(raw).digest("hex")}`

describe("webhook signature (spec: Delivery request)", () => {
  it("signature is sha256= HMAC-SHA256 over timestamp.rawBody", async () => {
    expect(await sign(secret, ts, body)).toBe(reference(secret, ts, body))
  })

  it("signature is sha256= followed by 64 lowercase hex digits", async () => {
    expect(await sign(secret, ts, body)).toMatch(/^sha256=[0-9a-f]{64}$/)
  })

  it("signs the exact raw body bytes (UTF-8, no re-encoding of byte input)", async () => {
    const bytes = new TextEncoder().encode(body)
    expect(await sign(secret, ts, bytes)).toBe(reference(secret, ts, Buffer.from(bytes)))
    expect(await sign(secret, ts, bytes.buffer)).toBe(await sign(secret, ts, body))
    // Non-UTF-8 bytes are signed as they are.
    const raw = new Uint8Array([0xff, 0x00, 0x7b])
    expect(await sign(secret, ts, raw)).toBe(reference(secret, ts, Buffer.from(raw)))
  })

  it("verify accepts the matching signature and rejects any change", async () => {
    const sig = await sign(secret, ts, body)
    expect(await verify(secret, ts, body, sig)).toBe(true)
    expect(await verify(secret, String(ts), body, sig)).toBe(true)
    expect(await verify(secret, ts + 1, body, sig)).toBe(false)
    expect(await verify(secret, ts, body.replace("d1", "d2"), sig)).toBe(false)
    expect(await verify(`${secret}x`, ts, body, sig)).toBe(false)
    expect(await verify(secret, ts, body, sig.toUpperCase())).toBe(false)
    expect(await verify(secret, ts, body, sig.slice(0, -1))).toBe(false)
    expect(await verify(secret, ts, body, "")).toBe(false)
  })

  it("a re-serialized body does not verify: receivers must use the raw bytes", async () => {
    const sig = await sign(secret, ts, body)
    const reserialized = JSON.stringify(JSON.parse(body), null, 2)
    expect(await verify(secret, ts, reserialized, sig)).toBe(false)
  })
})
