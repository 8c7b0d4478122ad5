import { eq } from "drizzle-orm"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { webhooksTable } from "../../../adapters/postgres/tables/identity.ts"
import { verifyDelivery } from "../../../clients/typescript/src/webhooks.ts"
import { startHarness, type Harness } from "../../support/harness.ts"
import { SECRET, applyHooks, clockNow, deliveriesOf, eventually, hostCancelled, publish, webhookManifest } from "./fixtures.ts"
import { makeTestCertificate, startHttpsReceiver, startReceiver, type Receiver, type TestCertificate } from "./receiver.ts"

const AT = "2030-01-07T02:00:00.000Z"

const firstAttempt = (h: Harness, webhookId: string) =>
  eventually(async () => {
    const a = (await deliveriesOf(h, webhookId)).data[0]?.attempts[0]
    expect(a).toBeDefined()
    return a
  })

/**
 * Registers each URL as its own webhook, publishes one event, returns each first attempt.
 * `bypass` writes the URLs straight into the table after registering a harmless one, to
 * reach the send-time guard with targets the manifest refuses (an older registration, or a
 * flag turned off since).
 */
const attemptsFor = async (h: Harness, projectKey: string, urls: Record<string, string>, bypass = false) => {
  const { projectId, webhooks } = await applyHooks(
    h,
    projectKey,
    Object.keys(urls).map((key) => ({ key, url: bypass ? `https://hooks.example/${key}` : urls[key]! })),
  )
  if (bypass)
    for (const [key, url] of Object.entries(urls))
      await h.booted.services.database.db.update(webhooksTable).set({ url }).where(eq(webhooksTable.id, webhooks[key]!))
  await publish(h, projectId, "VMS_HOST_CANCELLED", hostCancelled(projectId, AT))
  const out: Record<string, any> = {}
  for (const key of Object.keys(urls)) out[key] = await firstAttempt(h, webhooks[key]!)
  return out
}

describe("webhook targets without KEYSPACE_ALLOW_INSECURE_WEBHOOKS", () => {
  let h: Harness
  let rx: Receiver
  beforeAll(async () => {
    h = await startHarness("pglite")
    rx = await startReceiver()
  })
  afterAll(async () => {
    await rx?.close()
    await h?.close()
  })

  it("the manifest refuses http:// and private, loopback, link-local or metadata IP targets (400 SV001)", async () => {
    const urls = [
      rx.url,
      `https://127.0.0.1:${rx.port}/hook`,
      "https://10.1.2.3/hook",
      "https://169.254.169.254/latest/meta-data",
      "https://[::1]/hook",
      "https://100.64.0.1/hook",
    ]
    const res = await h.admin("PUT", "/manifest", webhookManifest("refused", urls.map((url, i) => ({ key: `w${i}`, url }))))
    expect(res.status).toBe(400)
    expect(res.body.code).toBe("SV001")
    expect(res.body.message).toEqual([
      "projects.0.webhooks.0.url: must be an https:// address (KEYSPACE_ALLOW_INSECURE_WEBHOOKS=1 admits http:// on loopback)",
      "projects.0.webhooks.1.url: must not be a loopback address",
      "projects.0.webhooks.2.url: must not be a private address",
      "projects.0.webhooks.3.url: must not be a link-local address",
      "projects.0.webhooks.4.url: must not be a loopback address",
      "projects.0.webhooks.5.url: must not be a shared address",
    ])
  })

  it("at send time, http:// is refused: https only", async () => {
    const a = await attemptsFor(h, "https-only", { plain: rx.url }, true)
    expect(a.plain).toMatchObject({ error: "refused: only https:// targets are accepted" })
    expect(a.plain.statusCode).toBeUndefined()
    expect(rx.received).toHaveLength(0)
  })

  it("at send time, a host name is judged on the address it resolves to now (localhost is loopback)", async () => {
    const a = await attemptsFor(h, "resolve", { name: `https://localhost:${rx.port}/hook` })
    expect(a.name.error).toMatch(/^refused: (127\.0\.0\.1|::1) is a loopback address$/)
    expect(rx.received).toHaveLength(0)
  })

  it("at send time, loopback, private, link-local (metadata), CGNAT, unique-local and unspecified addresses are refused", async () => {
    const a = await attemptsFor(
      h,
      "ssrf",
      {
        loop: `https://127.0.0.1:${rx.port}/hook`,
        ten: "https://10.1.2.3/hook",
        one72: "https://172.16.5.4/hook",
        one92: "https://192.168.1.10/hook",
        meta: "https://169.254.169.254/latest/meta-data",
        cgnat: "https://100.64.0.1/hook",
        v6loop: "https://[::1]/hook",
        v6ula: "https://[fd12:3456::1]/hook",
        v6mapped: "https://[::ffff:10.0.0.1]/hook",
        zero: "https://0.0.0.0/hook",
      },
      true,
    )
    expect(a.loop.error).toBe("refused: 127.0.0.1 is a loopback address")
    expect(a.ten.error).toBe("refused: 10.1.2.3 is a private address")
    expect(a.one72.error).toBe("refused: 172.16.5.4 is a private address")
    expect(a.one92.error).toBe("refused: 192.168.1.10 is a private address")
    expect(a.meta.error).toBe("refused: 169.254.169.254 is a link-local address")
    expect(a.cgnat.error).toBe("refused: 100.64.0.1 is a shared address")
    expect(a.v6loop.error).toBe("refused: ::1 is a loopback address")
    expect(a.v6ula.error).toBe("refused: fd12:3456::1 is a unique-local address")
    expect(a.v6mapped.error).toMatch(/is a private address$/)
    expect(a.zero.error).toBe("refused: 0.0.0.0 is a unspecified address")
    expect(rx.received).toHaveLength(0)
  })

  it("a refused target is retried like any failure (the address may change), then fails", async () => {
    const { projectId, webhooks } = await applyHooks(h, "ssrf-retry", [{ key: "ops", url: `https://localhost:${rx.port}/hook` }])
    await publish(h, projectId, "VMS_HOST_CANCELLED", hostCancelled(projectId, AT))
    await firstAttempt(h, webhooks.ops!)
    for (const m of [1, 2, 4, 8]) await h.advance(m)
    const d = (await deliveriesOf(h, webhooks.ops!)).data[0]
    expect(d.state).toBe("failed")
    expect(d.attempts).toHaveLength(5)
  })
})

