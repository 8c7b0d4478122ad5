import { afterAll, beforeAll, describe, expect, it, vi } from "vitest"
import { startHarness, type Harness } from "../../support/harness.ts"
import { SECRET, applyHooks, deliveriesOf, eventually, inviteSent, publish } from "./fixtures.ts"
import { startReceiver, type Receiver } from "./receiver.ts"

describe("webhook logs", () => {
  let h: Harness
  let rx: Receiver
  const lines: string[] = []
  beforeAll(async () => {
    vi.spyOn(console, "log").mockImplementation((...args: unknown[]) => {
      lines.push(args.map(String).join(" "))
    })
    h = await startHarness("pglite", { KEYSPACE_ALLOW_INSECURE_WEBHOOKS: "1", KEYSPACE_LOG_LEVEL: "debug" })
    rx = await startReceiver((_r, i) => ({ status: i === 0 ? 500 : 200 }))
  })
  afterAll(async () => {
    await rx?.close()
    await h?.close()
    vi.restoreAllMocks()
  })

  it("never contain qrCardCode, the shared secret, bearer tokens or custom header values", async () => {
    const { projectId, webhooks } = await applyHooks(h, "logs", [
      { key: "bearer", url: rx.url, auth: { scheme: "bearer", token: "static-token-XYZ" } },
      { key: "custom", url: `${rx.url}?k=query-secret`, auth: { scheme: "custom-header", headers: [{ name: "X-Key", value: "header-secret-XYZ" }] } },
    ])
    await publish(h, projectId, "VMS_INVITE_SENT", inviteSent(projectId, "2030-01-07T02:00:00.000Z"))
    await rx.waitFor(2)
    await eventually(async () => expect((await deliveriesOf(h, webhooks.custom!)).data[0].attempts.length).toBeGreaterThan(0))
    await h.advance(1)
    await eventually(async () => {
      for (const id of Object.values(webhooks)) expect((await deliveriesOf(h, id)).data[0].state).toBe("delivered")
    })
    const log = lines.join("\n")
    expect(log).toContain("webhook attempt")
    for (const secret of ["QR-SECRET-4711", SECRET, "static-token-XYZ", "header-secret-XYZ", "query-secret"])
      expect(log).not.toContain(secret)
  })
})
