import { and, asc, count, desc, eq, lt, sql } from "drizzle-orm"
import { Effect, Layer } from "effect"
import type { DeliveryState } from "../../core/events/delivery-policy.ts"
import { WebhookStore, type DeliveryLogEntry, type WebhookState } from "../../core/ports/webhook-store.ts"
import { NotFound, StateConflict } from "../../core/shared/errors.ts"
import { inTx, query, read, SqlDatabase } from "./unit-of-work.ts"
import { makeEnvelope } from "../../core/events/envelope.ts"
import { wakeAfterCommit, type Queryable } from "./database.ts"
import { WEBHOOK_CHANNEL } from "./outbox.ts"
import { webhooksTable } from "./tables/identity.ts"
import { projectsTable } from "./tables/tenancy.ts"
import { webhookDeliveriesTable } from "./tables/webhook-deliveries.ts"

export type { DeliveryLogEntry }

/**
 * Webhook registrations and deliveries as the outbox relay, visitor events and the operator's
 * delivery log use them.
 */

export interface Registration {
  readonly id: string
  readonly projectId: string
}

/** Enabled registrations of a project subscribed to `type`, oldest first. */
export const subscribedRegistrations = async (
  q: Queryable,
  projectId: string,
  type: string,
): Promise<Registration[]> =>
  q
    .select({ id: webhooksTable.id, projectId: webhooksTable.projectId })
    .from(webhooksTable)
    .where(
      // The subscription rule is the database's (migration 0013), shared with the outbox trigger.
      and(eq(webhooksTable.projectId, projectId), sql`webhook_wants(${webhooksTable}, ${type}::text)`),
    )
    .orderBy(asc(webhooksTable.id))

export interface NewDelivery {
  readonly id: string
  readonly webhookId: string
  readonly projectId: string
  readonly type: string
  readonly eventId: string
  readonly body: string
  readonly occurredAt: number
  /** Service clock: due at once. */
  readonly now: number
}

/**
 * Inserts deliveries in the caller's transaction and notifies listeners at commit. A second
 * insert for the same (event, registration) is ignored, so a relay that retries is harmless.
 */
export const insertDeliveries = async (q: Queryable, rows: ReadonlyArray<NewDelivery>) => {
  if (rows.length === 0) return
  await q
    .insert(webhookDeliveriesTable)
    .values(
      rows.map((r) => ({
        id: r.id,
        webhookId: r.webhookId,
        projectId: r.projectId,
        type: r.type,
        eventId: r.eventId,
        body: r.body,
        state: "pending",
        nextAttemptAt: new Date(r.now),
        occurredAt: new Date(r.occurredAt),
        createdAt: new Date(r.now),
        updatedAt: new Date(r.now),
      })),
    )
    .onConflictDoNothing({
      target: [webhookDeliveriesTable.eventId, webhookDeliveriesTable.webhookId],
    })
  wakeAfterCommit(q, WEBHOOK_CHANNEL)
}


export interface FanOutInput {
  readonly eventId: string
  readonly projectId: string
  readonly type: string
  readonly occurredAt: number
  readonly data: unknown
}

/**
 * Fan-out: an event becomes one delivery per enabled registration of its project subscribed to
 * its type. Each delivery has its own id (the envelope id and X-Service-Delivery), fixed here
 * and never changed by retries, so the envelope is serialized once and stored as sent. The
 * first registration's delivery takes the event id as its id, so a publisher with one
 * subscriber can match its receipt to the delivery.
 */
export const deliveriesFor = async (
  q: Queryable,
  deps: { readonly now: number; readonly newId: () => string },
  input: FanOutInput,
): Promise<NewDelivery[]> => {
  const registrations = await subscribedRegistrations(q, input.projectId, input.type)
  return registrations.map((r, i) => {
    const id = i === 0 ? input.eventId : deps.newId()
    const envelope = makeEnvelope({
      id,
      type: input.type,
      occurredAt: input.occurredAt,
      projectId: input.projectId,
      data: input.data,
    })
    return {
      id,
      webhookId: r.id,
      projectId: input.projectId,
      type: input.type,
      eventId: input.eventId,
      body: JSON.stringify(envelope),
      occurredAt: input.occurredAt,
      now: deps.now,
    }
  })
}

/** Whether the project exists (visitor events name it in the path). */
export const projectExists = async (q: Queryable, projectId: string): Promise<boolean> => {
  const [project] = await q.select({ id: projectsTable.id }).from(projectsTable).where(eq(projectsTable.id, projectId))
  return project !== undefined
}

const logEntry = (r: typeof webhookDeliveriesTable.$inferSelect): DeliveryLogEntry => ({
  id: r.id,
  webhookId: r.webhookId,
  type: r.type,
  state: r.state as DeliveryState,
  attempts: r.attempts,
  occurredAt: r.occurredAt.toISOString(),
  createdAt: r.createdAt.toISOString(),
  ...(r.state === "pending" && r.nextAttemptAt
    ? { nextAttemptAt: r.nextAttemptAt.toISOString() }
    : {}),
})

