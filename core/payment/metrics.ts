import { Effect, Metric } from "effect"
import type { PaymentStatus } from "../ports/payments.ts"

/** Payment counters (same names and labels as the legacy registry's). */

export const paymentsTotal = Metric.counter("keyspace_payments_total", {
  description: "Payments by outcome: opened, paid, failed (declined), voided (cancelled), expired (lapsed).",
  incremental: true,
})

export const unpaidHoldRefusals = Metric.counter("keyspace_unpaid_hold_refusals_total", {
  description: "Paid creates refused with 429 SV040: the organizer already holds the most unpaid bookings.",
  incremental: true,
})

export type PaymentMetricOutcome = "opened" | PaymentStatus

const byOutcome = new Map<PaymentMetricOutcome, Metric.Counter<number>>()

/** Counts `n` payments with `outcome` (the attribute-bound counter is made once per outcome). */
export const countPayments = (outcome: PaymentMetricOutcome, n = 1): Effect.Effect<void> => {
  if (n === 0) return Effect.void
  let m = byOutcome.get(outcome)
  if (m === undefined) {
    m = Metric.withAttributes(paymentsTotal, { outcome })
    byOutcome.set(outcome, m)
  }
  return Metric.update(m, n)
}

export const countHoldRefused: Effect.Effect<void> = Metric.update(unpaidHoldRefusals, 1)
