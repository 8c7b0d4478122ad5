import { Context, Metric } from "effect"
import { PrometheusMetrics } from "effect/observability"
import { statusChanged } from "../../core/booking/metrics.ts"
import { counterFamily, gaugeFamily, histogramFamily } from "../../core/shared/metric-family.ts"

/**
 * The service's metrics as Effect `Metric`s (what operators alert on; names, labels and buckets
 * unchanged), rendered on /metrics by effect's own Prometheus formatter. Domain metrics live in
 * core (core/booking/metrics.ts, core/payment/metrics.ts) so use cases can `Metric.update`
 * them; the HTTP, scheduler, webhook and stored-state metrics are here.
 *
 * The series live in the runtime's `Metric.MetricRegistry` (one per boot, provided by
 * adapters/wiring/layers/observability.ts). Code outside the runtime updates them with
 * `metric.updateUnsafe(value, context)` against that runtime's context.
 */

export const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]
export const LAG_BUCKETS = [0.01, 0.05, 0.1, 0.5, 1, 5, 15, 60, 300]

export const httpRequests = counterFamily(
  "keyspace_http_requests_total",
  "HTTP requests by method, route pattern and status code.",
  ["method", "route", "status"],
)
export const httpLatency = histogramFamily(
  "keyspace_http_request_duration_seconds",
  "HTTP request latency by method and route pattern.",
  ["method", "route"],
  LATENCY_BUCKETS,
)
export const schedulerLag = Metric.histogram("keyspace_scheduler_lag_seconds", {
  description: "Delay between a lifecycle tick's due time and when it ran.",
  boundaries: LAG_BUCKETS,
})
export const schedulerLastLag = Metric.gauge("keyspace_scheduler_last_lag_seconds", {
  description: "Delay of the most recent lifecycle tick.",
})
export const webhookDeliveries = counterFamily(
  "keyspace_webhook_deliveries_total",
  "Webhook delivery attempts by outcome (delivered, retry, failed, disabled).",
  ["outcome"],
)
export const rateLimitHits = Metric.counter("keyspace_partner_rate_limit_hits_total", {
  description: "Partner member requests refused with 429 SV036.",
  incremental: true,
})
export const uptime = Metric.gauge("keyspace_uptime_seconds", { description: "Seconds since the service started." })
export const bookingsByStatus = gaugeFamily("keyspace_bookings", "Bookings (occurrences) by current status, as stored.", ["status"])
export const deliveriesByState = gaugeFamily(
  "keyspace_webhook_deliveries",
  "Webhook deliveries by current state, as stored.",
  ["state"],
)
export const pendingTicks = Metric.gauge("keyspace_scheduler_pending_ticks", { description: "Lifecycle ticks not yet applied." })
export const overdueTicks = Metric.gauge("keyspace_scheduler_overdue_seconds", {
  description: "How far the oldest pending tick's due time is behind the service clock (0 when none is due).",
})

export const BOOKING_STATUSES = ["unpaid", "active", "checked-in", "done", "cancelled", "rejected"] as const
export const DELIVERY_STATES = ["pending", "delivered", "failed"] as const

/** Known values are always exported, so a status that drops to zero reads 0, not a stale count. */
export const setAll = (
  gauge: (value: string) => Metric.Gauge<number>,
  known: ReadonlyArray<string>,
  counts: Readonly<Record<string, number>>,
  context: Context.Context<never>,
): void => {
  for (const k of new Set([...known, ...Object.keys(counts)])) gauge(k).updateUnsafe(counts[k] ?? 0, context)
}

/** Outcome of one webhook delivery attempt, as the dispatcher sees it. */
export type WebhookOutcome = "delivered" | "retry" | "failed" | "disabled"

/** @deprecated bridge: what `registry.counter` returns, for code not yet on `Metric.update`. */
export interface Counter<L extends string> {
  readonly inc: (labels: Record<L, string>, by?: number) => void
  readonly value: (labels: Record<L, string>) => number
}

/**
 * The recorders legacy Promise code calls on `Services.metrics` (e.g.
 * `s.metrics.bookingStatusChanged("active", "checked-in")`); each updates the Effect metric
 * above in the runtime's registry. Removed once every caller uses `Metric.update`.
 */
