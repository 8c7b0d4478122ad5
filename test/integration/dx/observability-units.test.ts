import { Cause, Effect, Logger, References } from "effect"
import { describe, expect, it } from "vitest"
import { jsonLogger, minimumLogLevel } from "../../../adapters/observability/logger.ts"
import { contextualLogger, redactValue } from "../../../adapters/observability/log-redaction.ts"
import { makeMetrics } from "../../../adapters/observability/metrics.ts"
import { runWithRequestContext } from "../../../adapters/observability/request-context.ts"
import { parseTraceparent, tracingConfig } from "../../../adapters/observability/tracing.ts"
import { isoNow, makeLogger } from "../../../adapters/observability/logger.ts"
import { requestIds } from "../../../adapters/http/request-id.ts"

describe("metrics (effect Metric, Prometheus text from effect's formatter)", () => {
  it("renders counters, gauges and cumulative histograms in Prometheus text format", () => {
    const m = makeMetrics()
    const c = m.registry.counter("x_total", "Things.", ["kind"])
    c.inc({ kind: 'a"b' })
    c.inc({ kind: 'a"b' }, 2)
    c.inc({ kind: "z" }, -5) // ignored: counters only go up
    expect(c.value({ kind: 'a"b' })).toBe(3)
    m.schedulerLag(50)
    m.schedulerLag(500)
    m.schedulerLag(5000)
    const text = m.render()
    expect(text).toContain(["# HELP x_total Things.", "# TYPE x_total counter", 'x_total{kind="a\\"b"} 3', 'x_total{kind="z"} 0'].join("\n"))
    expect(text).toContain(
      [
        "# TYPE keyspace_scheduler_lag_seconds histogram",
        'keyspace_scheduler_lag_seconds_bucket{le="0.01"} 0',
        'keyspace_scheduler_lag_seconds_bucket{le="0.05"} 1',
        'keyspace_scheduler_lag_seconds_bucket{le="0.1"} 1',
        'keyspace_scheduler_lag_seconds_bucket{le="0.5"} 2',
        'keyspace_scheduler_lag_seconds_bucket{le="1"} 2',
        'keyspace_scheduler_lag_seconds_bucket{le="5"} 3',
        'keyspace_scheduler_lag_seconds_bucket{le="15"} 3',
        'keyspace_scheduler_lag_seconds_bucket{le="60"} 3',
        'keyspace_scheduler_lag_seconds_bucket{le="300"} 3',
        'keyspace_scheduler_lag_seconds_bucket{le="+Inf"} 3',
        "keyspace_scheduler_lag_seconds_sum 5.55",
        "keyspace_scheduler_lag_seconds_count 3",
      ].join("\n"),
    )
    expect(text).toContain("# TYPE keyspace_uptime_seconds gauge")
  })

  it("keeps the series of two registries apart (one per runtime)", () => {
    const a = makeMetrics()
    const b = makeMetrics()
    a.httpRequest("GET", "/healthz", 200, 0.001)
    expect(a.render()).toContain('keyspace_http_requests_total{method="GET",route="/healthz",status="200"} 1')
    expect(b.render()).not.toContain("keyspace_http_requests_total")
  })

  it("exports known statuses as 0, so a drop to zero is visible", () => {
    const m = makeMetrics()
    m.setBookingsByStatus({ active: 2 })
    m.setBookingsByStatus({ "checked-in": 2 })
    const text = m.render()
    expect(text).toContain('keyspace_bookings{status="active"} 0')
    expect(text).toContain('keyspace_bookings{status="checked-in"} 2')
  })
})

