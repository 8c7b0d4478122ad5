import { sql } from "drizzle-orm"
import { Effect, Layer } from "effect"
import { StoredStateReader } from "../observability/gauges.ts"
import { execute } from "./database.ts"
import { countPendingTicks } from "./tick-store.ts"
import { read, SqlDatabase } from "./unit-of-work.ts"

/** Stored-state gauges (bookings by status, deliveries by state, scheduler backlog) from PostgreSQL. */
export const StoredStateReaderPostgres = Layer.effect(
  StoredStateReader,
  Effect.gen(function* () {
    const database = yield* SqlDatabase
    const readState = (now: number) =>
      read(async (db) => {
        const at = new Date(now)
        const bookings = await execute<{ status: string; n: number }>(
          db,
          sql`select status, count(*)::int as n from booking_slots group by status`,
        )
        const deliveries = await execute<{ state: string; n: number }>(
          db,
          sql`select state, count(*)::int as n from webhook_deliveries group by state`,
        )
        const [due] = await execute<{ oldest: string | Date | null }>(
          db,
          sql`select min(due_at) as oldest from scheduled_ticks where state = 'pending' and due_at <= ${at.toISOString()}`,
        )
        return {
          bookingsByStatus: Object.fromEntries(bookings.map((r) => [r.status, r.n])),
          deliveriesByState: Object.fromEntries(deliveries.map((r) => [r.state, r.n])),
          pendingTicks: await countPendingTicks(db),
          oldestDueAt: due?.oldest ? new Date(due.oldest).getTime() : undefined,
        }
      }).pipe(Effect.provideService(SqlDatabase, database))
    return StoredStateReader.of({ read: readState })
  }),
)
