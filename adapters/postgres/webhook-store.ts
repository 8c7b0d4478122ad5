import { and, asc, eq, sql } from "drizzle-orm"
import { makeEnvelope } from "../../core/events/envelope.ts"
import { wakeAfterCommit, type Queryable } from "./database.ts"
import { WEBHOOK_CHANNEL } from "./outbox.ts"
import { webhooksTable } from "./tables/identity.ts"
import { projectsTable } from "./tables/tenancy.ts"
import { webhookDeliveriesTable } from "./tables/webhook-deliveries.ts"

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
      and(
        eq(webhooksTable.projectId, projectId),
        eq(webhooksTable.enabled, true),
        sql`${webhooksTable.events} @> ${JSON.stringify([type])}::jsonb`,
      ),
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
