import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { Effect } from "effect"
import { Hono } from "hono"
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest"
import type { AppEnv } from "../../../adapters/http/app-env.ts"
import { makeRun } from "../../../adapters/http/run.ts"
import { requestObserver } from "../../../adapters/observability/http-observer.ts"
import { edgeFetch } from "../../../adapters/http/edge.ts"
import { Telemetry } from "../../../adapters/observability/telemetry.ts"
import { ADMIN_TOKEN, startHarness, type Harness } from "../../support/harness.ts"
import { APP_ID, APP_SECRET, dxManifest, pngBase64 } from "./support/dx-world.ts"

/** Issue 9, observability: structured logs without secrets, Prometheus metrics, tracing. */

const metricValue = (
  text: string,
  name: string,
  labels: Record<string, string> = {},
): number | undefined => {
  const want = Object.entries(labels).map(([k, v]) => `${k}="${v}"`)
  for (const line of text.split("\n")) {
    if (!line.startsWith(name)) continue
    const m = /^([a-z_]+)(\{[^}]*\})? (\S+)$/.exec(line)
    if (!m || m[1] !== name) continue
    const labelText = m[2] ?? ""
    if (want.every((w) => labelText.includes(w))) return Number(m[3])
  }
  return undefined
}

describe("structured logs over a full run", () => {
  let h: Harness
  const lines: string[] = []
  let spy: ReturnType<typeof vi.spyOn>
  beforeAll(async () => {
    spy = vi.spyOn(console, "log").mockImplementation((...args: unknown[]) => {
      lines.push(args.map(String).join(" "))
    })
    h = await startHarness("pglite", { KEYSPACE_LOG_LEVEL: "debug" })
  })
  afterAll(async () => {
    await h?.close()
    spy?.mockRestore()
  })

  it("has a request line with the request id per request and never a secret", async () => {
    const ids = (await h.applyManifest(dxManifest())).projects.dx
    const tokenRes = await h.request("POST", "/auth/accessToken", {
      body: { grant_type: "app_credentials", app_id: APP_ID, app_secret: APP_SECRET },
      headers: { "x-request-id": "req-token-1" },
    })
    expect(tokenRes.status).toBe(201)
    const { access_token, refresh_token } = tokenRes.body
    const refreshed = await h.request("POST", "/auth/accessToken", {
      body: { grant_type: "refresh_token", refresh_token },
    })
    expect(refreshed.status).toBe(201)
    const token = refreshed.body.access_token
    const actAs = await h.request("POST", "/auth/accessToken", {
      body: {
        grant_type: "act_as",
        app_id: APP_ID,
        app_secret: APP_SECRET,
        subject: "log-visitor",
      },
    })
    const call = (method: string, path: string, body?: unknown) =>
      h.request(method, path, { token, body })
    const created = await call("POST", "/meetings", {
      meetingRoomId: ids.rooms.lotus,
      title: "Board",
      startDateTime: "2030-01-07T10:00:00+07:00",
      endDateTime: "2030-01-07T11:00:00+07:00",
    })
    expect(created.status).toBe(201)
    const pinCode: string = created.body.data.pinCode
    expect(pinCode).toBeTruthy()
    await call("POST", `/meetings/${created.body.data._id}/check-in`, { pinCode })
    await h.advance(50)
    expect(
      (await call("POST", `/meetings/${created.body.data._id}/check-in`, { pinCode })).status,
    ).toBe(202)
    const face = pngBase64(4096)
    expect(
      (
        await call("PUT", "/partner/members/log-user", {
          firstName: "Log",
          lastName: "User",
          email: "log.user@dx.example",
        })
      ).status,
    ).toBe(200)
    const creds = await call("PUT", "/partner/members/log-user/credentials", {
      face: `data:image/png;base64,${face}`,
      faceConsentAt: "2030-01-07T09:00:00+07:00",
    })
    expect(creds.status).toBe(200)
    const qrCardCode = "QR-SECRET-7f3a9c1e5b"
    const visitor = await h.admin("POST", `/projects/${ids.id}/visitor-events`, {
      type: "VMS_INVITE_SENT",
      data: {
        projectId: ids.id,
        userId: "host-1",
        timestamp: "2030-01-07T02:00:00Z",
        visitorName: "Vee",
        visitorEmail: "vee@x.example",
        hostName: "Host",
        hostEmail: "host@x.example",
        visitDate: "2030-01-07",
        startDateTime: "9:00",
        endDateTime: "10:00",
        qrCardCode,
      },
    })
    expect(visitor.status).toBeLessThan(500)
    // An error path too: a malformed body that echoes nothing.
    expect((await call("POST", "/meetings", "{nope")).status).toBe(400)

    const parsed = lines.map((l) => JSON.parse(l) as Record<string, any>)
    expect(parsed.length).toBeGreaterThan(10)
    const requests = parsed.filter((l) => l.msg === "request")
    expect(requests.length).toBeGreaterThanOrEqual(12)
    for (const r of requests) {
      expect(r).toMatchObject({
        level: expect.any(String),
        method: expect.any(String),
        route: expect.any(String),
        status: expect.any(Number),
      })
      expect(typeof r.requestId).toBe("string")
      expect(typeof r.durationMs).toBe("number")
    }
    expect(requests.find((r) => r.requestId === "req-token-1")).toMatchObject({
      route: "/auth/accessToken",
      status: 201,
    })
    expect(requests.some((r) => r.route === "/meetings/:id/check-in" && r.status === 202)).toBe(
      true,
    )
    // Lines written while a request was served carry its id (background workers have none).
    const requestIds = new Set(requests.map((r) => r.requestId))
    expect(requestIds.size).toBe(requests.length)

    const log = lines.join("\n")
    const secrets = {
      APP_SECRET,
      ADMIN_TOKEN,
      access_token,
      refresh_token,
      token,
      actAsToken: actAs.body.access_token ?? "no-act-as-token",
      pinCode,
      qrCardCode,
      faceHead: face.slice(0, 40),
      faceTail: face.slice(-40),
      // Personal data the partner sent: its user id (the path) and the member's email.
      externalUserId: "log-user",
      memberEmail: "log.user@dx.example",
    }
    for (const [name, value] of Object.entries(secrets))
      expect(log.includes(value), `${name} leaked into the log`).toBe(false)
  })
})

