import { counterFamily } from "../shared/metric-family.ts"

/**
 * Booking metrics, updated by the use cases after commit:
 * `yield* Metric.update(statusChanged("none", booking.status), 1)`. Same name and labels as the
 * Prometheus text has always had (operators alert on them).
 */
export const statusChanged = counterFamily(
  "keyspace_booking_status_changes_total",
  "Booking status changes by previous and new status (from=none for a new booking).",
  ["from", "to"],
)
