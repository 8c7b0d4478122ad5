import type { Logger } from "../wiring/logger.ts"
import { currentRequestContext, runWithRequestContext } from "./request-context.ts"

/**
 * OpenTelemetry-compatible tracing, off by default and on when the standard
 * OTEL_EXPORTER_OTLP_ENDPOINT (or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) is set. Spans leave as
 * OTLP/HTTP JSON (`POST {endpoint}/v1/traces`), which every OpenTelemetry Collector accepts.
 *
 * Why not the OpenTelemetry SDK: it is not installed, and this small exporter runs unchanged on
 * Node, Bun and Deno. The `Tracer` interface is the hook point: an SDK-backed tracer can replace
 * `makeTracer` without touching call sites. W3C `traceparent` is honoured on incoming requests.
 */

export type SpanKind = "internal" | "server" | "client"
export type AttributeValue = string | number | boolean

export interface Span {
  readonly traceId: string
  readonly spanId: string
  readonly setAttribute: (key: string, value: AttributeValue) => void
  /** A server span is named once its route is known ("GET /meetings/:id"). */
  readonly setName: (name: string) => void
  readonly setError: (message: string) => void
  readonly end: () => void
}

export interface SpanOptions {
  readonly kind?: SpanKind
  readonly attributes?: Readonly<Record<string, AttributeValue>>
  /** Parent from an incoming `traceparent`; otherwise the current request's span, if any. */
  readonly parent?: { readonly traceId: string; readonly spanId: string } | undefined
}

export interface Tracer {
  readonly enabled: boolean
  readonly startSpan: (name: string, options?: SpanOptions) => Span
  /**
   * Runs `f` inside a child span of the current request span (named like "Bookings.create").
   * The span ends when `f` settles; a rejection marks it as an error and is re-thrown.
   */
  readonly withSpan: <T>(
    name: string,
    f: (span: Span) => Promise<T>,
    options?: SpanOptions,
  ) => Promise<T>
  /** Sends buffered spans now (tests, shutdown). */
  readonly flush: () => Promise<void>
  readonly shutdown: () => Promise<void>
}

const hex = (bytes: number): string => {
  const b = crypto.getRandomValues(new Uint8Array(bytes))
  return Array.from(b, (x) => x.toString(16).padStart(2, "0")).join("")
}

const noopSpan = (traceId = "", spanId = ""): Span => ({
  traceId,
  spanId,
  setAttribute: () => {},
  setName: () => {},
  setError: () => {},
  end: () => {},
})

export const noopTracer: Tracer = {
  enabled: false,
  startSpan: () => noopSpan(),
  withSpan: (_name, f) => f(noopSpan()),
  flush: async () => {},
  shutdown: async () => {},
}

/** W3C trace context: `00-<32 hex trace id>-<16 hex parent id>-<flags>`. */
export const parseTraceparent = (
  header: string | undefined,
): { traceId: string; spanId: string } | undefined => {
  const m = /^[\da-f]{2}-([\da-f]{32})-([\da-f]{16})-[\da-f]{2}$/.exec(
    header?.trim().toLowerCase() ?? "",
  )
  if (!m || /^0+$/.test(m[1]!) || /^0+$/.test(m[2]!)) return undefined
  return { traceId: m[1]!, spanId: m[2]! }
}

export interface TracingConfig {
  readonly tracesUrl: string
  readonly headers: Record<string, string>
  readonly serviceName: string
}

/** Reads the standard OpenTelemetry variables; undefined means tracing stays off. */
export const tracingConfig = (
  env: Record<string, string | undefined>,
): TracingConfig | undefined => {
  if (env.OTEL_SDK_DISABLED === "true" || env.OTEL_TRACES_EXPORTER === "none") return undefined
  const traces = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim()
  const base = env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim()
  const tracesUrl = traces || (base ? `${base.replace(/\/+$/, "")}/v1/traces` : undefined)
  if (!tracesUrl) return undefined
  const headers: Record<string, string> = {}
  for (const pair of (env.OTEL_EXPORTER_OTLP_HEADERS ?? "").split(",")) {
    const i = pair.indexOf("=")
    if (i > 0)
      headers[decodeURIComponent(pair.slice(0, i).trim())] = decodeURIComponent(
        pair.slice(i + 1).trim(),
      )
  }
  return { tracesUrl, headers, serviceName: env.OTEL_SERVICE_NAME || "keyspace" }
}

interface FinishedSpan {
  readonly traceId: string
  readonly spanId: string
  readonly parentSpanId: string | undefined
  readonly name: string
  readonly kind: SpanKind
  readonly start: bigint
  readonly end: bigint
  readonly attributes: Record<string, AttributeValue>
  readonly error: string | undefined
}

