import { drizzle } from "drizzle-orm/postgres-js"
import { describe, expect, it } from "vitest"
import type { Queryable } from "../../adapters/postgres/database.ts"
import { CLOCK_START } from "../support/harness.ts"
import { formatAt } from "../fuzz/request-arbitraries.ts"
import { runWitnesses, setUpFuzzWorld, type FuzzWorld } from "../fuzz/fuzz-world.ts"
import { jsonCaller, serverOnFreshDatabase } from "./server-process.ts"

/**
 * Crash safety: creates, check-ins and cancels at load against the server process on a fresh
 * PostgreSQL database, SIGKILL mid-run, restart. Every acknowledged (2xx) change is there, no
 * unacknowledged one is half-written, and the witness queries return nothing.
 * KEYSPACE_CRASH_MS sets how long the load runs before the kill (default 4000).
 */
const ADMIN = "crash-admin-token-0123456789"
const LOAD_MS = Number(process.env.KEYSPACE_CRASH_MS ?? 4000)
const WORKERS = 12
const START = Date.parse(CLOCK_START)

type Op = "create" | "check-in" | "cancel"
const TARGET: Record<Op, string> = { create: "active", "check-in": "checked-in", cancel: "cancelled" }

interface Track {
  acked: string
  /** Sent but never answered (the kill cut them off): may or may not have committed. */
  inFlight: Op[]
}

describe("crash safety: SIGKILL under load, restart, nothing acknowledged is lost", () => {
  const fixture = serverOnFreshDatabase()

  it("every 2xx survives, nothing is half-written, witnesses are empty", { timeout: 120_000 }, async () => {
    const env = { KEYSPACE_SEED: "none", KEYSPACE_ADMIN_TOKEN: ADMIN, KEYSPACE_CLOCK: "manual", KEYSPACE_CLOCK_START: CLOCK_START }
    let server = await fixture.start(env)
    const call = jsonCaller(() => server)
    const sql = fixture.sql
    const w: FuzzWorld = await setUpFuzzWorld(call, ADMIN)
    const assets = [w.hq.rooms.r1, w.hq.rooms.r2, w.hq.rooms.r3]
    const bookings = new Map<string, Track>()
    const unackedCreates: number[] = []
    let killed = false
    let acks = 0

    const worker = async (n: number) => {
      for (let i = 0; !killed; i++) {
        const known = [...bookings.entries()].filter(([, t]) => t.acked === "active" && t.inFlight.length === 0)
        const pick = Math.random()
        if (pick < 0.5 || known.length === 0) {
          // Starts 0-40 minutes ahead (check-in opens 15 minutes before), 15-45 minutes long.
          const start = START + (1 + Math.floor(Math.random() * 40)) * 60_000
          const body = {
            meetingRoomId: assets[(n + i) % assets.length], title: `load ${n}/${i}`,
            startDateTime: formatAt(start, 420), endDateTime: formatAt(start + (15 + Math.floor(Math.random() * 30)) * 60_000, 420),
          }
          unackedCreates.push(n)
          const res = await call("POST", "/meetings", { token: w.tokens.app, body }).catch(() => undefined)
          unackedCreates.pop()
          if (!res) return
          if (res.status === 201) {
            bookings.set(res.body.data._id, { acked: "active", inFlight: [] })
            acks++
          } else expect([409], `${JSON.stringify(res.body)}\n${server!.output().slice(-3000)}`).toContain(res.status)
        } else {
          const [id, track] = known[Math.floor(Math.random() * known.length)]!
          const op: Op = Math.random() < 0.5 ? "check-in" : "cancel"
          track.inFlight.push(op)
          const res = await call("POST", `/meetings/${id}/${op}`, { token: w.tokens.app, body: {} }).catch(() => undefined)
          if (!res) return
          track.inFlight.pop()
          if (res.status === 202) {
            track.acked = TARGET[op]
            acks++
          } else expect([400, 403, 409], `${op}: ${JSON.stringify(res.body)}`).toContain(res.status)
        }
      }
    }
    const load = Promise.all(Array.from({ length: WORKERS }, (_, n) => worker(n)))
    await new Promise((r) => setTimeout(r, LOAD_MS))
    killed = true
    await server.kill("SIGKILL")
    await load
    expect(acks, "the load acknowledged changes before the kill").toBeGreaterThan(5)

    // A new port: the killed process's socket may linger for a moment.
    server = await fixture.start(env)
    const rows = await sql<{ id: string; status: string }[]>`select id, status from bookings`
    const stored = new Map(rows.map((r) => [r.id, r.status]))
    for (const [id, track] of bookings) {
      const status = stored.get(id)
      expect(status, `acknowledged booking ${id} is gone`).toBeDefined()
      const allowed = [track.acked, ...track.inFlight.map((op) => TARGET[op])]
      expect(allowed, `booking ${id}: acknowledged ${track.acked}, in flight ${track.inFlight}, stored ${status}`).toContain(status)
    }
    // Rows nobody was told about can only come from creates cut off by the kill.
    const phantoms = rows.filter((r) => !bookings.has(r.id))
    expect(phantoms.length).toBeLessThanOrEqual(WORKERS)
    const db = drizzle(sql) as unknown as Queryable
    expect(await runWitnesses(db)).toEqual({})

    // The restarted server serves them, and its scheduler carries on: move the clock past
    // every booking and look again (no tick left pending for a terminal booking).
    const advanced = await call("POST", "/admin/v1/clock/advance", { token: ADMIN, body: { minutes: 180 } })
    expect(advanced.status).toBe(200)
    const after = await sql<{ status: string }[]>`select distinct status from bookings`
    expect(after.map((r) => r.status).sort()).not.toContain("active")
    expect(await runWitnesses(db)).toEqual({})
    const pending = await sql`select count(*)::int as n from scheduled_ticks where state = 'pending'`
    expect(pending[0]!.n).toBe(0)
  })
})
