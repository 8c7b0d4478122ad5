import { index, integer, jsonb, pgTable, text, uniqueIndex } from "drizzle-orm/pg-core"
import { instant, oid, timestamps } from "./columns.ts"
import { webhooksTable } from "./identity.ts"

/** One attempt of a delivery, as the delivery log shows it. */
export interface DeliveryAttempt {
  /** ISO 8601, service clock. */
  readonly time: string
  /** The receiver's HTTP status, when it answered at all. */
  readonly statusCode?: number
  /** Why the attempt failed (timeout, refused address, connection error, redirect). */
  readonly error?: string
  readonly durationMs: number
}

/**
 * One row per (event, registration): the unit the dispatcher sends, retries and logs. The id is
 * the envelope id and X-Service-Delivery; it never changes across retries or redelivery.
 */
export const webhookDeliveriesTable = pgTable(
  "webhook_deliveries",
  {
    id: oid("id").primaryKey(),
    webhookId: oid("webhook_id")
      .notNull()
      .references(() => webhooksTable.id, { onDelete: "cascade" }),
    projectId: oid("project_id").notNull(),
    type: text("type").notNull(),
    /**
     * The event this delivery carries (outbox event id, or the visitor event id), so a relay
     * that runs twice cannot create a second delivery for the same registration.
     */
    eventId: text("event_id").notNull(),
    /** The serialized envelope: exactly the bytes that are signed and sent. */
    body: text("body").notNull(),
    /** `pending`, `delivered` or `failed`. */
    state: text("state").notNull().default("pending"),
    attempts: jsonb("attempts").$type<DeliveryAttempt[]>().notNull().default([]),
    /** Attempts since the delivery was (re)queued; 5 exhaust it. */
    roundAttempts: integer("round_attempts").notNull().default(0),
    /** Service clock: when the next attempt is due (pending only). */
    nextAttemptAt: instant("next_attempt_at"),
    /**
     * Wall clock: a process that claimed the row owns it until then. Real time, not the service
     * clock, because it guards against a dead process and a manual clock never moves by itself.
     */
    leaseUntil: instant("lease_until"),
    occurredAt: instant("occurred_at").notNull(),
    ...timestamps,
  },
  (t) => [
    uniqueIndex("webhook_deliveries_event_webhook_uq").on(t.eventId, t.webhookId),
    index("webhook_deliveries_due_idx").on(t.state, t.nextAttemptAt),
    index("webhook_deliveries_webhook_idx").on(t.webhookId, t.id),
  ],
)

/**
 * Booking outbox events not yet turned into deliveries. A trigger on outbox_events (custom
 * migration `webhook-outbox-trigger`) inserts one row per event in the transaction that writes
 * the event, so the relay reads a queue as small as its backlog instead of anti-joining the
 * whole outbox, and the outbox table stays owned by bookings. The relay deletes a row in the
 * transaction that inserts its deliveries: nothing is lost or relayed twice.
 */
export const webhookOutboxQueueTable = pgTable("webhook_outbox_queue", {
  eventId: oid("event_id").primaryKey(),
  createdAt: instant("created_at").notNull(),
})
