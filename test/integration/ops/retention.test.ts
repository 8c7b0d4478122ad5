import { sql } from "drizzle-orm"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { execute, type Queryable } from "../../../adapters/postgres/database.ts"
import { pruneOutboxEvents } from "../../../adapters/postgres/delivery-retention.ts"
import { ENGINES } from "../../support/databases.ts"
import { startHarness, type Harness } from "../../support/harness.ts"
import { applyHooks, deliveriesOf, eventually, inviteSent, publish, webhookManifest } from "../webhooks/fixtures.ts"
import { startReceiver, type Receiver } from "../webhooks/receiver.ts"

/** Issue 15, point 6: webhook delivery rows and registrations do not live forever; nor do relayed outbox events (issue 13, session 11). */
describe.each(ENGINES)("retention of webhook deliveries and registrations on %s", (engine) => {
  let h: Harness
  let receiver: Receiver
  beforeAll(async () => {
    receiver = await startReceiver()
    h = await startHarness(engine, { KEYSPACE_ALLOW_INSECURE_WEBHOOKS: "1", KEYSPACE_WEBHOOK_RETENTION_DAYS: "7" })
  })
  afterAll(async () => {
    await h?.close()
    await receiver?.close()
  })

  it("finished deliveries older than KEYSPACE_WEBHOOK_RETENTION_DAYS are removed as the service clock moves", async () => {
    const { projectId, webhooks } = await applyHooks(h, "retain", [{ key: "ops", url: receiver.url }])
    const nowIso = () => h.admin("GET", "/clock").then((r) => r.body.data.now as string)
    await publish(h, projectId, "VMS_INVITE_SENT", inviteSent(projectId, await nowIso()))
    await publish(h, projectId, "VMS_INVITE_SENT", inviteSent(projectId, await nowIso()))
    await eventually(async () => {
      const rows = (await deliveriesOf(h, webhooks.ops!)).data
      expect(rows.map((d: { state: string }) => d.state)).toEqual(["delivered", "delivered"])
    })

    await h.advance(6 * 24 * 60) // six days: still within the retention
    await publish(h, projectId, "VMS_INVITE_SENT", inviteSent(projectId, await nowIso()))
    await eventually(async () => {
      const rows = (await deliveriesOf(h, webhooks.ops!)).data
      expect(rows.map((d: { state: string }) => d.state)).toEqual(["delivered", "delivered", "delivered"])
    })

    await h.advance(2 * 24 * 60) // the first two are now eight days old, the third two
    const left = (await deliveriesOf(h, webhooks.ops!)).data
    expect(left).toHaveLength(1)
    expect(Date.parse(left[0].occurredAt)).toBeGreaterThan(Date.parse(await nowIso()) - 7 * 86_400_000)
  })

  it("a delivery is kept for KEYSPACE_WEBHOOK_RETENTION_DAYS after its last attempt, however long before that its event occurred", async () => {
    const { projectId, webhooks } = await applyHooks(h, "retain-old", [{ key: "ops", url: receiver.url }])
    const now = Date.parse((await h.admin("GET", "/clock")).body.data.now)
    // A visitor system publishing late: its timestamp is a year back.
    await publish(h, projectId, "VMS_INVITE_SENT", inviteSent(projectId, new Date(now - 365 * 86_400_000).toISOString()))
    await eventually(async () => {
      const rows = (await deliveriesOf(h, webhooks.ops!)).data
      expect(rows.map((d: { state: string }) => d.state)).toEqual(["delivered"])
    })
    await h.advance(6 * 24 * 60)
    expect((await deliveriesOf(h, webhooks.ops!)).data).toHaveLength(1)
    await h.advance(2 * 24 * 60)
    expect((await deliveriesOf(h, webhooks.ops!)).data).toHaveLength(0)
  })

  /** A booking outbox event of a project nobody subscribes to, created at `at` (ISO). */
  const outboxEvent = (id: string, at: string) =>
    execute(
      h.booted.services.database.db,
      sql`insert into outbox_events (id, project_id, booking_id, type, payload, occurred_at, created_at)
          values (${id}, 'retention-project', null, 'ROOM_BOOK', '{}'::jsonb, ${at}::timestamptz, ${at}::timestamptz)`,
    )
  const outboxIds = async (ids: string[], q: Queryable = h.booted.services.database.db) =>
    (
      await execute<{ id: string }>(
        q,
        sql`select id from outbox_events where id in (${sql.join(ids.map((i) => sql`${i}`), sql`, `)}) order by id`,
      )
    ).map((r) => r.id)

  it("relayed booking outbox events older than KEYSPACE_WEBHOOK_RETENTION_DAYS are removed; one still queued for the relay stays", async () => {
    const db = h.booted.services.database.db
    const now = Date.parse((await h.admin("GET", "/clock")).body.data.now)
    const daysAgo = (d: number) => new Date(now - d * 86_400_000).toISOString()
    await outboxEvent("0000000000000000000000e1", daysAgo(10))
    await outboxEvent("0000000000000000000000e2", daysAgo(10))
    await outboxEvent("0000000000000000000000e3", daysAgo(1))
    const all = ["0000000000000000000000e1", "0000000000000000000000e2", "0000000000000000000000e3"]

    // The queue row and the prune in one transaction, rolled back: the running relay would drop
    // a queued event nobody subscribes to before the prune could see it.
    const rolledBack = new Error("rolled back")
    const seen = await db
      .transaction(async (tx) => {
        await execute(tx, sql`insert into webhook_outbox_queue (event_id, created_at) values ('0000000000000000000000e2', ${daysAgo(10)}::timestamptz)`)
        const pruned = await pruneOutboxEvents(tx, now, 7 * 86_400_000)
        const left = await outboxIds(all, tx)
        throw Object.assign(rolledBack, { pruned, left })
      })
      .catch((e: unknown) => e as { pruned: number; left: string[] })
    expect(seen).toMatchObject({ pruned: 1, left: ["0000000000000000000000e2", "0000000000000000000000e3"] })
    expect(await outboxIds(all)).toEqual(all)
  })

  it("the retention sweep removes relayed outbox events as the service clock moves", async () => {
    await outboxEvent("0000000000000000000000e4", (await h.admin("GET", "/clock")).body.data.now)
    await h.advance(6 * 24 * 60)
    expect(await outboxIds(["0000000000000000000000e4"])).toEqual(["0000000000000000000000e4"])
    await h.advance(2 * 24 * 60)
    expect(await outboxIds(["0000000000000000000000e4"])).toEqual([])
  })

  it("the manifest disables, re-enables and removes a webhook explicitly", async () => {
    const hook = { key: "gone", url: receiver.url }
    const { projectId, webhooks } = await applyHooks(h, "prune", [hook])
    const base = webhookManifest("prune", [hook])
    const project = base.projects![0]!

    await h.applyManifest({ projects: [{ ...project, webhooks: [{ ...project.webhooks![0]!, enabled: false }] }] })
    const before = receiver.received.length
    const now = (await h.admin("GET", "/clock")).body.data.now as string
    await publish(h, projectId, "VMS_INVITE_SENT", inviteSent(projectId, now))
    expect((await deliveriesOf(h, webhooks.gone!)).data).toHaveLength(0) // disabled: no delivery made
    expect(receiver.received.length).toBe(before)

    // Omitting `enabled` leaves it as it is; true enables it again.
    await h.applyManifest(base)
    await publish(h, projectId, "VMS_INVITE_SENT", inviteSent(projectId, now))
    expect((await deliveriesOf(h, webhooks.gone!)).data).toHaveLength(0)
    await h.applyManifest({ projects: [{ ...project, webhooks: [{ ...project.webhooks![0]!, enabled: true }] }] })
    await publish(h, projectId, "VMS_INVITE_SENT", inviteSent(projectId, now))
    await eventually(async () => expect((await deliveriesOf(h, webhooks.gone!)).data).toHaveLength(1))

    const removed = await h.applyManifest({ projects: [{ ...project, webhooks: [], removedWebhooks: ["gone"] }] })
    expect(removed.projects.prune.webhooks).toEqual({})
    expect((await h.admin("GET", `/webhooks/${webhooks.gone}/deliveries`)).status).toBe(404)
    // Idempotent: removing what is gone changes nothing.
    expect((await h.admin("PUT", "/manifest", { projects: [{ ...project, webhooks: [], removedWebhooks: ["gone"] }] })).status).toBe(200)
  })

  it("a key both kept and removed is 400 SV001", async () => {
    const project = webhookManifest("both", [{ key: "x", url: receiver.url }]).projects![0]!
    const res = await h.admin("PUT", "/manifest", { projects: [{ ...project, removedWebhooks: ["x"] }] })
    expect(res.status).toBe(400)
    expect(res.body.code).toBe("SV001")
  })
})
