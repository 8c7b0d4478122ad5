import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { verifyDelivery, verifyJwt } from "../../../clients/typescript/src/webhooks.ts"
import { ENGINES } from "../../support/databases.ts"
import { startHarness, type Harness } from "../../support/harness.ts"
import {
  SECRET,
  applyHooks,
  clockNow,
  deliveriesOf,
  eventually,
  hostCancelled,
  inviteSent,
  publish,
  visitorCheckedIn,
  webhookManifest,
} from "./fixtures.ts"
import { startReceiver, type Receiver } from "./receiver.ts"

const AT = "2030-01-07T02:00:00.000Z"

describe.each(ENGINES)("webhook delivery request on %s", (engine) => {
  let h: Harness
  let rx: Receiver
  beforeAll(async () => {
    h = await startHarness(engine, { KEYSPACE_ALLOW_INSECURE_WEBHOOKS: "1" })
    rx = await startReceiver()
  })
  afterAll(async () => {
    await rx?.close()
    await h?.close()
  })

  it("a visitor event is POSTed with the spec's headers, a valid signature and id = 202 data", async () => {
    const { projectId, webhooks } = await applyHooks(h, "hdr", [{ key: "ops", url: rx.url }])
    const before = rx.received.length
    const id = await publish(h, projectId, "VMS_HOST_CANCELLED", hostCancelled(projectId, AT))
    expect(id).toMatch(/^[0-9a-f]{24}$/)
    const [req] = (await rx.waitFor(before + 1)).slice(before)
    const now = await clockNow(h)
    expect(req!.method).toBe("POST")
    expect(req!.path).toBe("/hook")
    expect(req!.headers["content-type"]).toBe("application/json")
    expect(req!.headers["user-agent"]).toBe("ServiceWebhooks/1.0")
    expect(req!.headers["x-service-event"]).toBe("VMS_HOST_CANCELLED")
    expect(req!.headers["x-service-delivery"]).toBe(id)
    // Epoch ms of the service (manual) clock.
    expect(req!.headers["x-service-timestamp"]).toBe(String(now))
    expect(req!.headers["x-service-signature"]).toMatch(/^sha256=[0-9a-f]{64}$/)
    expect(req!.headers["authorization"]).toBeUndefined()
    const verified = await verifyDelivery({ secret: SECRET, headers: req!.headers as never, rawBody: req!.rawBody, now })
    expect(verified).toMatchObject({ ok: true, deliveryId: id })
    expect(req!.body).toEqual({
      id,
      type: "VMS_HOST_CANCELLED",
      version: 1,
      occurredAt: AT,
      projectId,
      data: hostCancelled(projectId, AT),
    })
    // A wrong secret does not verify.
    expect(await verifyDelivery({ secret: "x".repeat(40), headers: req!.headers as never, rawBody: req!.rawBody, now }))
      .toEqual({ ok: false, reason: "bad-signature" })
    const log = await eventually(async () => {
      const l = await deliveriesOf(h, webhooks.ops!)
      expect(l.data[0].state).toBe("delivered")
      return l
    })
    expect(log.meta).toEqual({ limit: 100, offset: 0, total: 1 })
    expect(log.data[0]).toMatchObject({
      id,
      type: "VMS_HOST_CANCELLED",
      state: "delivered",
      attempts: [{ time: new Date(now).toISOString(), statusCode: 200 }],
    })
  })

  it("each visitor event type carries exactly its table's fields (base fields included)", async () => {
    const { projectId } = await applyHooks(h, "fields", [{ key: "ops", url: rx.url }])
    const cases = [
      ["VMS_INVITE_SENT", inviteSent(projectId, AT)],
      ["VMS_VISITOR_CHECKED_IN", visitorCheckedIn(projectId, AT)],
      ["VMS_HOST_CANCELLED", hostCancelled(projectId, AT)],
    ] as const
    for (const [type, data] of cases) {
      const before = rx.received.length
      const id = await publish(h, projectId, type, { ...data, unknownExtra: "dropped" })
      const [req] = (await rx.waitFor(before + 1)).slice(before)
      expect(req!.body.id).toBe(id)
      expect(req!.body.type).toBe(type)
      expect(req!.body.data).toEqual(data)
    }
  })

  it("optional visitor fields stay absent when not given", async () => {
    const { projectId } = await applyHooks(h, "optional", [{ key: "ops", url: rx.url }])
    const { licensePlate: _l, visitPurpose: _v, ...minimal } = inviteSent(projectId, AT)
    const before = rx.received.length
    await publish(h, projectId, "VMS_INVITE_SENT", minimal)
    const [req] = (await rx.waitFor(before + 1)).slice(before)
    expect(req!.body.data).toEqual(minimal)
    expect("licensePlate" in req!.body.data).toBe(false)
  })

  it("only subscribed, enabled registrations of the project get a delivery, each with its own id", async () => {
    const { projectId, webhooks } = await applyHooks(h, "fan", [
      { key: "a", url: rx.url, events: ["VMS_INVITE_SENT"] },
      { key: "b", url: `${rx.url}?b=1`, events: ["VMS_INVITE_SENT", "VMS_HOST_CANCELLED"] },
      { key: "c", url: `${rx.url}?c=1`, events: ["ROOM_BOOK"] },
    ])
    const before = rx.received.length
    const id = await publish(h, projectId, "VMS_INVITE_SENT", inviteSent(projectId, AT))
    const got = (await rx.waitFor(before + 2)).slice(before)
    await new Promise((r) => setTimeout(r, 100))
    expect(rx.received.length).toBe(before + 2)
    const ids = got.map((r) => r.headers["x-service-delivery"])
    expect(new Set(ids).size).toBe(2)
    expect(ids).toContain(id)
    expect(got.map((r) => r.path).sort()).toEqual(["/hook", "/hook?b=1"])
    expect((await deliveriesOf(h, webhooks.c!)).meta.total).toBe(0)
  })

  describe("receiver-side authentication", () => {
    it("bearer adds Authorization: Bearer <static token>", async () => {
      const { projectId } = await applyHooks(h, "bearer", [{ key: "ops", url: rx.url, auth: { scheme: "bearer", token: "static-token-42" } }])
      const before = rx.received.length
      await publish(h, projectId, "VMS_HOST_CANCELLED", hostCancelled(projectId, AT))
      const [req] = (await rx.waitFor(before + 1)).slice(before)
      expect(req!.headers["authorization"]).toBe("Bearer static-token-42")
      expect(req!.headers["x-service-signature"]).toMatch(/^sha256=/)
    })

    it("custom-header: the manifest refuses a header the delivery sets itself or a name given twice (any case), every one in one 400, and a control character in a value", async () => {
      const apply = (headers: Array<{ name: string; value: string }>) =>
        h.admin("PUT", "/manifest", webhookManifest("custom-bad", [{ key: "ops", url: rx.url, auth: { scheme: "custom-header", headers } }]))
      const injected = await apply([{ name: "X-Injected", value: "a\r\nX-Other: b" }])
      expect(injected.status).toBe(400)
      expect((injected.body.message as string[]).join("\n")).toMatch(/must be an HTTP header value/)
      const res = await apply([
        { name: "X-Service-Signature", value: "forged" },
        { name: "User-Agent", value: "evil" },
        { name: "X-Extra", value: "1" },
        { name: "x-extra", value: "2" },
      ])
      expect(res.status).toBe(400)
      expect(res.body.code).toBe("SV001")
      const text = (res.body.message as string[]).join("\n")
      expect(text).toMatch(/X-Service-Signature: is set by every delivery/)
      expect(text).toMatch(/User-Agent: is set by every delivery/)
      expect(text).toMatch(/x-extra: is given more than once/)
    })

    it("custom-header adds every configured header, and the spec's headers are the delivery's own", async () => {
      const { projectId } = await applyHooks(h, "custom", [
        {
          key: "ops",
          url: rx.url,
          auth: {
            scheme: "custom-header",
            headers: [
              { name: "X-Api-Key", value: "k-1" },
              { name: "X-Tenant", value: "hq" },
            ],
          },
        },
      ])
      const before = rx.received.length
      await publish(h, projectId, "VMS_HOST_CANCELLED", hostCancelled(projectId, AT))
      const [req] = (await rx.waitFor(before + 1)).slice(before)
      expect(req!.headers["x-api-key"]).toBe("k-1")
      expect(req!.headers["x-tenant"]).toBe("hq")
      expect(req!.headers["x-service-signature"]).toMatch(/^sha256=[0-9a-f]{64}$/)
      expect(req!.headers["authorization"]).toBeUndefined()
    })

    it("jwt adds a fresh HS256 token: iss service, aud projectId, jti delivery id, exp 60 s", async () => {
      const { projectId } = await applyHooks(h, "jwt", [{ key: "ops", url: rx.url, auth: { scheme: "jwt" } }])
      const before = rx.received.length
      const id = await publish(h, projectId, "VMS_HOST_CANCELLED", hostCancelled(projectId, AT))
      const [req] = (await rx.waitFor(before + 1)).slice(before)
      const now = await clockNow(h)
      const auth = req!.headers["authorization"]!
      expect(auth).toMatch(/^Bearer [\w-]+\.[\w-]+\.[\w-]+$/)
      const r = await verifyJwt(SECRET, auth, projectId, { now, deliveryId: id })
      expect(r.ok).toBe(true)
      if (r.ok) {
        expect(r.claims).toMatchObject({ iss: "service", aud: projectId, jti: id })
        expect(r.claims.exp - r.claims.iat).toBe(60)
        expect(r.claims.iat).toBe(Math.floor(now / 1000))
      }
      expect((await verifyJwt(SECRET, auth, "another-project", { now })).ok).toBe(false)
    })
  })

  describe("visitor event publishing (operator contract)", () => {
    let projectId: string
    beforeAll(async () => {
      ;({ projectId } = await applyHooks(h, "publish", [{ key: "ops", url: rx.url }]))
    })

    it.each(["VMS_VISITOR_CHECKED_OUT", "VMS_HOST_NOTIFICATION"])("reserved type %s is 400 SV001", async (type) => {
      const res = await h.admin("POST", `/projects/${projectId}/visitor-events`, { type, data: hostCancelled(projectId, AT) })
      expect(res.status).toBe(400)
      expect(res.body.code).toBe("SV001")
      expect(res.body.message.join(" ")).toContain("reserved")
    })

    it("an unknown type, missing fields or a misplaced qrCardCode is 400 SV001", async () => {
      const bad = [
        { type: "ROOM_BOOK", data: hostCancelled(projectId, AT) },
        { type: "VMS_HOST_CANCELLED", data: { projectId } },
        { type: "VMS_HOST_CANCELLED", data: { ...hostCancelled(projectId, AT), qrCardCode: "QR" } },
        { type: "VMS_HOST_CANCELLED" },
        { data: hostCancelled(projectId, AT) },
      ]
      for (const body of bad) {
        const res = await h.admin("POST", `/projects/${projectId}/visitor-events`, body)
        expect(res.status, JSON.stringify(body)).toBe(400)
        expect(res.body.code).toBe("SV001")
      }
    })

    it("data.projectId must be the project of the path (400 SV001)", async () => {
      const res = await h.admin("POST", `/projects/${projectId}/visitor-events`, {
        type: "VMS_HOST_CANCELLED",
        data: hostCancelled("0123456789abcdef01234567", AT),
      })
      expect(res.status).toBe(400)
      expect(res.body.code).toBe("SV001")
    })

    it("an unknown project is 404 SV005", async () => {
      const other = "0123456789abcdef01234567"
      const res = await h.admin("POST", `/projects/${other}/visitor-events`, {
        type: "VMS_HOST_CANCELLED",
        data: hostCancelled(other, AT),
      })
      expect(res.status).toBe(404)
      expect(res.body.code).toBe("SV005")
    })

    it("the delivery log of an unknown webhook is 404 SV005; a bad limit is 400 SV001", async () => {
      expect((await h.admin("GET", "/webhooks/0123456789abcdef01234567/deliveries")).status).toBe(404)
      expect((await h.admin("POST", "/webhooks/0123456789abcdef01234567/enable")).status).toBe(404)
      expect((await h.admin("POST", "/deliveries/0123456789abcdef01234567/redeliver")).status).toBe(404)
      const { webhooks } = await applyHooks(h, "publish", [{ key: "ops", url: rx.url }])
      const res = await h.admin("GET", `/webhooks/${webhooks.ops}/deliveries?limit=3001`)
      expect(res.status).toBe(400)
      expect(res.body.code).toBe("SV001")
    })

    it("requires the operator token (401 SV002)", async () => {
      const res = await h.request("POST", `/admin/v1/projects/${projectId}/visitor-events`, {
        body: { type: "VMS_HOST_CANCELLED", data: hostCancelled(projectId, AT) },
      })
      expect(res.status).toBe(401)
      expect(res.body.code).toBe("SV002")
    })
  })
})
