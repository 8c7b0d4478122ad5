import { sql, type SQL } from "drizzle-orm"
import { execute, type Queryable } from "./database.ts"
import type { ClockShape } from "../../core/ports/clock.ts"
import type { Config } from "../config/config.ts"
import type { Logger } from "../observability/logger.ts"
import type { Database } from "./database.ts"

const DAY_MS = 86_400_000
/** Real-time period of the sweep; a manual clock's advance also sweeps. */
const SWEEP_EVERY_MS = 10 * 60_000
const BATCH = 5000

/**
 * Deletes the rows of `table` that `where` picks, at most BATCH per statement until one deletes
 * fewer, so a large first sweep never holds one long transaction. Returns how many rows went.
 */
const deleteInBatches = async (db: Queryable, table: "webhook_deliveries" | "outbox_events", where: SQL): Promise<number> => {
  let total = 0
  for (;;) {
    const gone = await execute<{ id: string }>(
      db,
      sql`delete from ${sql.raw(table)} where id in (select id from ${sql.raw(table)} where ${where} limit ${BATCH}) returning id`,
    )
    total += gone.length
    if (gone.length < BATCH) return total
  }
}

const cutoffOf = (now: number, retentionMs: number): string => new Date(now - retentionMs).toISOString()

/**
 * Deletes finished deliveries (delivered or failed) whose last attempt was more than
 * `retentionMs` before `now` (service clock). Pending ones stay until they finish, however old.
 * Not by occurredAt: a visitor event's occurredAt is the visitor system's own timestamp, and
 * one stamped months back was deleted right after it was delivered (found by the webhook probe).
 */
export const pruneDeliveries = (db: Queryable, now: number, retentionMs: number): Promise<number> =>
  deleteInBatches(db, "webhook_deliveries", sql`state in ('delivered', 'failed') and updated_at < ${cutoffOf(now, retentionMs)}::timestamptz`)

/**
 * Deletes booking outbox events created more than `retentionMs` before `now` (service clock)
 * that the webhook relay no longer needs: an event still in its queue stays, however old. A
 * relayed event lives on in its deliveries (each carries its own signed body), so nothing reads
 * it again; without this sweep the table grew by every booking change for ever.
 */
export const pruneOutboxEvents = (db: Queryable, now: number, retentionMs: number): Promise<number> =>
  deleteInBatches(
    db,
    "outbox_events",
    sql`created_at < ${cutoffOf(now, retentionMs)}::timestamptz
        and not exists (select 1 from webhook_outbox_queue q where q.event_id = outbox_events.id)`,
  )

export interface DeliveryRetention {
  /** Sweeps now (after a manual clock advance: age is measured on the service clock). */
  readonly sweep: () => Promise<void>
  readonly stop: () => Promise<void>
}

/** What the retention loop needs of the worker that runs it. */
export interface RetentionDeps {
  readonly config: Config
  readonly clock: ClockShape
  readonly database: Database
  readonly logger: Logger
}

/**
 * The background job of KEYSPACE_WEBHOOK_RETENTION_DAYS (0 keeps everything): finished deliveries
 * and relayed outbox events; sweeps at start, every 10 minutes, and after every manual clock
 * advance, measuring age on the service clock.
 */
export const startDeliveryRetention = (s: RetentionDeps): DeliveryRetention => {
  const days = s.config.webhookRetentionDays
  if (days === 0) return { sweep: async () => {}, stop: async () => {} }
  let running: Promise<unknown> = Promise.resolve()
  const sweep = () => {
    running = running
      .then(async () => {
        const now = s.clock.now()
        const deliveries = await pruneDeliveries(s.database.db, now, days * DAY_MS)
        const events = await pruneOutboxEvents(s.database.db, now, days * DAY_MS)
        if (deliveries + events > 0) s.logger.log("info", "webhook deliveries pruned", { deleted: deliveries, outboxEvents: events, retentionDays: days })
      })
      .catch((e: unknown) => s.logger.log("warn", "webhook delivery retention failed", { error: String(e) }))
    return running.then(() => {})
  }
  const timer = setInterval(() => void sweep(), SWEEP_EVERY_MS)
  ;(timer as { unref?: () => void }).unref?.()
  void sweep()
  return {
    sweep,
    stop: async () => {
      clearInterval(timer)
      await running.catch(() => {})
    },
  }
}
