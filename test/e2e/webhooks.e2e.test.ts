import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { verifyDelivery } from "../../clients/typescript/src/webhooks.ts"
import { e2eTarget, uniqueSuffix, type E2ETarget } from "../support/e2e-target.ts"
import { startReceiver, type Receiver } from "../integration/webhooks/receiver.ts"

/**
 * A visitor event over HTTP reaches a real receiver on 127.0.0.1, signed. Against an external
 * server (KEYSPACE_E2E_URL) that server must run with KEYSPACE_ALLOW_INSECURE_WEBHOOKS=1 on
 * this machine, as the in-process target does.
 */
describe("webhooks over HTTP", () => {
  let t: E2ETarget
  let rx: Receiver
  const sfx = uniqueSuffix()
  const secret = `e2e-webhook-secret-${sfx}-0123456789`
  beforeAll(async () => {
    t = await e2eTarget()
    rx = await startReceiver()
  })
  afterAll(async () => {
    await rx?.close()
    await t?.close()
  })

  it("publish a visitor event, receive it signed, see it delivered in the log, redeliver it", async () => {
    const key = `wh-${sfx}`
    const applied = await t.admin("PUT", "/manifest", {
      projects: [
        {
          key,
          name: "E2E Webhooks",
          timezone: "Asia/Bangkok",
          webhooks: [{ key: "ops", url: rx.url, secret, events: ["VMS_HOST_CANCELLED"], auth: { scheme: "jwt" } }],
        },
      ],
    })
    expect(applied.status).toBe(200)
    const projectId = applied.body.data.projects[key].id
    const webhookId = applied.body.data.projects[key].webhooks.ops
    const clock = await t.admin("GET", "/clock")
    const now = Date.parse(clock.body.data.now)
    const data = {
      projectId,
      userId: "vms-1",
      timestamp: new Date(now).toISOString(),
      visitorName: "Vera",
      hostName: "Alice",
      hostEmail: "alice@e2e.example",
      startDateTime: "8 Jan 09:00",
      endDateTime: "8 Jan 11:00",
    }
    const published = await t.admin("POST", `/projects/${projectId}/visitor-events`, { type: "VMS_HOST_CANCELLED", data })
    expect(published.status).toBe(202)
    const id = published.body.data
    const [req] = await rx.waitFor(1)
    const verified = await verifyDelivery({
      secret,
      headers: req!.headers as never,
      rawBody: req!.rawBody,
      now: Number(req!.headers["x-service-timestamp"]),
    })
    expect(verified).toMatchObject({ ok: true, deliveryId: id })
    expect(req!.body.data).toEqual(data)

    let log: any
    for (let i = 0; i < 100; i++) {
      log = await t.admin("GET", `/webhooks/${webhookId}/deliveries`)
      if (log.body.data[0]?.state === "delivered") break
      await new Promise((r) => setTimeout(r, 50))
    }
    expect(log.body.data[0]).toMatchObject({ id, type: "VMS_HOST_CANCELLED", state: "delivered" })

    expect((await t.admin("POST", `/deliveries/${id}/redeliver`)).status).toBe(202)
    const [, again] = await rx.waitFor(2)
    expect(again!.headers["x-service-delivery"]).toBe(id)
    expect(again!.rawBody).toBe(req!.rawBody)
  })
})
