import { and, asc, eq, inArray, isNull, lte, or, sql } from "drizzle-orm"
import {
  AUTO_DISABLE_AFTER,
  afterAttempt,
  type DeliveryState,
} from "../../core/events/delivery-policy.ts"
import type { Db } from "./database.ts"
import { webhooksTable } from "./tables/identity.ts"
import {
  webhookDeliveriesTable,
  type DeliveryAttempt,
} from "./tables/webhook-deliveries.ts"

/** Channels the dispatcher listens on (woken after commits, database.ts). */
export { OUTBOX_CHANNEL, WEBHOOK_CHANNEL } from "./outbox.ts"

export {
  insertDeliveries,
  subscribedRegistrations,
  type NewDelivery,
  type Registration,
} from "./webhook-store.ts"

/** A claimed delivery with what the sender needs from its registration. */
export interface ClaimedDelivery {
  readonly id: string
  readonly webhookId: string
  readonly projectId: string
  readonly type: string
  readonly body: string
  readonly roundAttempts: number
  /** When the attempt was due (service clock). */
  readonly dueAt: number
  readonly leaseUntil: Date
  readonly url: string
  readonly secret: string
  readonly auth: Readonly<Record<string, unknown>>
}

/**
 * Claims due deliveries of enabled registrations for this process: rows locked by another
 * claimer are skipped (SKIP LOCKED), and a claimed row carries a wall-clock lease so others
 * leave it alone while it is in flight and take it over if this process dies.
 * `room(webhookId)` says how many more this process may start for one registration.
 */
export const claimDue = async (
  db: Db,
  input: {
    readonly now: number
    readonly wallNow: number
    readonly leaseMs: number
    readonly limit: number
    readonly room: (webhookId: string) => number
  },
): Promise<ClaimedDelivery[]> => {
  if (input.limit <= 0) return []
  return db.transaction(async (tx) => {
    const d = webhookDeliveriesTable
    const candidates = await tx
      .select({
        id: d.id,
        webhookId: d.webhookId,
        projectId: d.projectId,
        type: d.type,
        body: d.body,
        roundAttempts: d.roundAttempts,
        nextAttemptAt: d.nextAttemptAt,
        url: webhooksTable.url,
        secret: webhooksTable.secret,
        auth: webhooksTable.auth,
      })
      .from(d)
      .innerJoin(webhooksTable, eq(webhooksTable.id, d.webhookId))
      .where(
        and(
          eq(d.state, "pending"),
          lte(d.nextAttemptAt, new Date(input.now)),
          or(isNull(d.leaseUntil), lte(d.leaseUntil, new Date(input.wallNow))),
          eq(webhooksTable.enabled, true),
        ),
      )
      .orderBy(asc(d.nextAttemptAt), asc(d.id))
      .limit(input.limit * 4)
      .for("update", { of: d, skipLocked: true })
    // Per-registration cap: a slow receiver holds at most its share of the slots.
    const taken = new Map<string, number>()
    const chosen: typeof candidates = []
    for (const c of candidates) {
      if (chosen.length >= input.limit) break
      const n = taken.get(c.webhookId) ?? 0
      if (n >= input.room(c.webhookId)) continue
      taken.set(c.webhookId, n + 1)
      chosen.push(c)
    }
    if (chosen.length === 0) return []
    const leaseUntil = new Date(input.wallNow + input.leaseMs)
    await tx
      .update(d)
      .set({ leaseUntil })
      .where(inArray(d.id, chosen.map((c) => c.id)))
    return chosen.map(({ nextAttemptAt, ...r }) => ({ ...r, dueAt: nextAttemptAt?.getTime() ?? input.now, leaseUntil }))
  })
}

/**
 * Records one attempt and moves the delivery on (delivered, retry later, or failed), and keeps
 * the registration's consecutive-failure counter: a success resets it, an exhausted delivery
 * raises it, and the 20th in a row disables the registration.
 */
export const recordAttempt = async (
  db: Db,
  input: {
    readonly id: string
    readonly attempt: DeliveryAttempt
    readonly success: boolean
    readonly now: number
  },
): Promise<{ state: DeliveryState; disabled: boolean } | undefined> =>
  db.transaction(async (tx) => {
    const d = webhookDeliveriesTable
    const w = webhooksTable
    if (input.success) {
      // The common case in two statements: mark delivered, reset the failure counter.
      const [done] = await tx
        .update(d)
        .set({
          attempts: sql`${d.attempts} || ${JSON.stringify([input.attempt])}::jsonb`,
          roundAttempts: sql`${d.roundAttempts} + 1`,
          state: "delivered",
          nextAttemptAt: null,
          leaseUntil: null,
          updatedAt: new Date(input.now),
        })
        .where(eq(d.id, input.id))
        .returning({ webhookId: d.webhookId })
      if (!done) return undefined
      await tx
        .update(w)
        .set({ consecutiveFailures: 0 })
        .where(and(eq(w.id, done.webhookId), sql`${w.consecutiveFailures} <> 0`))
      return { state: "delivered" as const, disabled: false }
    }
    const [row] = await tx
      .select({ webhookId: d.webhookId, state: d.state, roundAttempts: d.roundAttempts })
      .from(d)
      .where(eq(d.id, input.id))
      .for("update")
    if (!row) return undefined
    const attemptNo = row.roundAttempts + 1
    // A stale sender (its lease lapsed and another process delivered) only adds to the log.
    const outcome =
      row.state === "delivered"
        ? ({ state: "delivered" } as const)
        : afterAttempt(attemptNo, false, input.now)
    await tx
      .update(d)
      .set({
        attempts: sql`${d.attempts} || ${JSON.stringify([input.attempt])}::jsonb`,
        roundAttempts: attemptNo,
        state: outcome.state,
        nextAttemptAt: outcome.state === "pending" ? new Date(outcome.nextAttemptAt) : null,
        leaseUntil: null,
        updatedAt: new Date(input.now),
      })
      .where(eq(d.id, input.id))
    let disabled = false
    if (outcome.state === "failed" && row.state !== "failed") {
      const [updated] = await tx
        .update(w)
        .set({ consecutiveFailures: sql`${w.consecutiveFailures} + 1` })
        .where(eq(w.id, row.webhookId))
        .returning({ failures: w.consecutiveFailures, enabled: w.enabled })
      if (updated && updated.enabled && updated.failures >= AUTO_DISABLE_AFTER) {
        await tx
          .update(w)
          .set({ enabled: false, disabledAt: new Date(input.now) })
          .where(eq(w.id, row.webhookId))
        disabled = true
      }
    }
    return { state: outcome.state, disabled }
  })

export {
  enableWebhook,
  listDeliveries,
  requeueDelivery,
  type DeliveryLogEntry,
} from "./webhook-store.ts"

/** Earliest due time of pending work (service clock), for the dispatcher's sleep. */
export const nextDueAt = async (db: Db): Promise<number | undefined> => {
  const d = webhookDeliveriesTable
  const [row] = await db
    .select({ at: sql<Date | string | null>`min(${d.nextAttemptAt})` })
    .from(d)
    .innerJoin(webhooksTable, eq(webhooksTable.id, d.webhookId))
    .where(and(eq(d.state, "pending"), eq(webhooksTable.enabled, true)))
  const at = row?.at
  if (at === null || at === undefined) return undefined
  return new Date(at).getTime()
}
