import { spawn } from "node:child_process"
import { existsSync, mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { sql } from "drizzle-orm"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { execute } from "../../../adapters/postgres/database.ts"
import { boot, type Booted } from "../../../adapters/wiring/boot.ts"
import { freshPostgresDatabase } from "../../support/databases.ts"
import { ADMIN_TOKEN } from "../../support/harness.ts"

/**
 * Issue 15, point 5: a PGlite directory filled through the API moves to PostgreSQL with the one
 * documented command, and the server started on PostgreSQL finds every booking, payment,
 * credential, webhook delivery and pending tick, and goes on applying the ticks.
 */
const root = new URL("../../..", import.meta.url).pathname
const START = "2030-01-07T09:00:00+07:00"
const SECRET = "move-secret-0123456789"

const call = async (b: Booted, method: string, path: string, body?: unknown, token = ADMIN_TOKEN) => {
  const res = await b.app.request(path, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  })
  const text = await res.text()
  return { status: res.status, body: text ? JSON.parse(text) : undefined }
}

const moveCommand = (env: Record<string, string>) =>
  new Promise<{ code: number | null; out: string }>((resolve) => {
    const child = spawn("npm", ["run", "--silent", "db:move-to-postgres"], { cwd: root, env: { ...process.env, ...env } })
    let out = ""
    child.stdout.on("data", (d: Buffer) => (out += d.toString()))
    child.stderr.on("data", (d: Buffer) => (out += d.toString()))
    child.on("exit", (code) => resolve({ code, out }))
  })

interface Snapshot {
  meetings: Array<{ _id: string; status: string; title: string }>
  pendingTicks: number
  deliveries: number
  unpaid: { status: string; payment: unknown }
}

