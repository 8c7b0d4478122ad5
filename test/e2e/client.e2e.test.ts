import type { AddressInfo } from "node:net"
import { serve, type ServerType } from "@hono/node-server"
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest"
import { sign } from "../../adapters/webhooks/signer.ts"
import {
  KeyspaceClient,
  KeyspaceError,
  keyRows,
  rowKey,
  webhooks,
} from "../../clients/typescript/src/index.ts"
import { ADMIN_TOKEN, startHarness, type Harness } from "../support/harness.ts"
import { APP_ID, APP_SECRET, dxManifest, pngBase64 } from "../integration/dx/support/dx-world.ts"

/**
 * The typed client against the real server over a real socket. A wrapper fetch records every
 * call and injects failures (5xx, 429, 401, network errors) in front of the server, so each
 * rule of the spec's client guidance is shown on the wire.
 */

type Outcome = number | "network"
interface Call {
  readonly method: string
  readonly path: string
  readonly grant?: string
  readonly status: number | "network"
  readonly injected: boolean
}

describe("TypeScript client against the real server", () => {
  let h: Harness | undefined
  let server: ServerType | undefined
  let baseUrl: string
  let ids: any
  const calls: Call[] = []
  const injections: Array<{
    match: (method: string, path: string) => boolean
    outcomes: Outcome[]
  }> = []
  const sleeps: number[] = []
  let clientNow = Date.parse("2030-01-07T02:00:00Z")

  const wrappedFetch: typeof fetch = async (input, init) => {
    const url = new URL(String(input))
    const method = init?.method ?? "GET"
    const grant =
      url.pathname === "/auth/accessToken" && typeof init?.body === "string"
        ? (JSON.parse(init.body).grant_type as string)
        : undefined
    const injection = injections.find((i) => i.outcomes.length > 0 && i.match(method, url.pathname))
    const outcome = injection?.outcomes.shift()
    if (outcome === "network") {
      calls.push({ method, path: url.pathname, grant, status: "network", injected: true })
      throw new TypeError("fetch failed")
    }
    if (outcome !== undefined) {
      calls.push({ method, path: url.pathname, grant, status: outcome, injected: true })
      const code = outcome === 429 ? "SV036" : outcome === 401 ? "SV002" : "SV004"
      return new Response(JSON.stringify({ code, success: false, message: "injected" }), {
        status: outcome,
        headers: {
          "content-type": "application/json",
          ...(outcome === 429 ? { "retry-after": "1" } : {}),
        },
      })
    }
    const res = await fetch(input, init)
    calls.push({ method, path: url.pathname, grant, status: res.status, injected: false })
    return res
  }

  const inject = (method: string, path: string | RegExp, outcomes: Outcome[]) =>
    injections.push({
      match: (m, p) => m === method && (typeof path === "string" ? p === path : path.test(p)),
      outcomes,
    })

  const client = (extra: Partial<ConstructorParameters<typeof KeyspaceClient>[0]> = {}) =>
    new KeyspaceClient({
      baseUrl,
      credentials: { appId: APP_ID, appSecret: APP_SECRET },
      operatorToken,
      fetch: wrappedFetch,
      now: () => clientNow,
      sleep: async (ms) => {
        sleeps.push(ms)
      },
      ...extra,
    })

  const tokenCalls = () => calls.filter((c) => c.path === "/auth/accessToken")
  const callsTo = (method: string, path: string) =>
    calls.filter((c) => c.method === method && c.path === path)

  // Under .ci/runtime-smoke the server is a real Node, Bun or Deno process (KEYSPACE_E2E_URL);
  // otherwise one is booted here and served over a real socket.
  const externalUrl = process.env.KEYSPACE_E2E_URL
  const operatorToken = externalUrl
    ? (process.env.KEYSPACE_E2E_ADMIN_TOKEN ?? ADMIN_TOKEN)
    : ADMIN_TOKEN
  /** Moves the server's manual clock, outside the recorded fetch. */
  const advanceServerClock = (minutes: number) =>
    new KeyspaceClient({ baseUrl, operatorToken }).operator.advanceClock({ minutes })

  /**
   * Booking times are property-local (Asia/Bangkok) on day `n` after the server's date, so the
   * suite also runs against a shared server whose manual clock other suites have moved.
   */
  let serverNow = 0
  const at = (day: number, hm: string) => {
    const local = new Date(serverNow + 7 * 3_600_000 + day * 86_400_000).toISOString().slice(0, 10)
    return `${local}T${hm}:00+07:00`
  }

  beforeAll(async () => {
    if (externalUrl) baseUrl = externalUrl.replace(/\/+$/, "")
    else {
      const harness = await startHarness("pglite", {}, { background: false })
      h = harness
      const listening = await new Promise<ServerType>((resolve) => {
        const s = serve({ fetch: harness.booted.app.fetch, port: 0, hostname: "127.0.0.1" }, () =>
          resolve(s),
        )
      })
      server = listening
      baseUrl = `http://127.0.0.1:${(listening.address() as AddressInfo).port}`
    }
    ids = (await client().operator.applyManifest(dxManifest())) as any
    serverNow = Date.parse(
      (await new KeyspaceClient({ baseUrl, operatorToken }).operator.clock()).now,
    )
    clientNow = serverNow
  })
  afterAll(async () => {
    await new Promise<void>((r) => (server ? server.close(() => r()) : r()))
    await h?.close()
  })
  beforeEach(() => {
    calls.length = 0
    injections.length = 0
    sleeps.length = 0
  })

  it("typed calls cover the booking flow, the partner surface and the operator API", async () => {
    const ks = client()
    const project = ids.projects.dx
    expect(await ks.health()).toEqual({ status: "ok" })
    const rooms = await ks.meetingRooms.list({
      projectId: project.id,
      startDateTime: at(1, "10:00"),
      endDateTime: at(1, "11:00"),
    })
    expect(rooms.map((r) => r.name)).toContain("Lotus")
    expect((await ks.meetingRooms.get(project.rooms.lotus)).name).toBe("Lotus")
    const desks = await ks.desks.list({ projectId: project.id, limit: 10 })
    expect(desks.meta).toMatchObject({ limit: 10, offset: 0 })
    expect((await ks.desks.get(project.desks.d1))._id).toBe(project.desks.d1)

    const meeting = await ks.meetings.create({
      meetingRoomId: project.rooms.lotus,
      title: "Client flow",
      startDateTime: at(1, "14:00"),
      endDateTime: at(1, "15:00"),
    })
    expect(meeting.status).toBe("active")
    expect((await ks.meetings.update(meeting._id, { title: "Client flow 2" })).title).toBe(
      "Client flow 2",
    )
    expect((await ks.meetings.get(meeting._id)).title).toBe("Client flow 2")
    const cancelled = await ks.meetings.cancel(meeting._id)
    expect(cancelled.status).toBe("cancelled")

    const member = await ks.partnerMembers.upsert("client-user", {
      firstName: "Cli",
      lastName: "Ent",
    })
    expect(member.created).toBe(true)
    const creds = await ks.partnerMembers.setCredentials("client-user", {
      face: pngBase64(),
      faceConsentAt: new Date(serverNow).toISOString(),
    })
    expect(creds.face).toEqual({ present: true })
    expect((await ks.partnerMembers.get("client-user")).status).toBe("active")
    await ks.partnerMembers.offboard("client-user")
    expect((await ks.partnerMembers.get("client-user")).status).toBe("deactivated")
    expect((await ks.operator.clock()).mode).toBe("manual")
    // One token for the whole flow.
    expect(tokenCalls().map((c) => c.grant)).toEqual(["app_credentials"])
  })

  describe("token refresh: when expiry is within 5 minutes", () => {
    it("keeps the token while more than 5 minutes remain, then refreshes with the refresh token", async () => {
      const ks = client()
      await ks.meetings.get(ids.projects.dx.rooms.lotus).catch(() => {})
      expect(tokenCalls().map((c) => c.grant)).toEqual(["app_credentials"])
      clientNow += 54 * 60_000 // 6 minutes left of 60
      await ks.desks.list({ projectId: ids.projects.dx.id })
      expect(tokenCalls()).toHaveLength(1)
      clientNow += 2 * 60_000 // 4 minutes left
      await ks.desks.list({ projectId: ids.projects.dx.id })
      expect(tokenCalls().map((c) => [c.grant, c.status])).toEqual([
        ["app_credentials", 201],
        ["refresh_token", 201],
      ])
      expect(callsTo("GET", "/desks").every((c) => c.status === 200)).toBe(true)
    })
  })

  describe("401: re-authenticate once, retry once, then propagate", () => {
    // Moving the clock of a shared server would expire other suites' tokens: in-process only.
    it.skipIf(externalUrl !== undefined)(
      "a token the server no longer accepts is replaced and the call retried once",
      async () => {
        const ks = client()
        await ks.desks.list({ projectId: ids.projects.dx.id })
        await advanceServerClock(61) // the server's clock passes the token's expiry; the client's does not
        const page = await ks.desks.list({ projectId: ids.projects.dx.id })
        expect(page.data.length).toBeGreaterThan(0)
        expect(
          calls.map((c) => `${c.method} ${c.path} ${c.grant ?? ""} ${c.status}`.replace("  ", " ")),
        ).toEqual([
          "POST /auth/accessToken app_credentials 201",
          "GET /desks 200",
          "GET /desks 401",
          "POST /auth/accessToken app_credentials 201",
          "GET /desks 200",
        ])
      },
    )

    it("a second 401 propagates after exactly one re-authentication", async () => {
      const ks = client()
      inject("GET", "/desks", [401, 401])
      const err = await ks.desks.list({ projectId: ids.projects.dx.id }).catch((e: unknown) => e)
      expect(err).toBeInstanceOf(KeyspaceError)
      expect((err as KeyspaceError).status).toBe(401)
      expect((err as KeyspaceError).code).toBe("SV002")
      expect(callsTo("GET", "/desks")).toHaveLength(2)
      expect(tokenCalls().map((c) => c.grant)).toEqual(["app_credentials", "app_credentials"])
    })
  })

  describe("retries: network failures, 5xx and 429 with exponential backoff, at most 3 attempts", () => {
    it("5xx twice, then success on the third attempt, backing off 200 then 400 ms", async () => {
      const ks = client()
      inject("GET", "/desks", [503, 500])
      const page = await ks.desks.list({ projectId: ids.projects.dx.id })
      expect(page.data.length).toBeGreaterThan(0)
      expect(callsTo("GET", "/desks").map((c) => c.status)).toEqual([503, 500, 200])
      expect(sleeps).toEqual([200, 400])
    })

    it("gives up after 3 attempts and propagates the last 5xx", async () => {
      const ks = client()
      inject("GET", "/desks", [503, 503, 503, 503])
      const err = (await ks.desks
        .list({ projectId: ids.projects.dx.id })
        .catch((e: unknown) => e)) as KeyspaceError
      expect(err).toBeInstanceOf(KeyspaceError)
      expect(err).toMatchObject({ status: 503, code: "SV004", attempts: 3, retryable: true })
      expect(callsTo("GET", "/desks")).toHaveLength(3)
    })

    it("429 is retried after Retry-After", async () => {
      const ks = client()
      inject("PUT", /^\/partner\/members\//, [429])
      const m = await ks.partnerMembers.upsert("retry-user", { firstName: "R", lastName: "" })
      expect(m.externalUserId).toBe("retry-user")
      expect(calls.filter((c) => c.method === "PUT").map((c) => c.status)).toEqual([429, 200])
      expect(sleeps).toEqual([1000])
    })

    it("network failures are retried", async () => {
      const ks = client()
      await ks.accessToken()
      inject("GET", "/desks", ["network", "network"])
      await ks.desks.list({ projectId: ids.projects.dx.id })
      expect(callsTo("GET", "/desks").map((c) => c.status)).toEqual(["network", "network", 200])
      expect(sleeps).toEqual([200, 400])
    })

    it("the token endpoint itself is retried on 5xx", async () => {
      const ks = client()
      inject("POST", "/auth/accessToken", [502])
      await ks.accessToken()
      expect(tokenCalls().map((c) => c.status)).toEqual([502, 201])
    })

    it("other 4xx are never retried (400, 404, 409)", async () => {
      const ks = client()
      const project = ids.projects.dx
      const notFound = (await ks.meetings
        .get("65f1a2b3c4d5e6f708192a3b")
        .catch((e: unknown) => e)) as KeyspaceError
      expect(notFound).toMatchObject({ status: 404, code: "SV005", attempts: 1 })
      const invalid = (await ks.meetings
        .create({ meetingRoomId: project.rooms.lotus, title: "", startDateTime: "nope" })
        .catch((e: unknown) => e)) as KeyspaceError
      expect(invalid).toMatchObject({ status: 400, code: "SV001", attempts: 1 })
      expect(invalid.messages.length).toBeGreaterThanOrEqual(2)
      const slot = {
        meetingRoomId: project.rooms.lotus,
        title: "Taken",
        startDateTime: at(1, "16:00"),
        endDateTime: at(1, "17:00"),
      }
      await ks.meetings.create(slot)
      const conflict = (await ks.meetings.create(slot).catch((e: unknown) => e)) as KeyspaceError
      expect(conflict).toMatchObject({ status: 409, code: "SV012", attempts: 1, retryable: false })
      expect(callsTo("GET", "/meetings/65f1a2b3c4d5e6f708192a3b")).toHaveLength(1)
      expect(sleeps).toEqual([])
    })

    it("POST /meetings is never resent after a network failure (no idempotency key): reconcile instead", async () => {
      const ks = client()
      await ks.accessToken()
      inject("POST", "/meetings", ["network"])
      const body = {
        meetingRoomId: ids.projects.dx.rooms.lotus,
        title: "Maybe created",
        startDateTime: at(1, "18:00"),
        endDateTime: at(1, "19:00"),
      }
      const err = (await ks.meetings.create(body).catch((e: unknown) => e)) as KeyspaceError
      expect(err).toMatchObject({ status: 0, code: "NETWORK", retryable: true, attempts: 1 })
      expect(callsTo("POST", "/meetings")).toHaveLength(1)
      const page = await ks.meetings.list({
        from: at(1, "18:00"),
        to: at(1, "19:00"),
      })
      expect(page.data.filter((m) => m.title === "Maybe created")).toEqual([])
    })
  })

  it("list rows of a recurring series are keyed on occurrenceEventId, else _id", async () => {
    const ks = client()
    const master = await ks.meetings.create({
      meetingRoomId: ids.projects.dx.rooms.lotus,
      title: "Daily",
      startDateTime: at(2, "08:00"),
      endDateTime: at(2, "08:30"),
      recurrence: "FREQ=DAILY;COUNT=3",
    })
    const single = await ks.meetings.create({
      meetingRoomId: ids.projects.dx.rooms.lotus,
      title: "Once",
      startDateTime: at(2, "09:00"),
      endDateTime: at(2, "09:30"),
    })
    const page = await ks.meetings.list({
      from: at(2, "00:00"),
      to: at(5, "00:00"),
    })
    const series = page.data.filter((m) => m._id === master._id)
    expect(series).toHaveLength(3)
    const keyed = keyRows(page.data)
    expect(keyed.size).toBe(page.data.length)
    for (const row of series) expect(rowKey(row)).toBe(row.occurrenceEventId)
    expect(rowKey(page.data.find((m) => m._id === single._id)!)).toBe(single._id)
  })

  it("re-exports the webhook receiver kit", async () => {
    const body = JSON.stringify({
      id: "d-1",
      type: "ROOM_BOOK",
      version: 1,
      occurredAt: "2030-01-07T02:00:00.000Z",
      projectId: "p",
      data: {},
    })
    const secret = "s".repeat(40)
    const ts = String(Date.now())
    const headers = {
      "X-Service-Timestamp": ts,
      "X-Service-Signature": await sign(secret, ts, body),
      "X-Service-Delivery": "d-1",
      "X-Service-Event": "ROOM_BOOK",
    }
    const ok = await webhooks.verifyDelivery({ secret, headers, rawBody: body })
    expect(ok).toMatchObject({ ok: true, deliveryId: "d-1" })
    expect(
      await webhooks.verifyDelivery({ secret: "x".repeat(40), headers, rawBody: body }),
    ).toMatchObject({ ok: false })
  })
})
