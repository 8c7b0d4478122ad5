import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { eq } from "drizzle-orm"
import { webhooksTable } from "../../../adapters/postgres/tables/identity.ts"
import { verifyDelivery } from "../../../clients/typescript/src/webhooks.ts"
import { ENGINES } from "../../support/databases.ts"
import { startHarness, type Harness } from "../../support/harness.ts"
import { SECRET, applyHooks, clockNow, deliveriesOf, eventually, hostCancelled, publish } from "./fixtures.ts"
import { startReceiver, type Receiver } from "./receiver.ts"

const AT = "2030-01-07T02:00:00.000Z"
const MIN = 60_000

describe.each(ENGINES)("webhook delivery policy on %s", (engine) => {
  let h: Harness
  beforeAll(async () => {
    h = await startHarness(engine, { KEYSPACE_ALLOW_INSECURE_WEBHOOKS: "1" })
  })
  afterAll(async () => h?.close())

  const withReceiver = async (respond: Receiver["respond"], body: (rx: Receiver) => Promise<void>) => {
    const rx = await startReceiver(respond)
    try {
      await body(rx)
    } finally {
      await rx.close()
    }
  }

  it("a failed delivery is retried with the same id after 1, 2, 4 minutes on the service clock", async () => {
    await withReceiver(
      (_r, i) => ({ status: i < 3 ? 500 : 204 }),
      async (rx) => {
        const { projectId, webhooks } = await applyHooks(h, "retry", [{ key: "ops", url: rx.url }])
        const t0 = await clockNow(h)
        const id = await publish(h, projectId, "VMS_HOST_CANCELLED", hostCancelled(projectId, AT))
        await rx.waitFor(1)
        await eventually(async () => expect((await deliveriesOf(h, webhooks.ops!)).data[0].attempts).toHaveLength(1))
        // Not due before 1 minute has passed.
        await h.admin("POST", "/clock/advance", { to: new Date(t0 + MIN / 2).toISOString() })
        expect(rx.received).toHaveLength(1)
        await h.admin("POST", "/clock/advance", { to: new Date(t0 + MIN).toISOString() })
        expect(rx.received).toHaveLength(2)
        // Second backoff: 2 minutes after the second attempt.
        await h.admin("POST", "/clock/advance", { to: new Date(t0 + 3 * MIN - 1000).toISOString() })
        expect(rx.received).toHaveLength(2)
        await h.admin("POST", "/clock/advance", { to: new Date(t0 + 3 * MIN).toISOString() })
        expect(rx.received).toHaveLength(3)
        await h.admin("POST", "/clock/advance", { to: new Date(t0 + 7 * MIN).toISOString() })
        expect(rx.received).toHaveLength(4)
        // Same id every time, each attempt signed with its own fresh timestamp.
        expect(rx.received.map((r) => r.headers["x-service-delivery"])).toEqual([id, id, id, id])
        expect(rx.received.map((r) => Number(r.headers["x-service-timestamp"]))).toEqual([t0, t0 + MIN, t0 + 3 * MIN, t0 + 7 * MIN])
        expect(new Set(rx.received.map((r) => r.rawBody)).size).toBe(1)
        for (const r of rx.received) {
          const v = await verifyDelivery({ secret: SECRET, headers: r.headers as never, rawBody: r.rawBody, now: Number(r.headers["x-service-timestamp"]) })
          expect(v.ok).toBe(true)
        }
        const log = await deliveriesOf(h, webhooks.ops!)
        expect(log.data[0]).toMatchObject({ id, state: "delivered" })
        expect(log.data[0].attempts.map((a: any) => a.statusCode)).toEqual([500, 500, 500, 204])
        expect(log.data[0].attempts.map((a: any) => Date.parse(a.time) - t0)).toEqual([0, MIN, 3 * MIN, 7 * MIN])
      },
    )
  })

  it("5 failed attempts exhaust a delivery: state failed, no 6th attempt", async () => {
    await withReceiver(
      () => ({ status: 503 }),
      async (rx) => {
        const { projectId, webhooks } = await applyHooks(h, "exhaust", [{ key: "ops", url: rx.url }])
        const id = await publish(h, projectId, "VMS_HOST_CANCELLED", hostCancelled(projectId, AT))
        await rx.waitFor(1)
        for (const [i, m] of [1, 2, 4, 8].entries()) {
          await eventually(async () => expect((await deliveriesOf(h, webhooks.ops!)).data[0].attempts).toHaveLength(i + 1))
          await h.advance(m)
        }
        expect(rx.received).toHaveLength(5)
        const log = await deliveriesOf(h, webhooks.ops!)
        expect(log.data[0]).toMatchObject({ id, state: "failed" })
        expect(log.data[0].attempts).toHaveLength(5)
        expect(log.data[0].nextAttemptAt).toBeUndefined()
        await h.advance(120)
        expect(rx.received).toHaveLength(5)
      },
    )
  })

  it("one advance past the whole backoff replays every retry at its due time: 5 attempts at 0, 1, 3, 7, 15 minutes, then failed", async () => {
    await withReceiver(
      () => ({ status: 500 }),
      async (rx) => {
        const { projectId, webhooks } = await applyHooks(h, "replay", [{ key: "ops", url: rx.url }])
        const t0 = await clockNow(h)
        const id = await publish(h, projectId, "VMS_HOST_CANCELLED", hostCancelled(projectId, AT))
        await rx.waitFor(1)
        await eventually(async () => expect((await deliveriesOf(h, webhooks.ops!)).data[0].attempts).toHaveLength(1))
        await h.advance(60)
        await eventually(async () => expect((await deliveriesOf(h, webhooks.ops!)).data[0]).toMatchObject({ id, state: "failed" }))
        const log = await deliveriesOf(h, webhooks.ops!)
        expect(log.data[0].attempts.map((a: any) => Date.parse(a.time) - t0)).toEqual([0, MIN, 3 * MIN, 7 * MIN, 15 * MIN])
        // Each signed with the clock as it stands when sent, so a receiver checking against it accepts them.
        expect(rx.received.map((r) => Number(r.headers["x-service-timestamp"]) - t0)).toEqual([0, 60 * MIN, 60 * MIN, 60 * MIN, 60 * MIN])
      },
    )
  })

  it("a receiver that does not answer within 10 s, a connection error and a redirect are failures", async () => {
    await withReceiver(
      (r) => (r.path.includes("slow") ? "hang" : { status: 302, headers: { location: "http://169.254.169.254/latest" } }),
      async (rx) => {
        const { projectId, webhooks } = await applyHooks(h, "failures", [
          { key: "slow", url: `${rx.url}?slow=1` },
          { key: "redirect", url: rx.url },
          { key: "down", url: "http://127.0.0.1:9/nothing" },
        ])
        await publish(h, projectId, "VMS_HOST_CANCELLED", hostCancelled(projectId, AT))
        const attemptOf = async (key: string) =>
          eventually(async () => {
            const a = (await deliveriesOf(h, webhooks[key]!)).data[0].attempts[0]
            expect(a).toBeDefined()
            return a
          }, 15_000)
        expect(await attemptOf("redirect")).toMatchObject({ statusCode: 302, error: "redirect not followed" })
        expect((await attemptOf("down")).error).toMatch(/connection refused/)
        const slow = await attemptOf("slow")
        expect(slow.error).toBe("timeout after 10000 ms")
        expect(slow.durationMs).toBeGreaterThanOrEqual(9_900)
        // The redirect target was never requested: only the two original requests arrived.
        expect(rx.received.every((r) => r.path.startsWith("/hook"))).toBe(true)
      },
    )
  }, 30_000)

  it("after 20 consecutive exhausted deliveries the webhook is disabled until enabled; enable resets the counter", async () => {
    await withReceiver(
      () => ({ status: 500 }),
      async (rx) => {
        const { projectId, webhooks } = await applyHooks(h, "disable", [{ key: "ops", url: rx.url }])
        const hookId = webhooks.ops!
        const row = async () => (await h.booted.services.database.db.select().from(webhooksTable).where(eq(webhooksTable.id, hookId)))[0]!
        for (let i = 0; i < 20; i++) await publish(h, projectId, "VMS_HOST_CANCELLED", hostCancelled(projectId, AT))
        await rx.waitFor(20)
        await eventually(async () => {
          const log = await deliveriesOf(h, hookId)
          expect(log.data.every((d: any) => d.attempts.length === 1)).toBe(true)
        })
        for (const m of [1, 2, 4, 8]) await h.advance(m)
        const log = await deliveriesOf(h, hookId)
        expect(log.meta.total).toBe(20)
        expect(log.data.every((d: any) => d.state === "failed")).toBe(true)
        expect(rx.received).toHaveLength(100)
        expect(await row()).toMatchObject({ enabled: false, consecutiveFailures: 20 })
        // Disabled: a new event creates no delivery for it.
        await publish(h, projectId, "VMS_HOST_CANCELLED", hostCancelled(projectId, AT))
        expect((await deliveriesOf(h, hookId)).meta.total).toBe(20)
        // Redeliver needs the webhook enabled.
        const refused = await h.admin("POST", `/deliveries/${log.data[0].id}/redeliver`)
        expect(refused.status).toBe(409)
        expect(refused.body.code).toBe("SV006")

        const enabled = await h.admin("POST", `/webhooks/${hookId}/enable`)
        expect(enabled.status).toBe(200)
        expect(enabled.body.data).toEqual({ id: hookId, enabled: true, consecutiveFailures: 0 })
        expect(await row()).toMatchObject({ enabled: true, consecutiveFailures: 0, disabledAt: null })
        rx.respond = () => ({ status: 200 })
        const id = await publish(h, projectId, "VMS_HOST_CANCELLED", hostCancelled(projectId, AT))
        await eventually(async () => expect(rx.received.at(-1)?.headers["x-service-delivery"]).toBe(id))
      },
    )
  }, 30_000)

  it("a success resets the consecutive failure counter", async () => {
    await withReceiver(
      (r) => ({ status: r.body?.data?.visitorName === "ok" ? 200 : 500 }),
      async (rx) => {
        const { projectId, webhooks } = await applyHooks(h, "reset", [{ key: "ops", url: rx.url }])
        const hookId = webhooks.ops!
        const failures = async () =>
          (await h.booted.services.database.db.select().from(webhooksTable).where(eq(webhooksTable.id, hookId)))[0]!.consecutiveFailures
        await publish(h, projectId, "VMS_HOST_CANCELLED", hostCancelled(projectId, AT))
        await rx.waitFor(1)
        for (const [i, m] of [1, 2, 4, 8].entries()) {
          await eventually(async () => expect((await deliveriesOf(h, hookId)).data[0].attempts).toHaveLength(i + 1))
          await h.advance(m)
        }
        expect(await failures()).toBe(1)
        await publish(h, projectId, "VMS_HOST_CANCELLED", { ...hostCancelled(projectId, AT), visitorName: "ok" })
        await eventually(async () => expect(await failures()).toBe(0))
      },
    )
  })

  it("redeliver sends the same delivery again under the same id, appending to its log", async () => {
    await withReceiver(
      () => ({ status: 200 }),
      async (rx) => {
        const { projectId, webhooks } = await applyHooks(h, "redeliver", [{ key: "ops", url: rx.url }])
        const id = await publish(h, projectId, "VMS_HOST_CANCELLED", hostCancelled(projectId, AT))
        await rx.waitFor(1)
        await eventually(async () => expect((await deliveriesOf(h, webhooks.ops!)).data[0].state).toBe("delivered"))
        await h.advance(3)
        const res = await h.admin("POST", `/deliveries/${id}/redeliver`)
        expect(res.status).toBe(202)
        expect(res.body.data).toMatchObject({ id, state: "pending" })
        const [first, second] = await rx.waitFor(2)
        expect(second!.headers["x-service-delivery"]).toBe(id)
        expect(second!.rawBody).toBe(first!.rawBody)
        expect(Number(second!.headers["x-service-timestamp"]) - Number(first!.headers["x-service-timestamp"])).toBe(3 * MIN)
        await eventually(async () => {
          const d = (await deliveriesOf(h, webhooks.ops!)).data[0]
          expect(d).toMatchObject({ id, state: "delivered" })
          expect(d.attempts).toHaveLength(2)
        })
      },
    )
  })

  it("a slow receiver holds at most 8 requests in flight and does not stall another receiver", async () => {
    const slow = await startReceiver(() => "hang")
    try {
      await withReceiver(
        () => ({ status: 200 }),
        async (fast) => {
          const { projectId } = await applyHooks(h, "slow-fast", [
            { key: "slow", url: slow.url },
            { key: "fast", url: fast.url },
          ])
          for (let i = 0; i < 12; i++) await publish(h, projectId, "VMS_HOST_CANCELLED", hostCancelled(projectId, AT))
          await fast.waitFor(12)
          expect(fast.received).toHaveLength(12)
          await slow.waitFor(8)
          await new Promise((r) => setTimeout(r, 300))
          // The per-registration cap: the slow one's other 4 wait for a free slot of their own.
          expect(slow.received).toHaveLength(8)
        },
      )
    } finally {
      await slow.close()
    }
  })

  it("the delivery log pages with limit and offset, newest first", async () => {
    await withReceiver(
      () => ({ status: 200 }),
      async (rx) => {
        const { projectId, webhooks } = await applyHooks(h, "paging", [{ key: "ops", url: rx.url }])
        const ids: string[] = []
        for (let i = 0; i < 5; i++) ids.push(await publish(h, projectId, "VMS_HOST_CANCELLED", hostCancelled(projectId, AT)))
        await rx.waitFor(5)
        const page = await deliveriesOf(h, webhooks.ops!, "?limit=2&offset=1")
        expect(page.meta).toEqual({ limit: 2, offset: 1, total: 5 })
        expect(page.data.map((d: any) => d.id)).toEqual([ids[3], ids[2]])
        expect((await deliveriesOf(h, webhooks.ops!, "?limit=0")).data).toEqual([])
      },
    )
  })
})
