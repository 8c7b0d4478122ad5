import { Context, Exit, Layer, Option, Tracer as EffectTracer } from "effect"
import { FetchHttpClient } from "effect/http"
import { OtlpSerialization, OtlpTracer } from "effect/observability"
import { ConfigError } from "../config/config.ts"

/**
 * Tracing: spans come from `Effect.fn` (one per use case) and, only when tracing is on, one
 * server span per request made by the HTTP observer (W3C `traceparent` honoured). Export is
 * effect's OTLP/HTTP JSON tracer, on only when the standard OTEL_EXPORTER_OTLP_ENDPOINT (or
 * OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) is set. @effect/opentelemetry needs Node >= 22.19; what
 * ships inside effect runs on Node 20, Bun and Deno (fetch).
 */
export interface TracingConfig {
  readonly tracesUrl: string
  readonly headers: Record<string, string>
  readonly serviceName: string
}

const decodeHeaderPart = (part: string): string => {
  try {
    return decodeURIComponent(part.trim())
  } catch {
    throw new ConfigError("OTEL_EXPORTER_OTLP_HEADERS", "must be comma-separated key=value pairs, percent-encoded")
  }
}

/**
 * Reads the standard OpenTelemetry variables; undefined means tracing stays off. An endpoint that
 * is not an http(s) URL stops the start (ConfigError): tracing the operator asked for would
 * otherwise be lost without a word.
 */
export const tracingConfig = (env: Record<string, string | undefined>): TracingConfig | undefined => {
  if (env.OTEL_SDK_DISABLED === "true" || env.OTEL_TRACES_EXPORTER === "none") return undefined
  const traces = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim()
  const base = env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim()
  const variable = traces ? "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT" : "OTEL_EXPORTER_OTLP_ENDPOINT"
  const tracesUrl = traces || (base ? `${base.replace(/\/+$/, "")}/v1/traces` : undefined)
  if (!tracesUrl) return undefined
  if (!/^https?:\/\/[^\s/]+/i.test(tracesUrl) || !URL.canParse(tracesUrl)) throw new ConfigError(variable, "must be an http(s) URL")
  const headers: Record<string, string> = {}
  for (const pair of (env.OTEL_EXPORTER_OTLP_HEADERS ?? "").split(",")) {
    const i = pair.indexOf("=")
    if (i > 0) headers[decodeHeaderPart(pair.slice(0, i))] = decodeHeaderPart(pair.slice(i + 1))
  }
  return { tracesUrl, headers, serviceName: env.OTEL_SERVICE_NAME || "keyspace" }
}

/** @deprecated bridge: what legacy code and tests see on `Services.tracer`. */
export interface Tracer {
  readonly enabled: boolean
  /** Sends buffered spans now (tests); dispose of the runtime flushes by itself. */
  readonly flush: () => Promise<void>
}

/** The OTLP exporter (provides the tracer and its `Flusher`); spans leave every 2 s and on dispose. */
export const otlpTracing = (config: TracingConfig) =>
  OtlpTracer.layer({
    url: config.tracesUrl,
    headers: config.headers,
    resource: { serviceName: config.serviceName },
    exportInterval: "2 seconds",
  }).pipe(Layer.provide(Layer.mergeAll(OtlpSerialization.layerJson, FetchHttpClient.layer)))

/** W3C trace context: `00-<32 hex trace id>-<16 hex parent id>-<flags>`. */
export const parseTraceparent = (header: string | undefined): { traceId: string; spanId: string } | undefined => {
  const m = /^[\da-f]{2}-([\da-f]{32})-([\da-f]{16})-[\da-f]{2}$/.exec(header?.trim().toLowerCase() ?? "")
  if (!m || /^0+$/.test(m[1]!) || /^0+$/.test(m[2]!)) return undefined
  return { traceId: m[1]!, spanId: m[2]! }
}

/** Wall-clock nanoseconds: spans measure real time even when the service clock is manual. */
const nowNanos = (): bigint => BigInt(Math.floor((performance.timeOrigin + performance.now()) * 1000)) * 1000n

/** The request's server span, started before routing (named once the route is known). */
export const startServerSpan = (tracer: EffectTracer.Tracer, method: string, traceparent: string | undefined, requestId: string): EffectTracer.Span => {
  const parent = parseTraceparent(traceparent)
  const span = tracer.span({
    name: method,
    parent: parent ? Option.some(EffectTracer.externalSpan(parent)) : Option.none(),
    annotations: Context.empty(),
    links: [],
    startTime: nowNanos(),
    kind: "server",
    root: parent === undefined,
    sampled: true,
  })
  span.attribute("http.request.method", method)
  span.attribute("keyspace.request_id", requestId)
  return span
}

export const endServerSpan = (span: EffectTracer.Span, route: string, path: string | undefined, status: number): void => {
  // The route is known only after routing; effect's spans read `name` when they end.
  ;(span as { name: string }).name = `${span.name} ${route}`
  span.attribute("http.route", route)
  if (path !== undefined) span.attribute("url.path", path)
  // A bigint is written as OTLP `intValue: "200"`, as collectors always received it.
  span.attribute("http.response.status_code", BigInt(status))
  span.end(nowNanos(), status >= 500 ? Exit.fail(`HTTP ${status}`) : Exit.void)
}
