/**
 * A small Prometheus metrics registry (text exposition format 0.0.4), with the service's named
 * metrics on top. Hand-rolled rather than prom-client so it runs unchanged on Node, Bun and
 * Deno and adds no dependency; it covers counters, gauges and histograms, which is all we use.
 *
 * Other modules call the named recorders on `Services.metrics`, e.g.
 * `s.metrics.bookingStatusChanged("active", "checked-in")`; they never build metric names.
 */

type Labels = Readonly<Record<string, string>>

const escapeLabel = (v: string): string =>
  v.replace(/\\/g, "\\\\").replace(/\n/g, "\\n").replace(/"/g, '\\"')

const labelText = (labels: Labels, extra?: readonly [string, string]): string => {
  const pairs = Object.entries(labels)
  if (extra) pairs.push([extra[0], extra[1]])
  if (pairs.length === 0) return ""
  return `{${pairs.map(([k, v]) => `${k}="${escapeLabel(v)}"`).join(",")}}`
}

const num = (n: number): string =>
  Number.isFinite(n) ? String(n) : n > 0 ? "+Inf" : n < 0 ? "-Inf" : "NaN"

/**
 * Series keyed by their label values, in label-name order. Runs on every request: values are
 * joined by a control character (never in a method, route or status), with the JSON form for
 * the odd value that holds one, so keys stay unambiguous.
 */
const keyOf = (names: readonly string[], labels: Labels): string => {
  let key = ""
  for (const n of names) {
    const v = labels[n] ?? ""
    if (v.includes("\u0001")) return JSON.stringify(names.map((m) => labels[m] ?? ""))
    key += v + "\u0001"
  }
  return key
}

interface Metric {
  readonly name: string
  readonly render: () => string
}

export interface Counter<L extends string> {
  readonly inc: (labels: Record<L, string>, by?: number) => void
  readonly value: (labels: Record<L, string>) => number
}

export interface Gauge<L extends string> {
  readonly set: (labels: Record<L, string>, value: number) => void
}

export interface Histogram<L extends string> {
  readonly observe: (labels: Record<L, string>, value: number) => void
}

export interface Registry {
  readonly counter: <L extends string>(
    name: string,
    help: string,
    labelNames: readonly L[],
  ) => Counter<L>
  readonly gauge: <L extends string>(
    name: string,
    help: string,
    labelNames: readonly L[],
  ) => Gauge<L>
  readonly histogram: <L extends string>(
    name: string,
    help: string,
    labelNames: readonly L[],
    buckets: readonly number[],
  ) => Histogram<L>
  /** The whole registry in Prometheus text format. */
  readonly render: () => string
}

export const makeRegistry = (): Registry => {
  const metrics: Metric[] = []
  const register = (m: Metric) => {
    if (metrics.some((x) => x.name === m.name)) throw new Error(`metric ${m.name} registered twice`)
    metrics.push(m)
  }
  const header = (name: string, help: string, type: string) =>
    `# HELP ${name} ${help.replace(/\\/g, "\\\\").replace(/\n/g, "\\n")}\n# TYPE ${name} ${type}\n`

  return {
    counter: (name, help, labelNames) => {
      const series = new Map<string, { labels: Labels; value: number }>()
      register({
        name,
        render: () =>
          header(name, help, "counter") +
          [...series.values()]
            .map((s) => `${name}${labelText(s.labels)} ${num(s.value)}\n`)
            .join(""),
      })
      return {
        inc: (labels, by = 1) => {
          if (!(by >= 0)) return // counters only go up; a bad caller must not poison the series
          const key = keyOf(labelNames, labels)
          const s = series.get(key)
          if (s) s.value += by
          else series.set(key, { labels: { ...labels }, value: by })
        },
        value: (labels) => series.get(keyOf(labelNames, labels))?.value ?? 0,
      }
    },
    gauge: (name, help, labelNames) => {
      const series = new Map<string, { labels: Labels; value: number }>()
      register({
        name,
        render: () =>
          header(name, help, "gauge") +
          [...series.values()]
            .map((s) => `${name}${labelText(s.labels)} ${num(s.value)}\n`)
            .join(""),
      })
      return {
        set: (labels, value) =>
          series.set(keyOf(labelNames, labels), { labels: { ...labels }, value }),
      }
    },
    histogram: (name, help, labelNames, buckets) => {
      const bounds = [...buckets].sort((a, b) => a - b)
      const series = new Map<
        string,
        { labels: Labels; counts: number[]; sum: number; count: number }
      >()
      register({
        name,
        render: () =>
          header(name, help, "histogram") +
          [...series.values()]
            .map((s) => {
              let cumulative = 0
              const lines = bounds.map((b, i) => {
                cumulative += s.counts[i] ?? 0
                return `${name}_bucket${labelText(s.labels, ["le", num(b)])} ${cumulative}\n`
              })
              lines.push(`${name}_bucket${labelText(s.labels, ["le", "+Inf"])} ${s.count}\n`)
              lines.push(`${name}_sum${labelText(s.labels)} ${num(s.sum)}\n`)
              lines.push(`${name}_count${labelText(s.labels)} ${s.count}\n`)
              return lines.join("")
            })
            .join(""),
      })
      return {
        observe: (labels, value) => {
          if (!Number.isFinite(value)) return
          const key = keyOf(labelNames, labels)
          let s = series.get(key)
          if (!s) {
            s = { labels: { ...labels }, counts: bounds.map(() => 0), sum: 0, count: 0 }
            series.set(key, s)
          }
          for (let i = 0; i < bounds.length; i++)
            if (value <= bounds[i]!) {
              s.counts[i] = (s.counts[i] ?? 0) + 1
              break
            }
          s.sum += value
          s.count += 1
        },
      }
    },
    render: () => metrics.map((m) => m.render()).join(""),
  }
}

/** Outcome of one webhook delivery attempt, as the dispatcher sees it. */
export type WebhookOutcome = "delivered" | "retry" | "failed" | "disabled"

/** The service's metrics: what operators alert on. Names follow Prometheus conventions. */
export interface Metrics {
  /** One finished HTTP request; `route` is the route pattern (never the raw path: ids stay out). */
  readonly httpRequest: (method: string, route: string, status: number, seconds: number) => void
  /** A booking moved between statuses (by a call, the scheduler, payment or an operator). */
  readonly bookingStatusChanged: (from: string | "none", to: string) => void
  /** How late a scheduler tick ran after its due time, in milliseconds. */
  readonly schedulerLag: (ms: number) => void
  /** One webhook delivery attempt finished with this outcome. */
  readonly webhookDelivery: (outcome: WebhookOutcome) => void
  /**
   * The partner surface refused a request with 429 SV036. Already counted by the HTTP observer
   * (from the RateLimited error), so route code does not call it.
   */
  readonly rateLimitHit: () => void
  /** Current bookings (occurrences) by status, read from the database at scrape time. */
  readonly setBookingsByStatus: (counts: Readonly<Record<string, number>>) => void
  /** Current webhook deliveries by state (pending, delivered, failed), read at scrape time. */
  readonly setDeliveriesByState: (counts: Readonly<Record<string, number>>) => void
  /** Pending lifecycle ticks and how far the oldest due one is behind the service clock. */
  readonly setSchedulerBacklog: (pending: number, overdueSeconds: number) => void
  /** Everything above plus process metrics, in Prometheus text format. */
  readonly render: () => string
  /** The raw registry, for a module that needs a metric of its own. */
  readonly registry: Registry
}

const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]
const LAG_BUCKETS = [0.01, 0.05, 0.1, 0.5, 1, 5, 15, 60, 300]

