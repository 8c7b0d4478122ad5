import { Layer, Logger, Metric, References } from "effect"
import { OtlpExporter } from "effect/observability"
import { StoredStateReader } from "../../observability/gauges.ts"
import { contextualLogger } from "../../observability/log-redaction.ts"
import { jsonLogger, makeLogger, minimumLogLevel } from "../../observability/logger.ts"
import { Telemetry } from "../../observability/telemetry.ts"
import { otlpTracing } from "../../observability/tracing.ts"
import { StoredStateReaderPostgres } from "../../postgres/gauges.ts"
import { SqlDatabase } from "../../postgres/unit-of-work.ts"
import type { AppInputs } from "../app-layer.ts"

/**
 * Observability of one runtime: the JSON logger (the line legacy code writes too, redacted,
 * minimum level from KEYSPACE_LOG_LEVEL), a metric registry of its own (so two runtimes in
 * one process, as in the tests, never share series), the OTLP tracer only when an endpoint is
 * configured (else tracing is off altogether: no spans, no export timer), and `Telemetry`.
 */
export const observabilityLayer = (inputs: AppInputs): Layer.Layer<Telemetry> => {
  const { config, storage, tracing } = inputs
  const logging = Layer.mergeAll(
    Logger.layer([jsonLogger(inputs.logger ?? contextualLogger(makeLogger(config.logLevel)))]),
    Layer.succeed(References.MinimumLogLevel, minimumLogLevel(config.logLevel)),
  )
  const registry = Layer.sync(Metric.MetricRegistry, () => new Map())
  const exporter = tracing
    ? otlpTracing(tracing)
    : Layer.merge(OtlpExporter.layerFlusher, Layer.succeed(References.TracerEnabled, false))
  const reader =
    storage.profile === "postgres"
      ? StoredStateReaderPostgres.pipe(Layer.provide(Layer.succeed(SqlDatabase, storage.database)))
      : StoredStateReader.layerEmpty
  return Telemetry.layer({ tracing: tracing !== undefined, now: () => inputs.clock.now() }).pipe(
    Layer.provideMerge(Layer.mergeAll(exporter, reader)),
    Layer.provideMerge(Layer.mergeAll(logging, registry)),
  )
}
