import { sql } from "drizzle-orm"
import { bigserial, index, integer, jsonb, pgTable, smallint, text, uniqueIndex } from "drizzle-orm/pg-core"
import { instant, oid } from "./columns.ts"

/** One tick of a plan row (epoch milliseconds; the row gives the booking and created_at). */
export interface PlannedTick {
  readonly occurrence_index: number
  readonly kind: string
  readonly rank: number
  readonly due_ms: number
}

/**
 * Durable lifecycle ticks (spec "Scheduler ticks"), one row per (booking, kind, due time).
 * Rows are written in the same transaction as the booking change that causes them, so a
 * committed booking always has its ticks and a rolled-back one never does.
 *
 * - `state`: `pending` until a worker applies it, then `done` (also the ledger that makes a
 *   reminder at-most-once: rescheduling never re-inserts a done key), or `failed` after too
 *   many attempts.
 * - `due_at` is the tick's logical time (what the event reports); `run_at` is when a worker
 *   may next try it (equal to due_at, later after a failed attempt).
 * - `rank` orders ticks due at the same instant (core/booking/timeline.ts compareTicks).
 * - A `plan` row (kind `plan`) stands for a new single booking's whole first schedule: one row
 *   instead of five at create (the tick rows were half of a create's index entries, issue 13
 *   session 9). Its `due_at`, `run_at` and `rank` are those of its earliest tick, its `plan`
 *   column the ticks; a worker turns it into those rows before claiming anything due after it
 *   (tick-store.ts, `expandDuePlans`), so ticks still fire one by one, in due order.
 */
export const scheduledTicksTable = pgTable(
  "scheduled_ticks",
  {
    // Internal rows, never shown through the API: a sequence is cheaper than an ObjectId.
    id: bigserial("id", { mode: "number" }).primaryKey(),
    bookingId: oid("booking_id").notNull(),
    /** Occurrence of a recurring series the tick belongs to; 0 for a single booking. */
    occurrenceIndex: integer("occurrence_index").notNull().default(0),
    kind: text("kind").notNull(),
    rank: smallint("rank").notNull(),
    dueAt: instant("due_at").notNull(),
    runAt: instant("run_at").notNull(),
    state: text("state").notNull().default("pending"),
    attempts: integer("attempts").notNull().default(0),
    lastError: text("last_error"),
    firedAt: instant("fired_at"),
    createdAt: instant("created_at").notNull(),
    /** The ticks a `plan` row stands for (PlannedTick[]); null on every other row. */
    plan: jsonb("plan").$type<ReadonlyArray<PlannedTick>>(),
  },
  (t) => [
    uniqueIndex("scheduled_ticks_booking_kind_due_uq").on(t.bookingId, t.kind, t.dueAt),
    // Only pending rows are ever scanned by time: a partial index keeps it small.
    index("scheduled_ticks_pending_run_idx")
      .on(t.runAt, t.rank)
      .where(sql`state = 'pending'`),
    // The pending plans in due order: what a claim must expand first, found without a scan.
    index("scheduled_ticks_pending_plan_idx")
      .on(t.runAt, t.rank)
      .where(sql`state = 'pending' and kind = 'plan'`),
  ],
)