describe("GET /metrics", () => {
  let h: Harness
  beforeAll(async () => {
    h = await startHarness("pglite", { KEYSPACE_PARTNER_RATE_LIMIT: "3" })
  })
  afterAll(async () => h?.close())

  it("is Prometheus text with requests, latency and bookings after a booking", async () => {
    const ids = (await h.applyManifest(dxManifest())).projects.dx
    const token = await h.tokenFor(APP_ID, APP_SECRET)
    const created = await h.request("POST", "/meetings", {
      token,
      body: {
        meetingRoomId: ids.rooms.lotus,
        title: "Metrics",
        startDateTime: "2030-01-07T12:00:00+07:00",
        endDateTime: "2030-01-07T13:00:00+07:00",
      },
    })
    expect(created.status).toBe(201)
    await h.request("GET", `/meetings/${created.body.data._id}`, { token })
    const res = await h.request("GET", "/metrics")
    expect(res.status).toBe(200)
    expect(res.headers.get("content-type")).toContain("text/plain")
    const text: string = res.body
    expect(text).toContain("# TYPE keyspace_http_requests_total counter")
    expect(
      metricValue(text, "keyspace_http_requests_total", {
        method: "POST",
        route: "/meetings",
        status: "201",
      }),
    ).toBe(1)
    // Route patterns, never raw paths: the id is not in any label.
    expect(
      metricValue(text, "keyspace_http_requests_total", {
        method: "GET",
        route: "/meetings/:id",
        status: "200",
      }),
    ).toBe(1)
    expect(text).not.toContain(created.body.data._id)
    expect(text).toContain("# TYPE keyspace_http_request_duration_seconds histogram")
    expect(
      metricValue(text, "keyspace_http_request_duration_seconds_count", { route: "/meetings" }),
    ).toBe(1)
    expect(
      metricValue(text, "keyspace_http_request_duration_seconds_bucket", {
        route: "/meetings",
        le: "+Inf",
      }),
    ).toBe(1)
    expect(metricValue(text, "keyspace_bookings", { status: "active" })).toBe(1)
    expect(metricValue(text, "keyspace_bookings", { status: "cancelled" })).toBe(0)
    expect(text).toContain("keyspace_scheduler_pending_ticks")
    expect(text).toContain("keyspace_webhook_deliveries{")

    await h.request("POST", `/meetings/${created.body.data._id}/cancel`, { token })
    const after: string = (await h.request("GET", "/metrics")).body
    expect(metricValue(after, "keyspace_bookings", { status: "active" })).toBe(0)
    expect(metricValue(after, "keyspace_bookings", { status: "cancelled" })).toBe(1)
  })

  it("counts partner rate-limit hits (429 SV036)", async () => {
    const token = await h.tokenFor(APP_ID, APP_SECRET)
    const statuses: number[] = []
    for (let i = 0; i < 5; i++)
      statuses.push((await h.request("GET", "/partner/members/nobody", { token })).status)
    expect(statuses).toContain(429)
    const text: string = (await h.request("GET", "/metrics")).body
    expect(metricValue(text, "keyspace_partner_rate_limit_hits_total")).toBe(
      statuses.filter((s) => s === 429).length,
    )
  })

  it("event counters other modules call are exported", () => {
    const m = h.booted.services.metrics
    m.bookingStatusChanged("active", "checked-in")
    m.webhookDelivery("delivered")
    m.schedulerLag(1500)
    const text = m.render()
    expect(
      metricValue(text, "keyspace_booking_status_changes_total", {
        from: "active",
        to: "checked-in",
      }),
    ).toBeGreaterThanOrEqual(1)
    expect(
      metricValue(text, "keyspace_webhook_deliveries_total", { outcome: "delivered" }),
    ).toBeGreaterThanOrEqual(1)
    expect(metricValue(text, "keyspace_scheduler_last_lag_seconds")).toBe(1.5)
  })
})

