import { sql } from "drizzle-orm"
import { loadavg } from "node:os"
import { fileURLToPath } from "node:url"
import { execute } from "../adapters/postgres/database.ts"
import { applyTickFor } from "../adapters/wiring/layers/lifecycle.ts"
import { makeEmbeddedScheduler } from "../adapters/scheduler/embedded.ts"
import { countPendingTicks } from "../adapters/postgres/tick-store.ts"
import { boot } from "../adapters/wiring/boot.ts"
import { freshPostgresDatabase } from "../test/support/databases.ts"
import { schedulerManifest } from "../test/integration/scheduler/scheduler-fixtures.ts"
import { seedBookings } from "../test/integration/scheduler/seed-bookings.ts"

/**
 * Embedded scheduler on PostgreSQL with 100,000 scheduled bookings (about 500,000 pending
 * ticks, none due during the run), measuring:
 * - throughput: a backlog of overdue bookings (as after downtime) drained by one worker,
 *   in ticks/s and transitions/s (each no-show cancel is a full booking transaction);
 * - firing lag: ticks due over the next seconds, fired by the background loop on the system
 *   clock; lag = time applied - due time, p50/p99;
 * - memory: heap held by the scheduler (before/after), which does not grow with the number of
 *   scheduled bookings: they live in the table, the worker holds one batch.
 */
export interface SchedulerBenchOptions {
  readonly scheduledBookings?: number
  readonly backlogBookings?: number
  readonly lagTicks?: number
  readonly lagSpreadMs?: number
  readonly print?: (line: string) => void
}

export interface SchedulerBenchResult {
  readonly scheduledBookings: number
  readonly pendingTicks: number
  readonly seedSeconds: number
  readonly backlog: { ticks: number; transitions: number; seconds: number; ticksPerSecond: number; transitionsPerSecond: number }
  readonly lag: { ticks: number; p50Ms: number; p99Ms: number; maxMs: number }
  readonly memory: { heapBeforeMb: number; heapAfterMb: number; heapDeltaMb: number; rssMb: number }
  /** 1-minute load average at the end: these figures are only comparable on a quiet machine. */
  readonly loadAverage: number
}

const MIN = 60_000
const DISABLED = { preStartMinutes: -1, postStartWarnMinutes: -1, postStartExpireMinutes: -1, preEndMinutes: -1 }
const mb = (bytes: number) => Math.round((bytes / 1024 / 1024) * 10) / 10
const percentile = (sorted: ReadonlyArray<number>, p: number) =>
  sorted.length === 0 ? 0 : sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!