describe("log redaction", () => {
  it("masks secret-named fields at any depth and elides long base64", () => {
    const face = "A".repeat(400)
    expect(
      redactValue({
        pinCode: "1234",
        nested: {
          access_token: "t",
          refresh_token: "r",
          app_secret: "s",
          qrCardCode: "q",
          list: [{ authorization: "Bearer x" }],
        },
        image: `data:image/png;base64,${face}`,
        title: "Weekly sync",
      }),
    ).toEqual({
      pinCode: "[redacted]",
      nested: {
        access_token: "[redacted]",
        refresh_token: "[redacted]",
        app_secret: "[redacted]",
        qrCardCode: "[redacted]",
        list: [{ authorization: "[redacted]" }],
      },
      image: `[${face.length + 22} chars elided]`,
      title: "Weekly sync",
    })
  })

  it("adds the request id of the current request to every line", () => {
    const lines: string[] = []
    const logger = contextualLogger(makeLogger("debug", {}, (l) => lines.push(l)))
    runWithRequestContext({ requestId: "r-1" }, () =>
      logger.child({ component: "x" }).log("info", "inside"),
    )
    logger.log("info", "outside Bearer abc.def")
    const [inside, outside] = lines.map((l) => JSON.parse(l))
    expect(inside).toMatchObject({ msg: "inside", requestId: "r-1", component: "x" })
    expect(outside.requestId).toBeUndefined()
    expect(outside.msg).toBe("outside Bearer [redacted]")
  })
})

describe("Effect logger", () => {
  it("writes the same JSON line as the legacy logger, with annotations, redacted, above the minimum level only", () => {
    const lines: string[] = []
    const sink = contextualLogger(makeLogger("debug", {}, (l) => lines.push(l)))
    const program = Effect.gen(function* () {
      yield* Effect.logInfo("booked", { pinCode: "1234", room: "lotus" })
      yield* Effect.logDebug("dropped: below KEYSPACE_LOG_LEVEL")
      yield* Effect.logError("failed", Cause.fail("boom"))
    }).pipe(
      Effect.annotateLogs({ requestId: "r-9" }),
      Effect.provide(Logger.layer([jsonLogger(sink)])),
      Effect.provideService(References.MinimumLogLevel, minimumLogLevel("info")),
    )
    Effect.runSync(program)
    const [info, error, ...rest] = lines.map((l) => JSON.parse(l))
    expect(rest).toEqual([])
    expect(Object.keys(info)).toEqual(["time", "level", "msg", "requestId", "pinCode", "room"])
    expect(info).toMatchObject({ level: "info", msg: "booked", requestId: "r-9", pinCode: "[redacted]", room: "lotus" })
    expect(error).toMatchObject({ level: "error", msg: "failed", requestId: "r-9" })
    expect(error.error).toContain("boom")
  })
})

describe("line parts cached across lines (issue 13)", () => {
  it("time stamps are new Date().toISOString(), within a second and across seconds", () => {
    const instants = [0, 1, 999, 1000, 1_732_431_312_045, 1_732_431_312_999, 1_732_431_313_000, 1_732_431_312_007, -1, -1001, 253_402_300_799_999]
    for (const t of instants) expect(isoNow(t)).toBe(new Date(t).toISOString())
    expect(isoNow()).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/)
  })

  it("a secret-named field is masked however often its name was seen before, and long base64 only from 256 characters", () => {
    for (let i = 0; i < 3; i++)
      expect(redactValue({ token: "t", room: "lotus", nested: { pinCode: 1 } })).toEqual({ token: "[redacted]", room: "lotus", nested: { pinCode: "[redacted]" } })
    expect(redactValue("A".repeat(255))).toBe("A".repeat(255))
    expect(redactValue("A".repeat(256))).toBe("[256 chars elided]")
  })

  it("a line is its head (time, level, msg) then the fields in order, as one JSON object", () => {
    const lines: string[] = []
    const write = (l: string) => lines.push(l)
    const fields = { requestId: 'r"1', path: "/a\\b", status: 200, durationMs: 1.25, gone: undefined, nested: { n: [1, null] } }
    makeLogger("debug", {}, write).log("info", 'quote " msg', fields)
    makeLogger("debug", {}, write).child({}).log("info", 'quote " msg', fields)
    makeLogger("debug", {}, write).log("warn", "bare")
    makeLogger("debug", {}, write).log("warn", "empty", {})
    makeLogger("debug", { component: "c" }, write).log("info", "based", { status: 1 })
    const [plain, child, bare, empty, based] = lines.map((l) => JSON.parse(l))
    // Byte for byte the object the line used to be built as.
    expect(lines[0]).toBe(JSON.stringify({ time: plain.time, level: "info", msg: 'quote " msg', ...fields }))
    expect(lines[1]).toBe(JSON.stringify({ time: child.time, level: "info", msg: 'quote " msg', ...fields }))
    expect(Object.keys(plain)).toEqual(["time", "level", "msg", "requestId", "path", "status", "durationMs", "nested"])
    expect(Object.keys(bare)).toEqual(["time", "level", "msg"])
    expect(Object.keys(empty)).toEqual(["time", "level", "msg"])
    expect(Object.keys(based)).toEqual(["time", "level", "msg", "component", "status"])
  })

  it("a field named like the head replaces the head's value in its place, as one JSON object", () => {
    const lines: string[] = []
    makeLogger("debug", {}, (l) => lines.push(l)).log("info", "m", { msg: "other", level: "x", extra: 1 })
    expect(lines[0]!.match(/"msg"/g)).toHaveLength(1)
    const line = JSON.parse(lines[0]!)
    expect(Object.keys(line)).toEqual(["time", "level", "msg", "extra"])
    expect(line).toMatchObject({ level: "x", msg: "other", extra: 1 })
  })

  it("a bearer token in a message is redacted however often the message was seen before", () => {
    const lines: string[] = []
    const logger = contextualLogger(makeLogger("debug", {}, (l) => lines.push(l)))
    for (let i = 0; i < 3; i++) logger.log("info", "sent Bearer abc.def")
    logger.log("info", `long ${"x".repeat(100)} Bearer abc.def`)
    for (const l of lines) expect(JSON.parse(l).msg).toContain("Bearer [redacted]")
  })

  it("request ids: unique per process and across processes, at most 64 characters", () => {
    const a = requestIds()
    const b = requestIds()
    const ids = new Set<string>()
    for (let i = 0; i < 10_000; i++) {
      ids.add(a())
      ids.add(b())
    }
    expect(ids.size).toBe(20_000)
    for (const id of ids) expect(id.length).toBeLessThanOrEqual(64)
  })
})

