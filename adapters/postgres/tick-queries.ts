import { and, asc, desc, eq, sql } from "drizzle-orm"
import type { StoredBooking } from "./booking-repo.ts"
import { execute, type Db, type Queryable, type Tx } from "./database.ts"
import { bookingSlotsTable, bookingsTable } from "./tables/bookings.ts"
import { paymentsTable } from "./tables/payments.ts"

/** The statements the scheduler's tick application (adapters/scheduler/apply-tick.ts) runs. */

/** The pending payment's end of window, if the booking has one. */
export const pendingPaymentExpiry = async (q: Queryable, bookingId: string): Promise<number | undefined> => {
  const [pending] = await q
    .select({ expiredAt: paymentsTable.expiredAt })
    .from(paymentsTable)
    .where(and(eq(paymentsTable.bookingId, bookingId), eq(paymentsTable.status, "pending")))
    .orderBy(desc(paymentsTable.createdAt))
    .limit(1)
  return pending?.expiredAt.getTime()
}

/**
 * The booking with its slots, its row locked with SKIP LOCKED; "busy" when another
 * transaction holds it, "gone" when it does not exist.
 */
export const lockBookingForTick = async (tx: Tx, bookingId: string): Promise<StoredBooking | "busy" | "gone"> => {
  const [row] = await tx.select().from(bookingsTable).where(eq(bookingsTable.id, bookingId)).for("update", { skipLocked: true })
  if (row === undefined) {
    const exists = await execute(tx, sql`select 1 from bookings where id = ${bookingId}`)
    return exists.length > 0 ? "busy" : "gone"
  }
  const slots = await tx
    .select()
    .from(bookingSlotsTable)
    .where(eq(bookingSlotsTable.bookingId, row.id))
    .orderBy(asc(bookingSlotsTable.occurrenceIndex))
  return { row, slots }
}

/** One page of bookings with pending ticks (due before `due`, when given), after `after`. */
export const bookingsWithPendingTicks = async (db: Db, after: string, due: string | undefined): Promise<string[]> => {
  const rows = await execute<{ booking_id: string }>(
    db,
    due === undefined
      ? sql`select distinct booking_id from scheduled_ticks
            where state = 'pending' and booking_id > ${after} order by booking_id limit 500`
      : sql`select distinct booking_id from scheduled_ticks
            where state = 'pending' and run_at <= ${due}::timestamptz and booking_id > ${after}
            order by booking_id limit 500`,
  )
  return rows.map((r) => r.booking_id)
}