export interface Metrics {
  /** One finished HTTP request; `route` is the route pattern (never the raw path: ids stay out). */
  readonly httpRequest: (method: string, route: string, status: number, seconds: number) => void
  /** A booking moved between statuses (by a call, the scheduler, payment or an operator). */
  readonly bookingStatusChanged: (from: string | "none", to: string) => void
  /** How late a scheduler tick ran after its due time, in milliseconds. */
  readonly schedulerLag: (ms: number) => void
  /** One webhook delivery attempt finished with this outcome. */
  readonly webhookDelivery: (outcome: WebhookOutcome) => void
  /** The partner surface refused a request with 429 SV036 (counted by the HTTP observer). */
  readonly rateLimitHit: () => void
  /** Current bookings (occurrences) by status, read from the database at scrape time. */
  readonly setBookingsByStatus: (counts: Readonly<Record<string, number>>) => void
  /** Current webhook deliveries by state (pending, delivered, failed), read at scrape time. */
  readonly setDeliveriesByState: (counts: Readonly<Record<string, number>>) => void
  /** Pending lifecycle ticks and how far the oldest due one is behind the service clock. */
  readonly setSchedulerBacklog: (pending: number, overdueSeconds: number) => void
  /** Every series of the registry, in Prometheus text format. */
  readonly render: () => string
  /** @deprecated bridge: a counter of one's own; use a `Metric` in core instead. */
  readonly registry: {
    readonly counter: <L extends string>(name: string, help: string, labelNames: readonly L[]) => Counter<L>
  }
}

interface HttpSeries {
  readonly latency: ReturnType<typeof httpLatency>
  readonly byStatus: Map<number, ReturnType<typeof httpRequests>>
}

/**
 * The recorders over the metric registry of `context` (the runtime's context; by default a
 * fresh registry, for a unit test).
 */
export const makeMetrics = (
  context: Context.Context<never> = Context.make(Metric.MetricRegistry, new Map()),
  now: () => number = () => Date.now(),
): Metrics => {
  const started = now()
  // The metric objects of each route pattern and method, and of each status under them: a
  // request finds its two by three Map lookups on strings and a number it already holds (the
  // families' joined keys cost more than the updates). Bounded as the families are.
  const httpSeries = new Map<string, Map<string, HttpSeries>>()
  const seriesOf = (method: string, route: string): HttpSeries => {
    let byMethod = httpSeries.get(route)
    if (byMethod === undefined) httpSeries.set(route, (byMethod = new Map()))
    let series = byMethod.get(method)
    if (series === undefined) byMethod.set(method, (series = { latency: httpLatency(method, route), byStatus: new Map() }))
    return series
  }
  return {
    httpRequest: (method, route, status, seconds) => {
      const series = seriesOf(method, route)
      let count = series.byStatus.get(status)
      if (count === undefined) series.byStatus.set(status, (count = httpRequests(method, route, String(status))))
      count.updateUnsafe(1, context)
      if (Number.isFinite(seconds)) series.latency.updateUnsafe(seconds, context)
    },
    bookingStatusChanged: (from, to) => statusChanged(from, to).updateUnsafe(1, context),
    schedulerLag: (ms) => {
      const seconds = Math.max(0, ms) / 1000
      if (!Number.isFinite(seconds)) return
      schedulerLag.updateUnsafe(seconds, context)
      schedulerLastLag.updateUnsafe(seconds, context)
    },
    webhookDelivery: (outcome) => webhookDeliveries(outcome).updateUnsafe(1, context),
    rateLimitHit: () => rateLimitHits.updateUnsafe(1, context),
    setBookingsByStatus: (counts) => setAll(bookingsByStatus, BOOKING_STATUSES, counts, context),
    setDeliveriesByState: (counts) => setAll(deliveriesByState, DELIVERY_STATES, counts, context),
    setSchedulerBacklog: (pending, overdueSeconds) => {
      pendingTicks.updateUnsafe(pending, context)
      overdueTicks.updateUnsafe(Math.max(0, overdueSeconds), context)
    },
    render: () => {
      uptime.updateUnsafe((now() - started) / 1000, context)
      return PrometheusMetrics.formatUnsafe(context)
    },
    registry: {
      counter: <L extends string>(name: string, help: string, labelNames: readonly L[]): Counter<L> => {
        const family = counterFamily(name, help, labelNames)
        const of = (labels: Record<L, string>) => family(...labelNames.map((l) => labels[l]))
        return {
          inc: (labels, by = 1) => of(labels).updateUnsafe(by, context),
          value: (labels) => of(labels).valueUnsafe(context).count,
        }
      },
    },
  }
}
