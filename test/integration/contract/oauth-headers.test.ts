import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { startHarness, ADMIN_TOKEN, type Harness } from "../../support/harness.ts"
import { APP, setUpWorld, type BookingWorld } from "../bookings/booking-fixtures.ts"

const noStore = (headers: Headers) => {
  expect(headers.get("cache-control")).toBe("no-store")
  expect(headers.get("pragma")).toBe("no-cache")
}

describe("OAuth response headers (RFC 6749 5.1/5.2, RFC 6750 3)", () => {
  let h: Harness
  let w: BookingWorld
  beforeAll(async () => {
    h = await startHarness("pglite", { KEYSPACE_MAX_BODY_BYTES: "65536" })
    w = await setUpWorld(h)
  })
  afterAll(async () => h?.close())

  const token = (body: unknown) => h.request("POST", "/auth/accessToken", { body })

  it("every token response, success or error and of every grant, is Cache-Control no-store and Pragma no-cache", async () => {
    const pair = await token({ grant_type: "app_credentials", app_id: APP.appId, app_secret: APP.appSecret })
    expect(pair.status).toBe(201)
    noStore(pair.headers)
    expect(Number.isInteger(pair.body.expires_in)).toBe(true)
    const refreshed = await token({ grant_type: "refresh_token", refresh_token: pair.body.refresh_token })
    expect(refreshed.status).toBe(201)
    noStore(refreshed.headers)
    const actAs = await token({ grant_type: "act_as", app_id: APP.appId, app_secret: APP.appSecret, subject: "ext-alice" })
    expect(actAs.status).toBe(201)
    noStore(actAs.headers)

    const failures = [
      await token({ grant_type: "app_credentials", app_id: APP.appId, app_secret: "wrong-secret" }),
      await token({ grant_type: "refresh_token", refresh_token: "not-a-token" }),
      await token({ grant_type: "act_as", app_id: APP.appId, app_secret: APP.appSecret, subject: "ext-nobody", subject_type: "keyspace_member_id" }),
      await token({ grant_type: "password" }),
      await h.request("POST", "/auth/accessToken", { body: "{not json" }),
      await h.request("POST", "/auth/accessToken", { body: JSON.stringify({ pad: "x".repeat(70_000) }) }),
    ]
    expect(failures.map((r) => r.status)).toEqual([401, 401, 401, 400, 400, 413])
    for (const res of failures) {
      noStore(res.headers)
      // The spec's body shape is kept: the error envelope.
      expect(res.body).toMatchObject({ success: false })
    }
  })

  it("a 401 of a bearer-protected route carries WWW-Authenticate Bearer, with invalid_token when a token was refused", async () => {
    const missing = await h.request("GET", `/meetings?from=x`)
    expect(missing.status).toBe(401)
    expect(missing.body.code).toBe("SV002")
    expect(missing.headers.get("www-authenticate")).toBe('Bearer realm="keyspace"')

    const invalid = await h.request("GET", `/meeting-rooms?projectId=${w.hq.id}`, { token: "not-a-real-token" })
    expect(invalid.status).toBe(401)
    expect(invalid.body.code).toBe("SV002")
    expect(invalid.headers.get("www-authenticate")).toBe('Bearer realm="keyspace", error="invalid_token"')

    await h.advance(24 * 60)
    const expired = await h.request("GET", `/meeting-rooms?projectId=${w.hq.id}`, { token: w.app })
    expect(expired.status).toBe(401)
    expect(expired.headers.get("www-authenticate")).toBe('Bearer realm="keyspace", error="invalid_token"')

    const operator = await h.request("GET", "/admin/v1/clock", { token: `${ADMIN_TOKEN}-wrong` })
    expect(operator.status).toBe(401)
    expect(operator.headers.get("www-authenticate")).toBe('Bearer realm="keyspace", error="invalid_token"')
    const operatorMissing = await h.request("GET", "/admin/v1/clock")
    expect(operatorMissing.headers.get("www-authenticate")).toBe('Bearer realm="keyspace"')
  })

  it("answers other than 401 carry no challenge", async () => {
    const fresh = await h.tokenFor(APP.appId, APP.appSecret)
    const res = await h.request("GET", `/meeting-rooms?projectId=${w.hq.id}`, { token: fresh })
    expect(res.status).toBe(200)
    expect(res.headers.get("www-authenticate")).toBeNull()
  })
})
