import { createHmac } from "node:crypto"
import { describe, expect, it } from "vitest"
import { signReceiverJwt } from "../../../adapters/webhooks/receiver-jwt.ts"

const secret = "whsec_0123456789abcdef0123456789abcdef"
const nowMs = 1_740_830_400_123

const decode = (part: string): unknown =>
  JSON.parse(Buffer.from(part, "base64url").toString("utf8"))

describe("receiver jwt (spec: Receiver-side authentication, jwt)", () => {
  it("jwt is HS256 with header {alg: HS256, typ: JWT}", async () => {
    const token = await signReceiverJwt(secret, { projectId: "p1", deliveryId: "d1", nowMs })
    const [h] = token.split(".")
    expect(decode(h ?? "")).toEqual({ alg: "HS256", typ: "JWT" })
  })

  it("claims: iss service, aud projectId, jti delivery id, exp = iat + 60 s", async () => {
    const token = await signReceiverJwt(secret, { projectId: "p1", deliveryId: "d1", nowMs })
    const [, p] = token.split(".")
    expect(decode(p ?? "")).toEqual({
      iss: "service",
      aud: "p1",
      jti: "d1",
      iat: 1_740_830_400,
      exp: 1_740_830_460,
    })
  })

  it("jwt is signed with the shared secret (HMAC-SHA256 over header.payload)", async () => {
    const token = await signReceiverJwt(secret, { projectId: "p1", deliveryId: "d1", nowMs })
    const [h, p, s] = token.split(".")
    const expected = createHmac("sha256", secret).update(`${h}.${p}`).digest("base64url")
    expect(s).toBe(expected)
  })

  it("jwt parts are base64url without padding", async () => {
    for (const deliveryId of ["d", "d1", "d12", "d123?>>"]) {
      const token = await signReceiverJwt(secret, { projectId: "p1", deliveryId, nowMs })
      expect(token).toMatch(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/)
    }
  })
})