describe("webhook targets with KEYSPACE_ALLOW_INSECURE_WEBHOOKS=1", () => {
  let h: Harness
  let rx: Receiver
  beforeAll(async () => {
    h = await startHarness("pglite", { KEYSPACE_ALLOW_INSECURE_WEBHOOKS: "1" })
    rx = await startReceiver()
  })
  afterAll(async () => {
    await rx?.close()
    await h?.close()
  })

  it("http:// on loopback (address or localhost) is admitted", async () => {
    const a = await attemptsFor(h, "dev-loop", {
      ip: rx.url,
      name: `http://localhost:${rx.port}/hook`,
    })
    expect(a.ip.statusCode).toBe(200)
    expect(a.name.statusCode).toBe(200)
  })

  it("private and metadata addresses stay refused, and http:// off loopback too", async () => {
    const urls = ["https://10.1.2.3/hook", "http://169.254.169.254/latest/meta-data", "http://93.184.216.34/hook"]
    const res = await h.admin("PUT", "/manifest", webhookManifest("dev-refused", urls.map((url, i) => ({ key: `w${i}`, url }))))
    expect(res.body.message).toEqual([
      "projects.0.webhooks.0.url: must not be a private address",
      "projects.0.webhooks.1.url: plain http:// is accepted only on loopback",
      "projects.0.webhooks.2.url: plain http:// is accepted only on loopback",
    ])
    const a = await attemptsFor(
      h,
      "dev-ssrf",
      {
        ten: "https://10.1.2.3/hook",
        meta: "http://169.254.169.254/latest/meta-data",
        public_http: "http://93.184.216.34/hook",
      },
      true,
    )
    expect(a.ten.error).toBe("refused: 10.1.2.3 is a private address")
    expect(a.meta.error).toBe("refused: 169.254.169.254 is a link-local address")
    expect(a["public_http"].error).toBe("refused: http:// is accepted only on loopback")
  })
})

describe("an HTTPS receiver with a test certificate", () => {
  let cert: TestCertificate
  let rx: Receiver
  beforeAll(async () => {
    cert = makeTestCertificate()
    rx = await startHttpsReceiver(cert)
  })
  afterAll(async () => {
    await rx?.close()
    cert?.cleanup()
  })

  it("is delivered over TLS when KEYSPACE_WEBHOOK_CA_FILE trusts its CA, signature verified", async () => {
    const h = await startHarness("pglite", { KEYSPACE_ALLOW_INSECURE_WEBHOOKS: "1", KEYSPACE_WEBHOOK_CA_FILE: cert.certFile })
    try {
      const { projectId, webhooks } = await applyHooks(h, "tls", [{ key: "ops", url: rx.url }])
      expect(rx.url).toMatch(/^https:\/\/localhost:\d+\/hook$/)
      const id = await publish(h, projectId, "VMS_HOST_CANCELLED", hostCancelled(projectId, AT))
      const [req] = await rx.waitFor(1)
      expect(req!.headers["x-service-delivery"]).toBe(id)
      expect(req!.headers["host"]).toBe(`localhost:${rx.port}`)
      const v = await verifyDelivery({ secret: SECRET, headers: req!.headers as never, rawBody: req!.rawBody, now: await clockNow(h) })
      expect(v.ok).toBe(true)
      expect(await firstAttempt(h, webhooks.ops!)).toMatchObject({ statusCode: 200 })
    } finally {
      await h.close()
    }
  })

  it("fails certificate verification without the CA (no insecure fallback)", async () => {
    const h = await startHarness("pglite", { KEYSPACE_ALLOW_INSECURE_WEBHOOKS: "1" })
    try {
      const before = rx.received.length
      const { projectId, webhooks } = await applyHooks(h, "tls-untrusted", [{ key: "ops", url: rx.url }])
      await publish(h, projectId, "VMS_HOST_CANCELLED", hostCancelled(projectId, AT))
      expect((await firstAttempt(h, webhooks.ops!)).error).toMatch(/^tls: (DEPTH_ZERO_SELF_SIGNED_CERT|SELF_SIGNED_CERT_IN_CHAIN)/)
      expect(rx.received.length).toBe(before)
    } finally {
      await h.close()
    }
  })
})