const KIND_CODE: Record<SpanKind, number> = { internal: 1, server: 2, client: 3 }

const attributeJson = (key: string, value: AttributeValue) => ({
  key,
  value:
    typeof value === "string"
      ? { stringValue: value }
      : typeof value === "boolean"
        ? { boolValue: value }
        : Number.isInteger(value)
          ? { intValue: String(value) }
          : { doubleValue: value },
})

/** Wall-clock nanoseconds: spans measure real time even when the service clock is manual. */
const nowNanos = (): bigint => {
  const ms = performance.timeOrigin + performance.now()
  return BigInt(Math.floor(ms * 1000)) * 1000n
}

export const makeTracer = (
  env: Record<string, string | undefined>,
  logger: Logger,
  options: { fetch?: typeof fetch; flushIntervalMs?: number; maxBatch?: number } = {},
): Tracer => {
  const config = tracingConfig(env)
  if (!config) return noopTracer
  const send = options.fetch ?? ((input, init) => fetch(input, init))
  const maxBatch = options.maxBatch ?? 256
  let buffer: FinishedSpan[] = []
  let inflight: Promise<void> = Promise.resolve()
  let warned = false

  const exportBatch = async (spans: FinishedSpan[]) => {
    const body = {
      resourceSpans: [
        {
          resource: { attributes: [attributeJson("service.name", config.serviceName)] },
          scopeSpans: [
            {
              scope: { name: "keyspace" },
              spans: spans.map((s) => ({
                traceId: s.traceId,
                spanId: s.spanId,
                ...(s.parentSpanId ? { parentSpanId: s.parentSpanId } : {}),
                name: s.name,
                kind: KIND_CODE[s.kind],
                startTimeUnixNano: String(s.start),
                endTimeUnixNano: String(s.end),
                attributes: Object.entries(s.attributes).map(([k, v]) => attributeJson(k, v)),
                status: s.error === undefined ? { code: 0 } : { code: 2, message: s.error },
              })),
            },
          ],
        },
      ],
    }
    try {
      const res = await send(config.tracesUrl, {
        method: "POST",
        headers: { "content-type": "application/json", ...config.headers },
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(10_000),
      })
      await res.body?.cancel()
      if (!res.ok) throw new Error(`collector answered ${res.status}`)
      warned = false
    } catch (e) {
      // Tracing must never take the service down; warn once per failure streak.
      if (!warned)
        logger.log("warn", "trace export failed", {
          error: e instanceof Error ? e.message : String(e),
        })
      warned = true
    }
  }

  const flush = () => {
    if (buffer.length === 0) return inflight
    const batch = buffer
    buffer = []
    inflight = inflight.then(() => exportBatch(batch))
    return inflight
  }

  const timer = setInterval(() => void flush(), options.flushIntervalMs ?? 2000)
  // Do not keep the process alive just to export spans.
  if (typeof timer === "object" && timer !== null && "unref" in timer)
    (timer as { unref: () => void }).unref()

  const startSpan = (name: string, opts: SpanOptions = {}): Span => {
    const ctx = currentRequestContext()
    const parent =
      opts.parent ??
      (ctx?.traceId && ctx.spanId ? { traceId: ctx.traceId, spanId: ctx.spanId } : undefined)
    const traceId = parent?.traceId ?? hex(16)
    const spanId = hex(8)
    const start = nowNanos()
    const attributes: Record<string, AttributeValue> = { ...opts.attributes }
    let error: string | undefined
    let ended = false
    let spanName = name
    return {
      traceId,
      spanId,
      setAttribute: (k, v) => {
        attributes[k] = v
      },
      setName: (n) => {
        spanName = n
      },
      setError: (message) => {
        error = message
      },
      end: () => {
        if (ended) return
        ended = true
        buffer.push({
          traceId,
          spanId,
          parentSpanId: parent?.spanId,
          name: spanName,
          kind: opts.kind ?? "internal",
          start,
          end: nowNanos(),
          attributes,
          error,
        })
        if (buffer.length >= maxBatch) void flush()
      },
    }
  }

  return {
    enabled: true,
    startSpan,
    withSpan: async (name, f, opts) => {
      const span = startSpan(name, opts)
      const ctx = currentRequestContext()
      try {
        return await runWithRequestContext(
          { requestId: ctx?.requestId, traceId: span.traceId, spanId: span.spanId },
          () => f(span),
        )
      } catch (e) {
        span.setError(e instanceof Error ? e.message : String(e))
        throw e
      } finally {
        span.end()
      }
    },
    flush,
    shutdown: async () => {
      clearInterval(timer)
      await flush()
    },
  }
}
