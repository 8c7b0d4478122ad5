import { createHmac } from "node:crypto"
import { describe, expect, it } from "vitest"
import { verifyDelivery, verifyJwt } from "../../../clients/typescript/src/webhooks.ts"
import { signReceiverJwt } from "../../../adapters/webhooks/receiver-jwt.ts"
import { sign } from "../../../adapters/webhooks/signer.ts"

const secret = "whsec_0123456789abcdef0123456789abcdef"
const now = 1_740_830_400_000
const MIN = 60_000

const envelope = {
  id: "d1",
  type: "ROOM_BOOK",
  version: 1,
  occurredAt: "2025-03-01T12:00:00.000Z",
  projectId: "p1",
  data: { projectId: "p1", userId: "u1", timestamp: "2025-03-01T12:00:00.000Z" },
}
const rawBody = JSON.stringify(envelope)

const deliveryHeaders = async (over: Record<string, string> = {}, ts = now, body = rawBody) => ({
  "content-type": "application/json",
  "user-agent": "ServiceWebhooks/1.0",
  "x-service-event": "ROOM_BOOK",
  "x-service-delivery": "d1",
  "x-service-timestamp": String(ts),
  "x-service-signature": await sign(secret, ts, body),
  ...over,
})

describe("receiver kit: verifying a delivery (spec: Delivery request, Delivery policy)", () => {
  it("a correctly signed delivery verifies and returns the delivery id as dedupe key", async () => {
    const r = await verifyDelivery({ secret, headers: await deliveryHeaders(), rawBody, now })
    expect(r).toEqual({ ok: true, envelope, deliveryId: "d1" })
  })

  it("works with Fetch Headers and raw bytes as well as Node header records and text", async () => {
    const headers = new Headers(await deliveryHeaders())
    const bytes = new TextEncoder().encode(rawBody)
    const r = await verifyDelivery({ secret, headers, rawBody: bytes, now })
    expect(r.ok).toBe(true)
  })

  it("verifies against a signature computed independently with node:crypto", async () => {
    const ts = String(now)
    const sig = `sha256=${createHmac("sha256", secret).update(`${ts}.${rawBody}`).digest("hex")}`
    const headers = await deliveryHeaders({ "x-service-signature": sig })
    expect((await verifyDelivery({ secret, headers, rawBody, now })).ok).toBe(true)
  })

  it("timestamps more than 5 minutes from the receiver's clock are rejected", async () => {
    for (const skew of [5 * MIN + 1, -(5 * MIN + 1)]) {
      const headers = await deliveryHeaders({}, now + skew)
      expect(await verifyDelivery({ secret, headers, rawBody, now })).toEqual({
        ok: false,
        reason: "stale-timestamp",
      })
    }
    for (const skew of [5 * MIN, -5 * MIN]) {
      const headers = await deliveryHeaders({}, now + skew)
      expect((await verifyDelivery({ secret, headers, rawBody, now })).ok).toBe(true)
    }
  })

  it("a tampered body, wrong secret or forged signature is rejected", async () => {
    const headers = await deliveryHeaders()
    const tampered = rawBody.replace("u1", "u2")
    expect(await verifyDelivery({ secret, headers, rawBody: tampered, now })).toEqual({
      ok: false,
      reason: "bad-signature",
    })
    const other = await verifyDelivery({ secret: `${secret}x`, headers, rawBody, now })
    expect(other).toEqual({ ok: false, reason: "bad-signature" })
    const forged = await deliveryHeaders({ "x-service-signature": `sha256=${"0".repeat(64)}` })
    expect((await verifyDelivery({ secret, headers: forged, rawBody, now })).ok).toBe(false)
  })

  it("the timestamp is signed: a replay with a fresh timestamp fails", async () => {
    const old = await deliveryHeaders({}, now - 10 * MIN)
    const replay = { ...old, "x-service-timestamp": String(now) }
    expect(await verifyDelivery({ secret, headers: replay, rawBody, now })).toEqual({
      ok: false,
      reason: "bad-signature",
    })
  })

  it("missing or malformed headers are rejected with a reason", async () => {
    const { "x-service-signature": _s, ...noSig } = await deliveryHeaders()
    expect(await verifyDelivery({ secret, headers: noSig, rawBody, now })).toEqual({
      ok: false,
      reason: "missing-signature",
    })
    const { "x-service-timestamp": _t, ...noTs } = await deliveryHeaders()
    expect(await verifyDelivery({ secret, headers: noTs, rawBody, now })).toEqual({
      ok: false,
      reason: "missing-timestamp",
    })
    const badTs = await deliveryHeaders({ "x-service-timestamp": "2025-03-01T12:00:00Z" })
    expect(await verifyDelivery({ secret, headers: badTs, rawBody, now })).toEqual({
      ok: false,
      reason: "malformed-timestamp",
    })
  })

  it("the delivery header must equal the body id", async () => {
    const headers = await deliveryHeaders({ "x-service-delivery": "d2" })
    expect(await verifyDelivery({ secret, headers, rawBody, now })).toEqual({
      ok: false,
      reason: "delivery-id-mismatch",
    })
  })

  it("a signed body that is not an envelope is rejected", async () => {
    const body = '{"hello":"world"}'
    const headers = await deliveryHeaders({}, now, body)
    expect(await verifyDelivery({ secret, headers, rawBody: body, now })).toEqual({
      ok: false,
      reason: "malformed-body",
    })
  })

  it("unknown data fields are tolerated", async () => {
    const body = JSON.stringify({ ...envelope, data: { ...envelope.data, brandNew: 1 } })
    const headers = await deliveryHeaders({}, now, body)
    expect((await verifyDelivery({ secret, headers, rawBody: body, now })).ok).toBe(true)
  })
})