export const runSchedulerBench = async (options: SchedulerBenchOptions = {}): Promise<SchedulerBenchResult> => {
  const print = options.print ?? ((line: string) => console.log(line))
  const scheduled = options.scheduledBookings ?? 100_000
  const backlog = options.backlogBookings ?? 500
  // At a rate one worker sustains, so lag measures waking on time rather than saturation
  // (which the backlog figure measures).
  const lagTicks = options.lagTicks ?? 200
  const spread = options.lagSpreadMs ?? 10_000
  const pg = await freshPostgresDatabase()
  const booted = await boot(
    { DATABASE_URL: pg.url, KEYSPACE_SEED: "none", KEYSPACE_LOG_LEVEL: "silent", KEYSPACE_ADMIN_TOKEN: "bench-admin-token-0123456789" },
    { print: () => {}, background: false },
  )
  const s = booted.services
  const db = s.database.db
  try {
    const rooms = 100
    const res = await booted.app.request("/admin/v1/manifest", {
      method: "PUT",
      headers: { authorization: "Bearer bench-admin-token-0123456789", "content-type": "application/json" },
      body: JSON.stringify(schedulerManifest({ rooms: rooms * 2 })),
    })
    const ids = ((await res.json()) as any).data
    const hq = ids.projects.hq
    const roomIds = (from: number, n: number) => Array.from({ length: n }, (_, i) => hq.rooms[`r${from + i}`] as string)
    const base = { projectId: hq.id, appRowId: ids.apps.app as string }
    const now = Date.now()
    const day = 24 * 60 * MIN
    const minute = Math.ceil(now / MIN) * MIN

    // 1. The standing load: 100,000 bookings over the next weeks, default meetingConfig.
    const t0 = performance.now()
    await seedBookings(db, {
      ...base,
      roomIds: roomIds(0, rooms),
      perRoom: Math.ceil(scheduled / rooms),
      firstStart: minute + day,
      durationMin: 30,
      createdAt: now,
      idPrefix: "a",
      // As a create writes them on PostgreSQL: one plan row per booking (migration 0016).
      asPlans: true,
    })
    await db.execute(sql`analyze bookings, booking_slots, scheduled_ticks`)
    const seedSeconds = (performance.now() - t0) / 1000
    const pending = await countPendingTicks(db)
    print(`scheduler bench: ${scheduled} scheduled bookings, ${pending} pending ticks (seeded in ${seedSeconds.toFixed(1)} s)`)

    // 2. Backlog: overdue bookings (started an hour ago, nobody came): reminder and warning are
    //    stale (applied as no-ops), the no-show cancel is a full transition with its event.
    await seedBookings(db, {
      ...base,
      roomIds: roomIds(rooms, rooms),
      perRoom: Math.ceil(backlog / rooms),
      firstStart: minute - 2 * day,
      durationMin: 30,
      createdAt: minute - 3 * day,
      idPrefix: "b",
      asPlans: true,
    })
    const heapBefore = process.memoryUsage().heapUsed
    let transitions = 0
    let ticks = 0
    const drainer = makeEmbeddedScheduler(s, applyTickFor(s), {
      onApplied: (_t, outcome) => {
        ticks++
        if (outcome._tag === "Transitioned") transitions++
      },
    })
    const t1 = performance.now()
    await drainer.drainOnce(Date.now())
    const backlogSeconds = (performance.now() - t1) / 1000
    const backlogResult = {
      ticks,
      transitions,
      seconds: Math.round(backlogSeconds * 100) / 100,
      ticksPerSecond: Math.round(ticks / backlogSeconds),
      transitionsPerSecond: Math.round(transitions / backlogSeconds),
    }
    print(
      `  backlog: ${ticks} ticks (${transitions} no-show cancels) in ${backlogResult.seconds} s: ` +
        `${backlogResult.ticksPerSecond} ticks/s, ${backlogResult.transitionsPerSecond} transitions/s`,
    )

    // 3. Lag: end ticks due over the next `spread` ms, fired by the background loop.
    const lags: number[] = []
    const lagStart = Date.now() + 2_000
    const lagRooms = 50
    const perRoom = Math.ceil(lagTicks / lagRooms)
    await db.transaction(async (tx) => {
      // Bookings of the backlog rooms, later the same day: ends spread over the window.
      await seedBookings(tx as never, {
        ...base,
        roomIds: roomIds(rooms, lagRooms),
        perRoom,
        firstStart: minute + 2 * day,
        durationMin: 10,
        createdAt: minute - day,
        meetingConfig: DISABLED,
        idPrefix: "c",
      })
      // Move them into the window: the k-th due time goes to room k mod lagRooms, so bookings
      // of one room never overlap (each lasts half its room's spacing).
      const step = spread / (perRoom * lagRooms)
      await tx.execute(sql`
        with c as (
          select b.id,
                 row_number() over (partition by b.asset_id order by b.id) - 1 as g,
                 dense_rank() over (order by b.asset_id) - 1 as r
          from bookings b where b.id like 'c%'),
        t as (select id, ${lagStart}::float8 + (g * ${lagRooms}::int + r) * ${step}::float8 as end_ms from c)
        update bookings b set end_at = to_timestamp(t.end_ms / 1000),
               start_at = to_timestamp((t.end_ms - ${(lagRooms * step) / 2}::float8) / 1000)
        from t where b.id = t.id`)
      await tx.execute(sql`update booking_slots sl set start_at = b.start_at, end_at = b.end_at
        from bookings b where sl.booking_id = b.id and b.id like 'c%'`)
      await tx.execute(sql`update scheduled_ticks t set due_at = b.end_at, run_at = b.end_at
        from bookings b where t.booking_id = b.id and b.id like 'c%'`)
    })
    const expected = perRoom * lagRooms
    let fired = 0
    let allFired: () => void = () => {}
    const done = new Promise<void>((resolve) => (allFired = resolve))
    const worker = makeEmbeddedScheduler(s, applyTickFor(s), {
      onApplied: (tick, outcome) => {
        if (outcome._tag !== "Transitioned" || !tick.bookingId.startsWith("c")) return
        lags.push(Date.now() - tick.dueAt)
        if (++fired === expected) allFired()
      },
    })
    const stop = worker.start()
    await Promise.race([done, new Promise((r) => setTimeout(r, spread + 30_000))])
    await stop()
    const sorted = [...lags].sort((a, b) => a - b)
    const lag = { ticks: lags.length, p50Ms: percentile(sorted, 50), p99Ms: percentile(sorted, 99), maxMs: sorted[sorted.length - 1] ?? 0 }
    print(`  firing lag over ${lag.ticks} ticks due within ${spread / 1000} s: p50 ${lag.p50Ms} ms, p99 ${lag.p99Ms} ms, max ${lag.maxMs} ms`)

    global.gc?.()
    const heapAfter = process.memoryUsage().heapUsed
    const memory = {
      heapBeforeMb: mb(heapBefore),
      heapAfterMb: mb(heapAfter),
      heapDeltaMb: mb(heapAfter - heapBefore),
      rssMb: mb(process.memoryUsage().rss),
    }
    print(
      `  memory: heap ${memory.heapBeforeMb} MB before the workers, ${memory.heapAfterMb} MB after ` +
        `(${memory.heapDeltaMb >= 0 ? "+" : ""}${memory.heapDeltaMb} MB), rss ${memory.rssMb} MB`,
    )
    const loadAverage = Math.round(loadavg()[0]! * 10) / 10
    print(`  (1-minute load average ${loadAverage})`)
    return {
      loadAverage,
      scheduledBookings: scheduled,
      pendingTicks: pending,
      seedSeconds: Math.round(seedSeconds * 10) / 10,
      backlog: backlogResult,
      lag,
      memory,
    }
  } finally {
    await booted.close()
    await pg.drop()
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  await runSchedulerBench()
}