export const makeMetrics = (now: () => number = () => Date.now()): Metrics => {
  const registry = makeRegistry()
  const started = now()
  const requests = registry.counter(
    "keyspace_http_requests_total",
    "HTTP requests by method, route pattern and status code.",
    ["method", "route", "status"],
  )
  const latency = registry.histogram(
    "keyspace_http_request_duration_seconds",
    "HTTP request latency by method and route pattern.",
    ["method", "route"],
    LATENCY_BUCKETS,
  )
  const statusChanges = registry.counter(
    "keyspace_booking_status_changes_total",
    "Booking status changes by previous and new status (from=none for a new booking).",
    ["from", "to"],
  )
  const lag = registry.histogram(
    "keyspace_scheduler_lag_seconds",
    "Delay between a lifecycle tick's due time and when it ran.",
    [],
    LAG_BUCKETS,
  )
  const lastLag = registry.gauge(
    "keyspace_scheduler_last_lag_seconds",
    "Delay of the most recent lifecycle tick.",
    [],
  )
  const deliveries = registry.counter(
    "keyspace_webhook_deliveries_total",
    "Webhook delivery attempts by outcome (delivered, retry, failed, disabled).",
    ["outcome"],
  )
  const rateLimited = registry.counter(
    "keyspace_partner_rate_limit_hits_total",
    "Partner member requests refused with 429 SV036.",
    [],
  )
  const uptime = registry.gauge("keyspace_uptime_seconds", "Seconds since the service started.", [])
  const bookings = registry.gauge(
    "keyspace_bookings",
    "Bookings (occurrences) by current status, as stored.",
    ["status"],
  )
  const deliveryStates = registry.gauge(
    "keyspace_webhook_deliveries",
    "Webhook deliveries by current state, as stored.",
    ["state"],
  )
  const pendingTicks = registry.gauge(
    "keyspace_scheduler_pending_ticks",
    "Lifecycle ticks not yet applied.",
    [],
  )
  const overdue = registry.gauge(
    "keyspace_scheduler_overdue_seconds",
    "How far the oldest pending tick's due time is behind the service clock (0 when none is due).",
    [],
  )
  // Known values are always exported, so a status that drops to zero reads 0, not a stale count.
  const setAll = (
    g: Gauge<string>,
    label: string,
    known: readonly string[],
    counts: Readonly<Record<string, number>>,
  ) => {
    for (const k of new Set([...known, ...Object.keys(counts)]))
      g.set({ [label]: k }, counts[k] ?? 0)
  }

  return {
    httpRequest: (method, route, status, seconds) => {
      requests.inc({ method, route, status: String(status) })
      latency.observe({ method, route }, seconds)
    },
    bookingStatusChanged: (from, to) => statusChanges.inc({ from, to }),
    schedulerLag: (ms) => {
      const seconds = Math.max(0, ms) / 1000
      lag.observe({}, seconds)
      lastLag.set({}, seconds)
    },
    webhookDelivery: (outcome) => deliveries.inc({ outcome }),
    rateLimitHit: () => rateLimited.inc({}),
    setBookingsByStatus: (counts) =>
      setAll(
        bookings,
        "status",
        ["unpaid", "active", "checked-in", "done", "cancelled", "rejected"],
        counts,
      ),
    setDeliveriesByState: (counts) =>
      setAll(deliveryStates, "state", ["pending", "delivered", "failed"], counts),
    setSchedulerBacklog: (pending, overdueSeconds) => {
      pendingTicks.set({}, pending)
      overdue.set({}, Math.max(0, overdueSeconds))
    },
    render: () => {
      uptime.set({}, (now() - started) / 1000)
      return registry.render()
    },
    registry,
  }
}
