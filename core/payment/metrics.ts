import { Effect, Metric } from "effect"
import type { PaymentStatus } from "../ports/payments.ts"
import { counterFamily } from "../shared/metric-family.ts"

export type PaymentMetricOutcome = "opened" | PaymentStatus

/** Payment metrics (`Metric.update(paymentOutcome("paid"), 1)`), names as on /metrics today. */
export const paymentOutcome: (outcome: PaymentMetricOutcome) => Metric.Counter<number> = counterFamily(
  "keyspace_payments_total",
  "Payments by outcome: opened, paid, failed (declined), voided (cancelled), expired (lapsed).",
  ["outcome"],
)

export const unpaidHoldRefusals = Metric.counter("keyspace_unpaid_hold_refusals_total", {
  description: "Paid creates refused with 429 SV040: the organizer already holds the most unpaid bookings.",
  incremental: true,
})

/** Counts `n` payments with `outcome`. */
export const countPayments = (outcome: PaymentMetricOutcome, n = 1): Effect.Effect<void> =>
  n === 0 ? Effect.void : Metric.update(paymentOutcome(outcome), n)

export const countHoldRefused: Effect.Effect<void> = Metric.update(unpaidHoldRefusals, 1)
