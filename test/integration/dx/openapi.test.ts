import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { Validator } from "@seriousme/openapi-schema-validator"
import { errorTable } from "../../../adapters/http/error-table.ts"
import { operationCatalog } from "../../../adapters/http/openapi/catalog.ts"
import { routeKey, toOpenApiPath } from "../../../adapters/http/openapi/document.ts"
import { bookingDataSchemas } from "../../../adapters/http/openapi/webhooks.ts"
import { bookingPayload, type BookingEventContext } from "../../../core/events/booking-payloads.ts"
import type { BookingDomainEvent } from "../../../core/events/domain-events.ts"
import { BOOKING_EVENT_TYPES, EVENT_TYPES, makeEnvelope } from "../../../core/events/envelope.ts"
import { startHarness, type Harness } from "../../support/harness.ts"
import { APP_ID, APP_SECRET, dxManifest, pngBase64 } from "./support/dx-world.ts"
import { openApiProblems, responseSchema, schemaErrors } from "./support/openapi-check.ts"

/**
 * Issue 9: the OpenAPI document covers every route the app serves, is valid OpenAPI 3.1, and
 * agrees with what the server really answers.
 */
describe("OpenAPI document", () => {
  let h: Harness
  let doc: any
  beforeAll(async () => {
    h = await startHarness("pglite", {}, { background: false })
    const res = await h.request("GET", "/openapi.json")
    expect(res.status).toBe(200)
    doc = res.body
  })
  afterAll(async () => h?.close())

  const served = () =>
    h.booted.app.routes
      .filter((r) => r.method !== "ALL")
      .map((r) => ({ method: r.method.toLowerCase(), path: r.path }))

  it("GET /openapi.json needs no token and is OpenAPI 3.1", async () => {
    const res = await h.request("GET", "/openapi.json")
    expect(res.headers.get("content-type")).toContain("application/json")
    expect(doc.openapi).toBe("3.1.0")
    expect(doc.info.version).toBe("1.11.1")
  })

  it("every route the app serves is in the document", () => {
    const missing = served().filter((r) => !doc.paths[toOpenApiPath(r.path)]?.[r.method])
    expect(missing).toEqual([])
    expect(served().length).toBeGreaterThanOrEqual(20)
  })

  it("every catalog entry is a route the app serves (no stale documentation)", () => {
    const keys = new Set(served().map((r) => routeKey(r.method, r.path)))
    const stale = operationCatalog
      .flatMap((g) => g.operations)
      .filter((op) => !keys.has(routeKey(op.method, op.path)))
    expect(stale.map((op) => routeKey(op.method, op.path))).toEqual([])
  })

  it("validates structurally as OpenAPI 3.1 (required fields, refs, parameters, operationIds)", () => {
    expect(openApiProblems(doc)).toEqual([])
  })

  it("validates against the official OpenAPI 3.1 schema", async () => {
    const validator = new Validator()
    const result = await validator.validate(structuredClone(doc))
    expect(result.errors ?? []).toEqual([])
    expect(result.valid).toBe(true)
  })

  it("has the bearer security scheme, the token endpoint and the envelope", () => {
    expect(doc.components.securitySchemes.bearerAuth).toMatchObject({
      type: "http",
      scheme: "bearer",
    })
    const token = doc.paths["/auth/accessToken"].post
    expect(token.security).toEqual([])
    expect(token.responses["201"].content["application/json"].schema.$ref).toBe(
      "#/components/schemas/TokenResponse",
    )
    const meeting = doc.paths["/meetings/{id}"].get
    expect(meeting.security).toEqual([{ bearerAuth: [] }])
    expect(JSON.stringify(meeting.responses["200"])).toContain(
      "#/components/schemas/SuccessEnvelope",
    )
    expect(doc.components.schemas.ErrorEnvelope.required).toEqual(["code", "success", "message"])
  })

  it("request schemas are the validating Effect Schemas (constraints carried over)", () => {
    const create = doc.components.schemas.CreateMeetingRequest
    expect(create.required).toEqual(expect.arrayContaining(["title", "startDateTime"]))
    expect(create.properties.paymentChannel.enum).toEqual([
      "prompt-pay",
      "credit-card",
      "alipay",
      "true-money",
      "we-chat",
    ])
    const upsert = doc.components.schemas.PartnerMemberUpsertRequest
    expect(upsert.required).toEqual(["firstName", "lastName"])
    const actAs = doc.components.schemas.ActAsGrant
    expect(actAs.properties.subject.maxLength).toBe(128)
    const listMeetings = doc.paths["/meetings"].get.parameters
    expect(listMeetings.find((p: any) => p.name === "from").required).toBe(true)
    expect(listMeetings.find((p: any) => p.name === "statuses")).toMatchObject({
      style: "form",
      explode: true,
    })
  })

  it("text bounds are in characters (code points) in the document and on the server alike; a minimum is never halved", () => {
    // Effect's own isMinLength counts UTF-16 units and documents half the minimum in code points.
    const text: Array<[string, { minLength?: number; maxLength?: number }]> = []
    const walk = (v: unknown, path: string) => {
      if (typeof v !== "object" || v === null) return
      const o = v as Record<string, unknown>
      if (o.type === "string" && (o.minLength !== undefined || o.maxLength !== undefined)) text.push([path, o as never])
      for (const [k, child] of Object.entries(o)) walk(child, `${path}.${k}`)
    }
    walk(doc, "")
    const bound = (suffix: string) => text.filter(([p]) => p.endsWith(suffix)).map(([, b]) => b)
    expect(bound(".properties.appSecret")).toEqual([
      { type: "string", minLength: 8, maxLength: 256 },
      { type: "string", minLength: 8, maxLength: 256 },
    ].map(({ type: _, ...b }) => expect.objectContaining(b)))
    expect(bound("CreateMeetingRequest.properties.title")).toEqual([expect.objectContaining({ minLength: 1, maxLength: 500 })])
  })

  it("what answers carry is declared: error data by case, the delivery log's fields, a history entry's facts, the pay page's 413", () => {
    const data = doc.components.schemas.ErrorEnvelope.properties.data
    expect(data.properties.conflictKey.enum).toEqual(["email", "phone", "employeeId", "unit.addressNo"])
    expect(Object.keys(data.properties)).toEqual(["conflictKey", "linkedExternalUserId", "status", "limit", "retryAfterSeconds"])
    expect(Object.keys(doc.components.schemas.DeliveryLogEntry.properties)).toEqual(
      expect.arrayContaining(["webhookId", "occurredAt", "createdAt", "nextAttemptAt"]),
    )
    expect(Object.keys(doc.components.schemas.MeetingHistory.properties)).toEqual(
      expect.arrayContaining(["fields", "reason", "occurrenceEventId", "paymentId", "invoiceNo", "amount", "restored"]),
    )
    expect(doc.paths["/pay/{paymentId}"].post.responses["413"].content["application/json"]).toBeDefined()
    // Request rules the contract states: the manifest's keys, the visitor event types.
    expect(doc.components.schemas.Manifest.properties.projects.items.properties.key.pattern).toBe("^[a-z0-9_-]{1,64}$")
    const visitor = doc.paths["/admin/v1/projects/{projectId}/visitor-events"].post.requestBody.content["application/json"].schema
    expect(JSON.stringify(visitor.properties.type)).toContain('"enum":["VMS_INVITE_SENT","VMS_VISITOR_CHECKED_IN","VMS_HOST_CANCELLED"]')
  })

  it("every error code of the error table is documented, with its status", () => {
    const text = JSON.stringify(doc.paths)
    for (const [tag, row] of Object.entries(errorTable)) {
      const documented = Object.values<any>(doc.paths).some((item) =>
        Object.values<any>(item).some((op) => {
          const r = op.responses?.[String(row.status)]
          return r && JSON.stringify(r).includes(`"${row.code}"`)
        }),
      )
      expect(documented, `${tag} (${row.status} ${row.code})`).toBe(true)
    }
    expect(text).toContain("SV004")
    expect(doc.info.description).toContain("| 429 | SV036 |")
  })

  it("every example validates against its schema", () => {
    let checked = 0
    for (const [path, item] of Object.entries<any>(doc.paths))
      for (const [method, op] of Object.entries<any>(item)) {
        const bodies = [
          op.requestBody?.content?.["application/json"],
          ...Object.values<any>(op.responses).map((r) => r.content?.["application/json"]),
        ]
        for (const media of bodies) {
          if (!media?.examples) continue
          for (const [name, ex] of Object.entries<any>(media.examples)) {
            expect(
              schemaErrors(doc, media.schema, ex.value),
              `${method} ${path} example ${name}`,
            ).toEqual([])
            checked++
          }
        }
      }
    expect(checked).toBeGreaterThan(20)
  })

  it("lists every webhook event type, with the spec's delivery headers, under a declared tag", () => {
    expect(Object.keys(doc.webhooks).sort()).toEqual([...EVENT_TYPES].sort())
    const book = doc.webhooks.ROOM_BOOK.post
    expect(doc.tags.map((t: any) => t.name)).toContain(book.tags[0])
    expect(book.parameters.map((p: any) => p.name)).toEqual([
      "User-Agent",
      "X-Service-Event",
      "X-Service-Delivery",
      "X-Service-Timestamp",
      "X-Service-Signature",
    ])
  })

  it("webhook schemas accept what the core payload builders produce", () => {
    const ctx = (assetKind: "room" | "desk"): BookingEventContext => ({
      projectId: "p1",
      userId: "u1",
      assetKind,
      assetName: "Lotus",
      floorName: "F1",
      timezone: "Asia/Bangkok",
      start: Date.UTC(2030, 0, 7, 3),
      end: Date.UTC(2030, 0, 7, 4),
      organizerName: "Alice",
      organizerEmail: "a@x.example",
      attendeeNames: ["Bob"],
    })
    const at = Date.UTC(2030, 0, 7, 2)
    const events: BookingDomainEvent[] = [
      { kind: "BOOK", bookingId: "b", at },
      {
        kind: "MODIFY",
        bookingId: "b",
        at,
        oldStart: at,
        oldEnd: at + 3.6e6,
        newStart: at,
        newEnd: at + 7.2e6,
      },
      { kind: "CANCEL", bookingId: "b", at, reason: "no-show" },
      { kind: "REMINDER", bookingId: "b", at, minutesUntilStart: 15 },
      { kind: "NO_SHOW_WARNING", bookingId: "b", at, minutesUntilAutoCancel: 5 },
      { kind: "ENDING_SOON", bookingId: "b", at, minutesUntilEnd: 15 },
    ]
    const seen = new Set<string>()
    for (const kind of ["room", "desk"] as const)
      for (const e of events) {
        const { type, data } = bookingPayload(e, ctx(kind))
        const envelope = makeEnvelope({ id: "d1", type, occurredAt: at, projectId: "p1", data })
        const schema = doc.webhooks[type].post.requestBody.content["application/json"].schema
        expect(schemaErrors(doc, schema, envelope), type).toEqual([])
        expect(Object.keys(bookingDataSchemas)).toContain(type)
        seen.add(type)
      }
    expect([...seen].sort()).toEqual([...BOOKING_EVENT_TYPES].sort())
  })

  describe("real responses match the document", () => {
    const check = (method: string, path: string, res: { status: number; body: unknown }) => {
      const schema = responseSchema(doc, method, path, res.status)
      expect(schema, `${method} ${path} documents ${res.status}`).toBeDefined()
      expect(schemaErrors(doc, schema, res.body), `${method} ${path} ${res.status}`).toEqual([])
    }

    it("foundation, assets, a booking's lifecycle and the partner surface", async () => {
      const ids = (await h.admin("PUT", "/manifest", dxManifest())).body
      check("PUT", "/admin/v1/manifest", { status: 200, body: ids })
      const project = ids.data.projects.dx
      check("GET", "/healthz", await h.request("GET", "/healthz"))
      check("GET", "/admin/v1/clock", await h.admin("GET", "/clock"))
      const tokenRes = await h.request("POST", "/auth/accessToken", {
        body: { grant_type: "app_credentials", app_id: APP_ID, app_secret: APP_SECRET },
      })
      check("POST", "/auth/accessToken", tokenRes)
      check(
        "POST",
        "/auth/accessToken",
        await h.request("POST", "/auth/accessToken", { body: { grant_type: "nope" } }),
      )
      const token = tokenRes.body.access_token
      const call = (method: string, path: string, body?: unknown) =>
        h.request(method, path, { token, body })

      check("GET", "/meeting-rooms", await call("GET", `/meeting-rooms?projectId=${project.id}`))
      check(
        "GET",
        "/meeting-rooms",
        await call(
          "GET",
          `/meeting-rooms?projectId=${project.id}&startDateTime=2030-01-07T10:00:00%2B07:00&endDateTime=2030-01-07T11:00:00%2B07:00`,
        ),
      )
      check(
        "GET",
        "/meeting-rooms/{id}",
        await call("GET", `/meeting-rooms/${project.rooms.lotus}`),
      )
      check("GET", "/desks", await call("GET", `/desks?projectId=${project.id}`))
      check("GET", "/desks/{id}", await call("GET", `/desks/${project.desks.d1}`))
      check("GET", "/meetings/{id}", await call("GET", "/meetings/65f1a2b3c4d5e6f708192a3b"))

      const created = await call("POST", "/meetings", {
        meetingRoomId: project.rooms.lotus,
        title: "Sync",
        startDateTime: "2030-01-07T10:00:00+07:00",
        endDateTime: "2030-01-07T11:00:00+07:00",
      })
      expect(created.status).toBe(201)
      check("POST", "/meetings", created)
      check("POST", "/meetings", await call("POST", "/meetings", { title: "" }))
      const id = created.body.data._id
      check("GET", "/meetings/{id}", await call("GET", `/meetings/${id}`))
      check(
        "GET",
        "/meetings",
        await call(
          "GET",
          `/meetings?from=2030-01-07T00:00:00%2B07:00&to=2030-01-08T00:00:00%2B07:00`,
        ),
      )
      check("PATCH", "/meetings/{id}", await call("PATCH", `/meetings/${id}`, { title: "Sync 2" }))
      await h.advance(50)
      check("POST", "/meetings/{id}/check-in", await call("POST", `/meetings/${id}/check-in`))
      check("POST", "/meetings/{id}/cancel", await call("POST", `/meetings/${id}/cancel`))
      check("POST", "/meetings/{id}/check-out", await call("POST", `/meetings/${id}/check-out`))

      const member = "/partner/members/dx-user-1"
      check(
        "PUT",
        "/partner/members/{externalUserId}",
        await call("PUT", member, { firstName: "Dee", lastName: "X", unit: { addressNo: "99/1" } }),
      )
      check(
        "PUT",
        "/partner/members/{externalUserId}/credentials",
        await call("PUT", `${member}/credentials`, {
          face: pngBase64(),
          faceConsentAt: "2030-01-07T09:00:00+07:00",
        }),
      )
      check("GET", "/partner/members/{externalUserId}", await call("GET", member))
      expect((await call("DELETE", member)).status).toBe(204)
      check(
        "PUT",
        "/partner/members/{externalUserId}/credentials",
        await call("PUT", `${member}/credentials`, { cards: [] }),
      )
    })
  })
})