describe("OpenTelemetry tracing", () => {
  let collector: Server
  let url: string
  const received: any[] = []
  let h: Harness | undefined
  beforeAll(async () => {
    collector = createServer((req, res) => {
      let body = ""
      req.on("data", (c) => (body += c))
      req.on("end", () => {
        received.push({
          path: req.url,
          contentType: req.headers["content-type"],
          body: JSON.parse(body),
        })
        res.writeHead(200, { "content-type": "application/json" }).end("{}")
      })
    })
    await new Promise<void>((r) => collector.listen(0, "127.0.0.1", r))
    url = `http://127.0.0.1:${(collector.address() as AddressInfo).port}`
  })
  afterEach(async () => {
    await h?.close()
    h = undefined
  })
  afterAll(async () => new Promise<void>((r) => collector.close(() => r())))

  it("is off by default", async () => {
    h = await startHarness("pglite", {}, { background: false })
    expect(h.booted.services.tracer.enabled).toBe(false)
  })

  it("exports server spans as OTLP/HTTP JSON when OTEL_EXPORTER_OTLP_ENDPOINT is set", async () => {
    h = await startHarness(
      "pglite",
      { OTEL_EXPORTER_OTLP_ENDPOINT: url, OTEL_SERVICE_NAME: "keyspace-test" },
      { background: false },
    )
    expect(h.booted.services.tracer.enabled).toBe(true)
    const traceId = "4bf92f3577b34da6a3ce929d0e0e4736"
    await h.request("GET", "/healthz", {
      headers: { traceparent: `00-${traceId}-00f067aa0ba902b7-01` },
    })
    await h.request("GET", "/meetings/65f1a2b3c4d5e6f708192a3b")
    await h.booted.services.tracer.flush()
    const spans = received.flatMap((r) =>
      r.body.resourceSpans.flatMap((rs: any) => rs.scopeSpans.flatMap((ss: any) => ss.spans)),
    )
    expect(received[0].path).toBe("/v1/traces")
    expect(received[0].contentType).toBe("application/json")
    expect(received[0].body.resourceSpans[0].resource.attributes).toContainEqual({
      key: "service.name",
      value: { stringValue: "keyspace-test" },
    })
    const health = spans.find((s: any) => s.name === "GET /healthz")
    expect(health).toMatchObject({ traceId, parentSpanId: "00f067aa0ba902b7", kind: 2 })
    expect(health.attributes).toContainEqual({
      key: "http.response.status_code",
      value: { intValue: "200" },
    })
    const unauth = spans.find((s: any) => s.name === "GET /meetings/:id")
    expect(unauth.attributes).toContainEqual({
      key: "http.route",
      value: { stringValue: "/meetings/:id" },
    })
  })

  it("makes a use case's span (Effect.fn) a child of the request's server span, and logs it with the request id", async () => {
    h = await startHarness(
      "pglite",
      { OTEL_EXPORTER_OTLP_ENDPOINT: url, KEYSPACE_LOG_LEVEL: "debug" },
      { background: false },
    )
    const lines: string[] = []
    const spy = vi.spyOn(console, "log").mockImplementation((...args: unknown[]) => {
      lines.push(args.map(String).join(" "))
    })
    try {
      const { runtime, services } = h.booted
      const telemetry = runtime.runSync(Effect.service(Telemetry))
      const probe = Effect.fn("Probe.run")(function* () {
        yield* Effect.logInfo("inside the use case", { pinCode: "9876" })
        return "ok"
      })
      const run = makeRun(runtime, services)
      const observer = requestObserver({ logger: services.logger, metrics: services.metrics, tracer: telemetry.tracer })
      const routes = new Hono<AppEnv>().get("/probe", (c) => run(c, probe(), (v) => c.json({ v })))
      const fetch = edgeFetch({
        observer,
        newRequestId: () => "req-use-case-1",
        getPath: (request) => routes.getPath(request),
        choose: () => routes,
      })
      const traceId = "5bf92f3577b34da6a3ce929d0e0e4737"
      const res = await fetch(new Request("http://localhost/probe", { headers: { traceparent: `00-${traceId}-10f067aa0ba902b7-01` } }))
      expect(res.status).toBe(200)
      await services.tracer.flush()
      const spans = received.flatMap((r) =>
        r.body.resourceSpans.flatMap((rs: any) => rs.scopeSpans.flatMap((ss: any) => ss.spans)),
      )
      const server = spans.find((s: any) => s.name === "GET /probe")
      const useCase = spans.find((s: any) => s.name === "Probe.run")
      expect(server).toMatchObject({ traceId, parentSpanId: "10f067aa0ba902b7", kind: 2 })
      expect(useCase).toMatchObject({ traceId, parentSpanId: server.spanId })
      const line = lines.map((l) => JSON.parse(l)).find((l) => l.msg === "inside the use case")
      expect(line).toMatchObject({ level: "info", requestId: "req-use-case-1", traceId, spanId: useCase.spanId, pinCode: "[redacted]" })
    } finally {
      spy.mockRestore()
    }
  })
})
