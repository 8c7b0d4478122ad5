import { Cause, Context, Effect, Layer, Option, type Tracer } from "effect"
import { OtlpExporter, PrometheusMetrics } from "effect/observability"
import { StoredStateReader } from "./gauges.ts"
import {
  BOOKING_STATUSES,
  bookingsByStatus,
  DELIVERY_STATES,
  deliveriesByState,
  overdueTicks,
  pendingTicks,
  setAll,
  uptime,
} from "./metrics.ts"

/** What the edges need from observability at run time: the tracer, a flush, a scrape. */
export class Telemetry extends Context.Service<
  Telemetry,
  {
    /** The exporting tracer when tracing is on (the HTTP observer starts server spans on it). */
    readonly tracer: Tracer.Tracer | undefined
    /** Sends the buffered spans now (tests; dispose flushes by itself). */
    readonly flush: Effect.Effect<void>
    /** Stored-state gauges refreshed, then every series in Prometheus text (GET /metrics). */
    readonly scrape: Effect.Effect<string>
  }
>()("keyspace/observability/Telemetry") {
  /** Needs the exporter's `Flusher` (a no-op one when tracing is off) and a stored-state reader. */
  static readonly layer = (options: { readonly tracing: boolean; readonly now: () => number }) =>
    Layer.effect(
      Telemetry,
      Effect.gen(function* () {
        const flusher = yield* OtlpExporter.Flusher
        const reader = yield* StoredStateReader
        const tracer = options.tracing ? yield* Effect.tracer : undefined
        const started = Date.now()
        const refresh = Effect.fnUntraced(function* () {
          const state = yield* reader.read(options.now()).pipe(
            Effect.map(Option.some),
            // A failing read leaves the previous values and never fails the scrape.
            Effect.catchCause((cause) => {
              const e = Cause.squash(cause)
              return Effect.logWarning("metrics: database gauges unavailable", {
                error: e instanceof Error ? e.message : String(e),
              }).pipe(Effect.as(Option.none()))
            }),
          )
          const context = yield* Effect.context<never>()
          if (Option.isSome(state)) {
            const s = state.value
            setAll(bookingsByStatus, BOOKING_STATUSES, s.bookingsByStatus, context)
            setAll(deliveriesByState, DELIVERY_STATES, s.deliveriesByState, context)
            pendingTicks.updateUnsafe(s.pendingTicks, context)
            overdueTicks.updateUnsafe(s.oldestDueAt === undefined ? 0 : Math.max(0, (options.now() - s.oldestDueAt) / 1000), context)
          }
          uptime.updateUnsafe((Date.now() - started) / 1000, context)
          return PrometheusMetrics.formatUnsafe(context)
        })
        return Telemetry.of({ tracer, flush: flusher.flush, scrape: refresh() })
      }),
    )
}
