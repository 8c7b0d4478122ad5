import { sql } from "drizzle-orm"
import postgres from "postgres"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { applyTickFor } from "../../../adapters/wiring/layers/lifecycle.ts"
import { makeEmbeddedScheduler, type EmbeddedOptions } from "../../../adapters/scheduler/embedded.ts"
import type { Booted } from "../../../adapters/wiring/boot.ts"
import { execute } from "../../../adapters/postgres/database.ts"
import { bootBeside, startHarness, type Harness } from "../../support/harness.ts"
import { local, setUpSchedulerWorld, type SchedulerWorld, TICKS_OFF } from "./scheduler-fixtures.ts"
import { seedWorldBookings, type SeedOptions } from "./seed-bookings.ts"
import { eventually } from "../webhooks/fixtures.ts"


/**
 * Issue "Done when": two scheduler processes on one PostgreSQL apply 1,000 due ticks with no
 * tick applied twice. Two services are booted on one database (as two server processes would
 * be); their schedulers drain concurrently, claiming rows with FOR UPDATE SKIP LOCKED.
 */
describe("two scheduler workers on one PostgreSQL", () => {
  let a: Harness
  let b: Booted
  let w: SchedulerWorld
  beforeAll(async () => {
    a = await startHarness("postgres", {}, { background: false })
    w = await setUpSchedulerWorld(a, { rooms: 20, meetingConfig: TICKS_OFF })
    b = await bootBeside(a, { background: false })
  }, 120_000)
  afterAll(async () => {
    await b?.close()
    await a?.close()
  })

  /** Bookings of the world's 20 rooms straight into the tables, created at the clock's start. */
  const seed = (o: Omit<SeedOptions, "projectId" | "appRowId" | "roomIds" | "createdAt">) => seedWorldBookings(a, w, o)
  /** Both services' workers draining everything due by 23:59 at once, 20 ticks a batch. */
  const drainBoth = (onA: EmbeddedOptions["onApplied"], onB: EmbeddedOptions["onApplied"]) => {
    const until = Date.parse(local("23:59"))
    const workerOf = (booted: Booted, onApplied: EmbeddedOptions["onApplied"]) =>
      makeEmbeddedScheduler(booted.services, applyTickFor(booted.services), { batchSize: 20, onApplied })
    return Promise.all([workerOf(a.booted, onA).drainUntil(until), workerOf(b, onB).drainUntil(until)])
  }

  it("1,000 due end ticks are applied exactly once between two workers", async () => {
    const seeded = await seed({ perRoom: 50, firstStart: Date.parse(local("10:00")), durationMin: 10, meetingConfig: TICKS_OFF })
    expect(seeded).toBe(1000)

    const applied = { a: [] as string[], b: [] as string[] }
    const into = (list: string[]): EmbeddedOptions["onApplied"] => (tick, outcome) => {
      if (outcome._tag === "Transitioned") list.push(tick.bookingId)
    }
    await drainBoth(into(applied.a), into(applied.b))

    const all = [...applied.a, ...applied.b]
    expect(all).toHaveLength(1000)
    expect(new Set(all).size).toBe(1000)
    // Both took part (SKIP LOCKED hands each its own rows).
    expect(applied.a.length).toBeGreaterThan(0)
    expect(applied.b.length).toBeGreaterThan(0)

    const db = a.booted.services.database.db
    const [ticks] = await execute<{ done: number; pending: number; fired_twice: number }>(
      db,
      sql`select count(*) filter (where state = 'done')::int as done,
                 count(*) filter (where state = 'pending')::int as pending,
                 count(*) filter (where attempts > 1)::int as fired_twice
          from scheduled_ticks`,
    )
    expect(ticks).toEqual({ done: 1000, pending: 0, fired_twice: 0 })
    const [histories] = await execute<{ bookings: number; entries: number }>(
      db,
      sql`select count(distinct booking_id)::int as bookings, count(*)::int as entries
          from booking_histories where action = 'end'`,
    )
    expect(histories).toEqual({ bookings: 1000, entries: 1000 })
    const [statuses] = await execute<{ done: number }>(
      db,
      sql`select count(*)::int as done from bookings where status = 'done' and title = 'Load'`,
    )
    expect(statuses!.done).toBe(1000)
  }, 120_000)
  it("a batch never waits for an asset another transaction is writing: that asset's ticks wait, the others are applied", async () => {
    // After the other tests' slots (they end by 23:15), in the same rooms.
    const seeded = await seed({ perRoom: 2, firstStart: Date.parse(local("23:20")), durationMin: 5, meetingConfig: TICKS_OFF, idPrefix: "e" })
    expect(seeded).toBe(40)
    const held = w.ids.rooms["r0"] as string
    const client = postgres(a.booted.services.config.databaseUrl!, { max: 1, onnotice: () => {} })
    try {
      const applied: string[] = []
      let release!: () => void
      const released = new Promise<void>((r) => (release = r))
      let holding!: () => void
      const locked = new Promise<void>((r) => (holding = r))
      // A user's change of the room in flight: its asset lock held until released.
      const user = client.begin(async (tx) => {
        await tx`select pg_advisory_xact_lock(hashtext(${held}))`
        holding()
        await released
      })
      await locked
      const worker = makeEmbeddedScheduler(a.booted.services, applyTickFor(a.booted.services), {
        batchSize: 20,
        onApplied: (tick) => applied.push(tick.bookingId),
      })
      const drained = worker.drainUntil(Date.parse(local("23:59")))
      const [ofHeld] = await execute<{ ids: string[] }>(
        a.booted.services.database.db,
        sql`select coalesce(array_agg(id), '{}') as ids from bookings where asset_id = ${held} and id like 'e%'`,
      )
      await eventually(() => expect(applied.filter((id) => id.startsWith("e"))).toHaveLength(38))
      expect(applied.filter((id) => ofHeld!.ids.includes(id))).toEqual([])
      release()
      await user
      await drained
      expect(applied.filter((id) => id.startsWith("e"))).toHaveLength(40)
    } finally {
      await client.end({ timeout: 5 })
    }
  }, 120_000)

  // Two ticks per booking (pre-end, end), due in one backlog: a worker must never apply a
  // booking's end while another holds its reminder (claimDueTicks: a booking's earliest only).
  it.each([
    ["tick rows", false, "c", "19:00"],
    ["plan rows", true, "d", "21:10"],
  ] as const)("500 bookings' pre-end and end ticks written as %s: every tick is applied exactly once, in order, between two workers", async (_shape, asPlans, prefix, from) => {
    // After the first test's slots (10:00-18:20), in the same rooms.
    const seeded = await seed({
      perRoom: 25,
      firstStart: Date.parse(local(from)),
      durationMin: 5,
      meetingConfig: { ...TICKS_OFF, preEndMinutes: 2 },
      idPrefix: prefix,
      asPlans,
    })
    expect(seeded).toBe(500)
    const db = a.booted.services.database.db
    const [plans] = await execute<{ n: number }>(db, sql`select count(*)::int as n from scheduled_ticks where kind = 'plan' and booking_id like ${prefix + "%"}`)
    expect(plans!.n).toBe(asPlans ? 500 : 0)

    const applied: string[] = []
    const onApplied: EmbeddedOptions["onApplied"] = (tick) => applied.push(`${tick.bookingId}:${tick.kind}`)
    await drainBoth(onApplied, onApplied)

    const mine = applied.filter((t) => t.startsWith(prefix))
    expect(mine).toHaveLength(1000)
    expect(new Set(mine).size).toBe(1000)
    // Each booking's reminder before its end.
    expect(mine.filter((t, i) => t.endsWith(":end") && !mine.slice(0, i).includes(t.replace(":end", ":pre-end")))).toEqual([])
    const [ticks] = await execute<{ done: number; pending: number; fired_twice: number }>(
      db,
      sql`select count(*) filter (where state = 'done')::int as done,
                 count(*) filter (where state <> 'done')::int as pending,
                 count(*) filter (where attempts > 1)::int as fired_twice
          from scheduled_ticks where booking_id like ${prefix + "%"}`,
    )
    expect(ticks).toEqual({ done: 1000, pending: 0, fired_twice: 0 })
  }, 120_000)
})
