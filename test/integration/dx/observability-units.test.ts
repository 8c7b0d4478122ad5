import { describe, expect, it } from "vitest"
import { contextualLogger, redactValue } from "../../../adapters/observability/log-redaction.ts"
import { makeMetrics, makeRegistry } from "../../../adapters/observability/metrics.ts"
import { runWithRequestContext } from "../../../adapters/observability/request-context.ts"
import { parseTraceparent, tracingConfig } from "../../../adapters/observability/tracing.ts"
import { makeLogger } from "../../../adapters/wiring/logger.ts"

describe("metrics registry", () => {
  it("renders counters, gauges and cumulative histograms in Prometheus text format", () => {
    const r = makeRegistry()
    const c = r.counter("x_total", "Things.", ["kind"])
    c.inc({ kind: 'a"b' })
    c.inc({ kind: 'a"b' }, 2)
    c.inc({ kind: "z" }, -5) // ignored: counters only go up
    const hist = r.histogram("lat_seconds", "Latency.", [], [0.1, 1])
    hist.observe({}, 0.05)
    hist.observe({}, 0.5)
    hist.observe({}, 5)
    expect(r.render()).toBe(
      [
        "# HELP x_total Things.",
        "# TYPE x_total counter",
        'x_total{kind="a\\"b"} 3',
        "# HELP lat_seconds Latency.",
        "# TYPE lat_seconds histogram",
        'lat_seconds_bucket{le="0.1"} 1',
        'lat_seconds_bucket{le="1"} 2',
        'lat_seconds_bucket{le="+Inf"} 3',
        "lat_seconds_sum 5.55",
        "lat_seconds_count 3",
        "",
      ].join("\n"),
    )
    expect(() => r.counter("x_total", "again", [])).toThrow()
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