describe("tracing configuration", () => {
  it("is off without an endpoint and follows the standard OTEL variables", () => {
    expect(tracingConfig({})).toBeUndefined()
    expect(
      tracingConfig({
        OTEL_EXPORTER_OTLP_ENDPOINT: "http://c:4318/",
        OTEL_TRACES_EXPORTER: "none",
      }),
    ).toBeUndefined()
    expect(
      tracingConfig({
        OTEL_EXPORTER_OTLP_ENDPOINT: "http://c:4318/",
        OTEL_EXPORTER_OTLP_HEADERS: "x-key=a%20b",
      }),
    ).toEqual({
      tracesUrl: "http://c:4318/v1/traces",
      headers: { "x-key": "a b" },
      serviceName: "keyspace",
    })
    expect(tracingConfig({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "http://c/t" })?.tracesUrl).toBe(
      "http://c/t",
    )
  })

  it("an endpoint that is not an http(s) URL, or headers that do not decode, stop the start naming the variable", () => {
    expect(() => tracingConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: "collector:4318" })).toThrow(/OTEL_EXPORTER_OTLP_ENDPOINT must be an http\(s\) URL/)
    expect(() => tracingConfig({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "grpc://c:4317" })).toThrow(/OTEL_EXPORTER_OTLP_TRACES_ENDPOINT/)
    expect(() => tracingConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: "http:// c" })).toThrow(/must be an http\(s\) URL/)
    expect(() => tracingConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://c:4318", OTEL_EXPORTER_OTLP_HEADERS: "x-key=%E0%A4%A" })).toThrow(
      /OTEL_EXPORTER_OTLP_HEADERS/,
    )
    // Switched off, nothing is read.
    expect(tracingConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: "collector:4318", OTEL_SDK_DISABLED: "true" })).toBeUndefined()
  })

  it("parses W3C traceparent", () => {
    expect(parseTraceparent("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01")).toEqual({
      traceId: "4bf92f3577b34da6a3ce929d0e0e4736",
      spanId: "00f067aa0ba902b7",
    })
    expect(
      parseTraceparent("00-00000000000000000000000000000000-00f067aa0ba902b7-01"),
    ).toBeUndefined()
    expect(parseTraceparent("garbage")).toBeUndefined()
  })
})
