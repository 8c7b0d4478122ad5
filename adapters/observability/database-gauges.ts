import { sql } from "drizzle-orm"
import { execute } from "../postgres/database.ts"
import type { Services } from "../wiring/services.ts"

/**
 * Gauges read from the database at scrape time: current bookings by status, deliveries by
 * state, and the scheduler backlog. They need no call sites in the booking, webhook or
 * scheduler code and stay right across restarts; the event counters in metrics.ts complement
 * them. A failing query leaves the previous values and is logged, never failing the scrape.
 */
export const refreshDatabaseGauges = async (s: Services): Promise<void> => {
  const db = s.database.db
  try {
    const bookings = await execute<{ status: string; n: number }>(
      db,
      sql`select status, count(*)::int as n from booking_slots group by status`,
    )
    s.metrics.setBookingsByStatus(Object.fromEntries(bookings.map((r) => [r.status, r.n])))
    const deliveries = await execute<{ state: string; n: number }>(
      db,
      sql`select state, count(*)::int as n from webhook_deliveries group by state`,
    )
    s.metrics.setDeliveriesByState(Object.fromEntries(deliveries.map((r) => [r.state, r.n])))
    const now = new Date(s.clock.now())
    const [ticks] = await execute<{ pending: number; oldest: string | Date | null }>(
      db,
      sql`select count(*)::int as pending, min(due_at) as oldest from scheduled_ticks
          where state = 'pending' and due_at <= ${now.toISOString()}`,
    )
    const oldest = ticks?.oldest ? new Date(ticks.oldest).getTime() : undefined
    const [all] = await execute<{ pending: number }>(
      db,
      sql`select count(*)::int as pending from scheduled_ticks where state = 'pending'`,
    )
    s.metrics.setSchedulerBacklog(
      all?.pending ?? 0,
      oldest === undefined ? 0 : (now.getTime() - oldest) / 1000,
    )
  } catch (e) {
    s.logger.log("warn", "metrics: database gauges unavailable", {
      error: e instanceof Error ? e.message : String(e),
    })
  }
}
