import type { LifecycleSignal } from "../core/ports/lifecycle-scheduler.ts"

/**
 * What the Temporal client (adapters/scheduler/temporal.ts), the worker
 * (runtimes/node/temporal-worker.ts) and the workflow (booking-lifecycle.ts) share: names of
 * the workflow, its signals and the default task queue. Plain data; safe in workflow code.
 */

export const BOOKING_LIFECYCLE_WORKFLOW = "bookingLifecycle"
export const DEFAULT_TASK_QUEUE = "keyspace-bookings"

/** One workflow per booking; the id makes start idempotent (signalWithStart). */
export const lifecycleWorkflowId = (bookingId: string): string => `booking-${bookingId}`

export interface BookingLifecycleInput {
  readonly bookingId: string
  /** tickKeys (core/booking/timeline.ts) already handled, carried across continue-as-new. */
  readonly handled?: ReadonlyArray<string>
}

/**
 * The workflow's signals by name, one per user action of the spec. The workflow treats them
 * alike (re-read the booking and re-plan): the booking row is the truth, a signal only says
 * "something changed", so a lost, duplicated or reordered signal cannot make the workflow act
 * on stale data. Names, not `defineSignal` objects: the server imports this module, and
 * @temporalio/workflow cost its start-up ~40 ms; the client accepts a signal by name.
 */
export const SIGNAL_NAMES = ["update", "cancel", "check-in", "check-out", "payment"] as const

export const signalNameFor = {
  create: "update",
  update: "update",
  cancel: "cancel",
  "check-in": "check-in",
  "check-out": "check-out",
  payment: "payment",
} as const satisfies Record<LifecycleSignal, (typeof SIGNAL_NAMES)[number]>
