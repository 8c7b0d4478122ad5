import * as http from "node:http"
import type { AddressInfo } from "node:net"
import { loadavg } from "node:os"
import { pathToFileURL } from "node:url"
import { boot } from "../adapters/wiring/boot.ts"
import { insertDeliveries } from "../adapters/postgres/deliveries-repo.ts"
import { makeEnvelope } from "../core/events/envelope.ts"

/**
 * Webhook figures: deliveries per second from the dispatcher to a local receiver (draining a
 * committed backlog), visitor events published per second, and the end-to-end lag from a
 * booking change (POST /meetings answered) to its ROOM_BOOK delivery arriving at the
 * receiver, p50/p99. In-process server on the real (system) clock; PGlite in
 * memory unless `databaseUrl` is given. Run alone: `npx tsx bench/webhooks.ts`.
 */

export interface WebhookBenchOptions {
  /** Visitor events published for the throughput run. */
  readonly deliveries?: number
  /** Bookings created for the lag run. */
  readonly bookings?: number
  readonly databaseUrl?: string
}

export interface WebhookBenchResult {
  readonly name: "webhooks"
  readonly engine: "pglite" | "postgres"
  /** Backlog size for the dispatch run. */
  readonly deliveries: number
  /** Dispatcher throughput draining that backlog into one local receiver. */
  readonly deliveriesPerSecond: number
  /** POST visitor-events answered per second (one client, one at a time). */
  readonly publishPerSecond: number
  readonly bookings: number
  readonly lagMs: { readonly p50: number; readonly p99: number; readonly max: number }
  /** 1-minute load average at the end: the figures are relative to what else ran. */
  readonly loadAverage: number
}

const ADMIN = "bench-admin-token-0123456789"
const SECRET = "bench-secret-0123456789abcdef0123456789"

const percentile = (sorted: number[], p: number): number => {
  if (sorted.length === 0) return 0
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!
}

/** Receiver answering 204 at once; calls `onDelivery` with the parsed envelope. */
const startReceiver = (onDelivery: (envelope: any) => void) =>
  new Promise<{ url: string; close: () => Promise<void> }>((resolve) => {
    const server = http.createServer((req, res) => {
      const chunks: Buffer[] = []
      req.on("data", (c: Buffer) => chunks.push(c))
      req.on("end", () => {
        res.writeHead(204).end()
        onDelivery(JSON.parse(Buffer.concat(chunks).toString("utf8")))
      })
    })
    server.listen(0, "127.0.0.1", () =>
      resolve({
        url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
        close: () =>
          new Promise<void>((done) => {
            server.closeAllConnections()
            server.close(() => done())
          }),
      }),
    )
  })

const localDate = (msFromNow: number): string => {
  // Asia/Bangkok is UTC+7 with no DST: write the offset literally.
  const d = new Date(Date.now() + msFromNow + 7 * 3_600_000)
  return `${d.toISOString().slice(0, 10)}`
}

