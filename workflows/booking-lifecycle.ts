import {
  condition,
  continueAsNew,
  defineSignal,
  proxyActivities,
  setHandler,
  workflowInfo,
} from "@temporalio/workflow"
import { compareTicks, tickKey, timeline } from "../core/booking/timeline.ts"
import type { BookingTick, LifecycleSnapshot } from "../core/ports/lifecycle-scheduler.ts"
import type { LifecycleActivities } from "./activities.ts"
import { SIGNAL_NAMES, type BookingLifecycleInput } from "./definitions.ts"

/**
 * One workflow per booking (id `booking-${id}`): a thin loop over the core timeline. It reads
 * the booking (activity), computes the due ticks with the pure core `timeline`, sleeps until
 * the next one or until a signal says the booking changed, then applies the tick (activity:
 * the core's applicableTick and the transition, in one database transaction with the fired
 * ledger). It ends when the booking has no tick left (terminal or moved past its end).
 *
 * Deterministic by construction: no Node builtins, no Effect runtime, no I/O; time is the
 * workflow clock (Date.now() inside a workflow is the replayed event time).
 */

const { loadLifecycle, applyLifecycleTick } = proxyActivities<LifecycleActivities>({
  startToCloseTimeout: "1 minute",
  retry: { initialInterval: "1 second", backoffCoefficient: 2, maximumInterval: "5 minutes" },
})

/** Upcoming ticks of every live occurrence not handled yet, in due order. */
export const plan = (
  snapshots: ReadonlyArray<LifecycleSnapshot>,
  handled: ReadonlySet<string>,
): Array<BookingTick> => {
  const ticks: Array<BookingTick> = []
  for (const snap of snapshots) {
    for (const tick of timeline(snap.booking, snap.config)) {
      const key = `${snap.occurrenceIndex}:${tickKey(tick)}`
      if (!handled.has(key)) {
        ticks.push({ ...tick, bookingId: snap.booking.id, occurrenceIndex: snap.occurrenceIndex })
      }
    }
  }
  return ticks.sort(compareTicks)
}

const keyOf = (tick: BookingTick): string => `${tick.occurrenceIndex}:${tickKey(tick)}`

export async function bookingLifecycle(input: BookingLifecycleInput): Promise<void> {
  const handled = new Set(input.handled ?? [])
  let changed = false
  const onChange = (): void => {
    changed = true
  }
  for (const name of SIGNAL_NAMES) setHandler(defineSignal(name), onChange)

  let snapshots = await loadLifecycle(input.bookingId)
  for (;;) {
    const next = plan(snapshots, handled)[0]
    if (next === undefined) return
    const wait = next.dueAt - Date.now()
    // condition() resolves true on a signal, false when the timer (the tick's due time) fires.
    const signalled = wait > 0 ? await condition(() => changed, wait) : changed
    if (signalled) {
      changed = false
    } else {
      await applyLifecycleTick(next)
      handled.add(keyOf(next))
    }
    snapshots = await loadLifecycle(input.bookingId)
    if (workflowInfo().continueAsNewSuggested) {
      await continueAsNew<typeof bookingLifecycle>({
        bookingId: input.bookingId,
        handled: [...handled],
      })
    }
  }
}