describe("moving from PGlite to PostgreSQL", () => {
  const dir = mkdtempSync(join(tmpdir(), "keyspace-move-"))
  const dataDir = join(dir, "data")
  let pg: { url: string; drop: () => Promise<void> }
  const env = {
    KEYSPACE_ADMIN_TOKEN: ADMIN_TOKEN, KEYSPACE_CLOCK: "manual", KEYSPACE_CLOCK_START: START,
    KEYSPACE_LOG_LEVEL: "silent", KEYSPACE_ALLOW_INSECURE_WEBHOOKS: "1",
  }
  beforeAll(async () => {
    pg = await freshPostgresDatabase()
  })
  afterAll(async () => {
    await pg?.drop()
    rmSync(dir, { recursive: true, force: true })
  })

  const snapshot = async (b: Booted, token: string, ids: { webhook: string; unpaid: string }): Promise<Snapshot> => {
    const list = await call(b, "GET", "/meetings?from=2030-01-07T00:00:00%2B07:00&to=2030-01-08T00:00:00%2B07:00&limit=100", undefined, token)
    const [ticks] = await execute<{ n: number }>(b.services.database.db, sql`select count(*)::int as n from scheduled_ticks where fired_at is null`)
    const deliveries = await call(b, "GET", `/admin/v1/webhooks/${ids.webhook}/deliveries`)
    const unpaid = await call(b, "GET", `/meetings/${ids.unpaid}`, undefined, token)
    return {
      meetings: (list.body.data as Snapshot["meetings"]).map(({ _id, status, title }) => ({ _id, status, title })).sort((a, b) => a._id.localeCompare(b._id)),
      pendingTicks: ticks!.n,
      deliveries: deliveries.body.meta.total,
      unpaid: { status: unpaid.body.data.status, payment: unpaid.body.data.payment },
    }
  }

  it("one command moves everything; the server on PostgreSQL finds every booking and pending tick", { timeout: 240_000 }, async () => {
    // 1. Fill an embedded directory through the API.
    const embedded = await boot({ ...env, KEYSPACE_DATA_DIR: dataDir }, { print: () => {} })
    let before: Snapshot
    let ids: { webhook: string; unpaid: string }
    let token: string
    try {
      await call(embedded, "POST", "/admin/v1/apps/demo-app/secret", { appSecret: SECRET })
      const manifest = (await call(embedded, "GET", "/admin/v1/manifest/ids")).body.data
      const demo = manifest.projects.demo
      const hook = await call(embedded, "PUT", "/admin/v1/manifest", {
        projects: [{
          key: "demo", name: "Keyspace Demo Tower", timezone: "Asia/Bangkok",
          // Nothing listens there: deliveries stay pending with failed attempts.
          webhooks: [{ key: "ops", url: "http://127.0.0.1:9/hook", secret: "s".repeat(32), events: ["ROOM_BOOK", "ROOM_CANCEL"] }],
        }],
      })
      expect(hook.status).toBe(200)
      const tokenRes = await embedded.app.request("/auth/accessToken", {
        method: "POST", headers: { "content-type": "application/json" },
        body: JSON.stringify({ grant_type: "app_credentials", app_id: "demo-app", app_secret: SECRET }),
      })
      token = ((await tokenRes.json()) as { access_token: string }).access_token
      const book = async (room: string, title: string, from: string, to: string) => {
        const res = await call(embedded, "POST", "/meetings", { meetingRoomId: demo.rooms[room], title, startDateTime: from, endDateTime: to }, token)
        expect(res.status, JSON.stringify(res.body)).toBe(201)
        return res.body.data._id as string
      }
      await book("lotus", "stays active", "2030-01-07T10:00:00+07:00", "2030-01-07T11:00:00+07:00")
      const cancelled = await book("orchid", "gets cancelled", "2030-01-07T10:00:00+07:00", "2030-01-07T11:00:00+07:00")
      expect((await call(embedded, "POST", `/meetings/${cancelled}/cancel`, {}, token)).status).toBeLessThan(300)
      const unpaid = await book("jasmine", "paid room, not paid yet", "2030-01-07T12:00:00+07:00", "2030-01-07T13:00:00+07:00")
      await book("lotus", "afternoon", "2030-01-07T15:00:00+07:00", "2030-01-07T16:00:00+07:00")
      ids = { webhook: manifest.projects.demo.webhooks?.ops ?? hook.body.data.projects.demo.webhooks.ops, unpaid }
      before = await snapshot(embedded, token, ids)
      expect(before.meetings).toHaveLength(4)
      expect(before.pendingTicks).toBeGreaterThan(0)
      expect(before.unpaid.status).toBe("unpaid")
      expect(before.deliveries).toBeGreaterThan(0)
    } finally {
      await embedded.close()
    }

    // 2. The documented command.
    const moved = await moveCommand({ KEYSPACE_DATA_DIR: dataDir, DATABASE_URL: pg.url })
    expect(moved.code, moved.out).toBe(0)
    expect(moved.out).toMatch(/Moved \d+ rows/)

    // 3. Start on PostgreSQL: everything is there, the old token and secret still work.
    const server = await boot({ ...env, DATABASE_URL: pg.url }, { print: () => {} })
    try {
      const after = await snapshot(server, token!, ids!)
      expect(after).toEqual(before!)
      expect((await call(server, "GET", "/admin/v1/manifest/ids")).body.data.apps["demo-app"]).toBeDefined()
      // The ticks are live: past the payment window the unpaid booking lapses.
      await call(server, "POST", "/admin/v1/clock/advance", { minutes: 6 })
      const lapsed = await call(server, "GET", `/meetings/${ids!.unpaid}`, undefined, token!)
      expect(lapsed.body.data.status).toBe("cancelled")
      // New rows get fresh sequence numbers (no collision with copied ones).
      const more = await call(server, "POST", "/meetings", {
        meetingRoomId: (await call(server, "GET", "/admin/v1/manifest/ids")).body.data.projects.demo.rooms.orchid,
        title: "after the move", startDateTime: "2030-01-07T17:00:00+07:00", endDateTime: "2030-01-07T18:00:00+07:00",
      }, token!)
      expect(more.status).toBe(201)
      // The invoice numbers continue too (their sequence stands alone): a paid create the same
      // day takes the next number, not one a copied payment holds.
      const paid = await call(server, "POST", "/meetings", {
        meetingRoomId: (await call(server, "GET", "/admin/v1/manifest/ids")).body.data.projects.demo.rooms.jasmine,
        title: "paid after the move", startDateTime: "2030-01-07T19:00:00+07:00", endDateTime: "2030-01-07T20:00:00+07:00",
      }, token!)
      expect(paid.status, JSON.stringify(paid.body)).toBe(201)
      expect(paid.body.data.payment.invoiceNo).toMatch(/-000002$/)
    } finally {
      await server.close()
    }

    // 4. A second move into a database with data refuses, naming the variable.
    const again = await moveCommand({ KEYSPACE_DATA_DIR: dataDir, DATABASE_URL: pg.url })
    expect(again.code).toBe(2)
    expect(again.out).toMatch(/DATABASE_URL: the target database already has data/)

    // 5. A mistyped data directory refuses, naming the variable, and creates nothing there.
    const typo = `${dataDir}-typo`
    const wrong = await moveCommand({ KEYSPACE_DATA_DIR: typo, DATABASE_URL: pg.url })
    expect(wrong.code).toBe(2)
    expect(wrong.out).toMatch(/KEYSPACE_DATA_DIR: .* holds no embedded database/)
    expect(existsSync(typo)).toBe(false)
  })
})