describe("receiver kit: verifying the jwt scheme (spec: Receiver-side authentication)", () => {
  const mint = (nowMs = now, projectId = "p1") =>
    signReceiverJwt(secret, { projectId, deliveryId: "d1", nowMs })

  it("a fresh token for this project verifies, with or without the Bearer prefix", async () => {
    const token = await mint()
    const r = await verifyJwt(secret, token, "p1", { now, deliveryId: "d1" })
    expect(r).toMatchObject({ ok: true, claims: { iss: "service", aud: "p1", jti: "d1" } })
    expect((await verifyJwt(secret, `Bearer ${token}`, "p1", { now })).ok).toBe(true)
  })

  it("a token for another project (aud) is rejected", async () => {
    expect(await verifyJwt(secret, await mint(now, "p2"), "p1", { now })).toEqual({
      ok: false,
      reason: "wrong-audience",
    })
  })

  it("a token past exp (60 s lifetime) plus leeway is rejected", async () => {
    const token = await mint()
    expect((await verifyJwt(secret, token, "p1", { now: now + 60_000, leewayMs: 0 })).ok).toBe(true)
    expect(await verifyJwt(secret, token, "p1", { now: now + 61_000, leewayMs: 0 })).toEqual({
      ok: false,
      reason: "expired",
    })
    expect((await verifyJwt(secret, token, "p1", { now: now + 80_000 })).ok).toBe(true)
    expect((await verifyJwt(secret, token, "p1", { now: now + 91_000 })).ok).toBe(false)
  })

  it("a token for another delivery (jti) is rejected when the delivery id is given", async () => {
    expect(await verifyJwt(secret, await mint(), "p1", { now, deliveryId: "d9" })).toEqual({
      ok: false,
      reason: "wrong-delivery",
    })
  })

  it("alg none, a wrong secret or a tampered payload is rejected", async () => {
    const token = await mint()
    const [, p, s] = token.split(".")
    const none = Buffer.from(JSON.stringify({ alg: "none", typ: "JWT" })).toString("base64url")
    expect(await verifyJwt(secret, `${none}.${p}.`, "p1", { now })).toEqual({
      ok: false,
      reason: "unsupported-algorithm",
    })
    expect((await verifyJwt(`${secret}x`, token, "p1", { now })).ok).toBe(false)
    const forgedClaims = Buffer.from(
      JSON.stringify({ iss: "service", aud: "p1", jti: "d1", iat: 1, exp: 9_999_999_999 }),
    ).toString("base64url")
    const [h] = token.split(".")
    expect(await verifyJwt(secret, `${h}.${forgedClaims}.${s}`, "p1", { now })).toEqual({
      ok: false,
      reason: "bad-signature",
    })
    expect(await verifyJwt(secret, "not-a-jwt", "p1", { now })).toEqual({
      ok: false,
      reason: "malformed-token",
    })
  })
})