const requireWebhook = async (q: Queryable, webhookId: string) => {
  const [w] = await q
    .select({ id: webhooksTable.id, enabled: webhooksTable.enabled })
    .from(webhooksTable)
    .where(eq(webhooksTable.id, webhookId))
  if (!w) throw new NotFound({ entity: "webhook", id: webhookId })
  return w
}

/** The delivery log of one registration, newest first. */
export const listDeliveries = async (
  db: Queryable,
  webhookId: string,
  page: { readonly limit: number; readonly offset: number },
): Promise<{ rows: DeliveryLogEntry[]; total: number }> => {
  await requireWebhook(db, webhookId)
  const d = webhookDeliveriesTable
  const [{ total } = { total: 0 }] = await db
    .select({ total: count() })
    .from(d)
    .where(eq(d.webhookId, webhookId))
  const rows =
    page.limit === 0
      ? []
      : await db
          .select()
          .from(d)
          .where(eq(d.webhookId, webhookId))
          .orderBy(desc(d.createdAt), desc(d.id))
          .limit(page.limit)
          .offset(page.offset)
  return { rows: rows.map(logEntry), total: Number(total) }
}

/**
 * Queues a delivery again under the same id with a fresh budget of attempts; its log keeps
 * the earlier attempts. A disabled registration must be enabled first.
 */
export const requeueDelivery = async (
  tx: Queryable,
  id: string,
  now: number,
): Promise<DeliveryLogEntry> => {
    const d = webhookDeliveriesTable
    const [row] = await tx.select().from(d).where(eq(d.id, id)).for("update")
    if (!row) throw new NotFound({ entity: "delivery", id })
    const w = await requireWebhook(tx, row.webhookId)
    if (!w.enabled)
      throw new StateConflict({ reason: "the webhook is disabled; enable it before redelivering" })
    const [updated] = await tx
      .update(d)
      .set({
        state: "pending",
        roundAttempts: 0,
        nextAttemptAt: new Date(now),
        leaseUntil: null,
        updatedAt: new Date(now),
      })
      .where(eq(d.id, id))
      .returning()
    wakeAfterCommit(tx, WEBHOOK_CHANNEL)
    return logEntry(updated!)
}

/**
 * Re-enables a registration and resets its failure counter; paused deliveries resume from now
 * (their attempts are not replayed into the time the registration was off).
 */
export const enableWebhook = async (tx: Queryable, webhookId: string, now: number): Promise<WebhookState> => {
    await requireWebhook(tx, webhookId)
    const d = webhookDeliveriesTable
    await tx
      .update(d)
      .set({ nextAttemptAt: new Date(now) })
      .where(and(eq(d.webhookId, webhookId), eq(d.state, "pending"), lt(d.nextAttemptAt, new Date(now))))
    const [w] = await tx
      .update(webhooksTable)
      .set({ enabled: true, consecutiveFailures: 0, disabledAt: null, updatedAt: new Date(now) })
      .where(eq(webhooksTable.id, webhookId))
      .returning({
        id: webhooksTable.id,
        enabled: webhooksTable.enabled,
        consecutiveFailures: webhooksTable.consecutiveFailures,
      })
    wakeAfterCommit(tx, WEBHOOK_CHANNEL)
    return w!
}


/** Domain failures thrown by the functions above stay typed; driver errors die. */
const domainOr = (e: { readonly cause: unknown }) =>
  e.cause instanceof NotFound || e.cause instanceof StateConflict ? Effect.fail(e.cause) : Effect.die(e.cause)

/** The WebhookStore port over webhooks and webhook_deliveries. */
export const WebhookStorePostgres = Layer.effect(
  WebhookStore,
  Effect.gen(function* () {
    const database = yield* SqlDatabase
    return WebhookStore.of({
      projectExists: (projectId) =>
        read((q) => projectExists(q, projectId)).pipe(Effect.provideService(SqlDatabase, database)),
      deliveries: (webhookId, page) =>
        query((q) => listDeliveries(q, webhookId, page)).pipe(
          Effect.catchTag("DatabaseError", (e) => domainOr(e) as Effect.Effect<never, NotFound>),
          Effect.provideService(SqlDatabase, database),
        ),
      requeue: (id, now) =>
        inTx("WebhookStore.requeue", (tx) => requeueDelivery(tx, id, now)).pipe(
          Effect.catchTag("DatabaseError", (e) => domainOr(e) as Effect.Effect<never, NotFound | StateConflict>),
        ),
      enable: (webhookId, now) =>
        inTx("WebhookStore.enable", (tx) => enableWebhook(tx, webhookId, now)).pipe(
          Effect.catchTag("DatabaseError", (e) => domainOr(e) as Effect.Effect<never, NotFound>),
        ),
    })
  }),
)