export const benchWebhooks = async (
  options: WebhookBenchOptions = {},
): Promise<WebhookBenchResult> => {
  const total = options.deliveries ?? 2000
  const bookings = options.bookings ?? 200
  const booted = await boot(
    {
      KEYSPACE_DATA_DIR: "memory",
      KEYSPACE_SEED: "none",
      KEYSPACE_ADMIN_TOKEN: ADMIN,
      KEYSPACE_LOG_LEVEL: "silent",
      KEYSPACE_ALLOW_INSECURE_WEBHOOKS: "1",
      ...(options.databaseUrl ? { DATABASE_URL: options.databaseUrl } : {}),
    },
    { print: () => {} },
  )
  const call = async (method: string, path: string, body: unknown, token = ADMIN) => {
    const res = await booted.app.request(path, {
      method,
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: JSON.stringify(body),
    })
    return { status: res.status, body: (await res.json()) as any }
  }

  let received = 0
  let expected = 0
  let lastReceipt = 0
  let allReceived: () => void = () => {}
  const arrivals = new Map<string, number>()
  let lagWaiters = new Map<string, () => void>()
  const rx = await startReceiver((envelope) => {
    const now = performance.now()
    if (envelope.type === "VMS_HOST_CANCELLED") {
      received++
      lastReceipt = now
      if (received === expected) allReceived()
    } else if (envelope.type === "ROOM_BOOK") {
      const key = `${envelope.data.roomName}|${envelope.data.bookingDate}`
      arrivals.set(key, now)
      lagWaiters.get(key)?.()
    }
  })

  try {
    const allDay = { availableTime: { start: "00:00:00", end: "23:59:00" } }
    const dayConfig = Object.fromEntries(
      ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"].map((d) => [d, allDay]),
    )
    const rooms = Array.from({ length: 10 }, (_, i) => ({
      key: `r${i}`, name: `Room ${i}`, zone: "a", floor: "f1", capacity: 4, config: { dayConfig },
    }))
    const applied = await call("PUT", "/admin/v1/manifest", {
      projects: [
        {
          key: "bench", name: "Bench", timezone: "Asia/Bangkok",
          zones: [{ key: "a", name: "A", floors: [{ key: "f1", name: "F1" }] }],
          rooms,
          webhooks: [
            { key: "rx", url: rx.url, secret: SECRET, events: ["VMS_HOST_CANCELLED", "ROOM_BOOK"] },
          ],
        },
      ],
      apps: [
        {
          key: "bench-app",
          appId: "bench-app",
          appSecret: "bench-app-secret",
          projects: ["bench"],
        },
      ],
    })
    if (applied.status !== 200) throw new Error(`manifest: ${JSON.stringify(applied.body)}`)
    const project = applied.body.data.projects.bench

    // Publishing: visitor events through the operator API, one at a time (each is one
    // transaction with its fan-out). Its deliveries are sent meanwhile.
    const at = new Date().toISOString()
    const data = {
      projectId: project.id,
      userId: "bench",
      timestamp: at,
      visitorName: "v",
      hostName: "h",
      hostEmail: "h@bench.example",
      startDateTime: "s",
      endDateTime: "e",
    }
    const publishCount = Math.min(total, 500)
    const publishDone = new Promise<void>((resolve) => (allReceived = resolve))
    expected = publishCount
    const publishStarted = performance.now()
    for (let i = 0; i < publishCount; i++) {
      const res = await call("POST", `/admin/v1/projects/${project.id}/visitor-events`, {
        type: "VMS_HOST_CANCELLED",
        data,
      })
      if (res.status !== 202) throw new Error(`publish: ${JSON.stringify(res.body)}`)
    }
    const publishPerSecond = publishCount / ((performance.now() - publishStarted) / 1000)
    await publishDone

    // Dispatch: a backlog of `total` deliveries committed at once (as after an outage), then
    // timed from the wake-up to the last one received.
    const s = booted.services
    const now = s.clock.now()
    const rows = Array.from({ length: total }, () => {
      const id = s.newId()
      const envelope = makeEnvelope({
        id,
        type: "VMS_HOST_CANCELLED",
        occurredAt: now,
        projectId: project.id,
        data,
      })
      return {
        id,
        webhookId: project.webhooks.rx as string,
        projectId: project.id as string,
        type: "VMS_HOST_CANCELLED",
        eventId: id,
        body: JSON.stringify(envelope),
        occurredAt: now,
        now,
      }
    })
    received = 0
    expected = total
    const drained = new Promise<void>((resolve) => (allReceived = resolve))
    // The commit wakes the dispatcher (wakeAfterCommit).
    await s.database.db.transaction((tx) => insertDeliveries(tx, rows))
    const started = performance.now()
    await drained
    const deliveriesPerSecond = total / ((lastReceipt - started) / 1000)

    // Lag: one booking at a time, from the answered POST to the delivery's arrival.
    const tokenResponse = await booted.app.request("/auth/accessToken", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        grant_type: "app_credentials",
        app_id: "bench-app",
        app_secret: "bench-app-secret",
      }),
    })
    const token = ((await tokenResponse.json()) as { access_token: string }).access_token
    const day = localDate(2 * 86_400_000)
    const lags: number[] = []
    for (let i = 0; i < bookings; i++) {
      const room = i % rooms.length
      const slot = Math.floor(i / rooms.length)
      const hh = String(Math.floor(slot / 2)).padStart(2, "0")
      const mm = slot % 2 === 0 ? "00" : "30"
      const endSlot = slot + 1
      const eh = String(Math.floor(endSlot / 2)).padStart(2, "0")
      const em = endSlot % 2 === 0 ? "00" : "30"
      const key = `Room ${room}|${day}T${hh}:${mm}:00+07:00`
      const arrived = new Promise<void>((resolve) => lagWaiters.set(key, resolve))
      const res = await call(
        "POST",
        "/meetings",
        {
          meetingRoomId: project.rooms[`r${room}`],
          title: `lag ${i}`,
          startDateTime: `${day}T${hh}:${mm}:00+07:00`,
          endDateTime: `${day}T${eh}:${em}:00+07:00`,
        },
        token,
      )
      const answered = performance.now()
      if (res.status >= 300) throw new Error(`booking: ${JSON.stringify(res.body)}`)
      await arrived
      lags.push(Math.max(0, arrivals.get(key)! - answered))
    }
    lagWaiters = new Map()
    lags.sort((a, b) => a - b)
    const round = (n: number) => Math.round(n * 10) / 10
    return {
      name: "webhooks",
      engine: booted.services.database.engine,
      deliveries: total,
      deliveriesPerSecond: Math.round(deliveriesPerSecond),
      publishPerSecond: Math.round(publishPerSecond),
      bookings,
      lagMs: {
        p50: round(percentile(lags, 50)),
        p99: round(percentile(lags, 99)),
        max: round(lags.at(-1) ?? 0),
      },
      loadAverage: round(loadavg()[0] ?? 0),
    }
  } finally {
    await rx.close()
    await booted.close()
  }
}

/** The name the bench runner looks for, like runSchedulerBench. */
export const runWebhooksBench = benchWebhooks

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const result = await benchWebhooks({ databaseUrl: process.env.DATABASE_URL })
  console.log(JSON.stringify(result, null, 2))
}
