import { sql } from "drizzle-orm"
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest"
import { execute, type Queryable } from "../../../adapters/postgres/database.ts"
import { claimDueTicks, dropBookingTicks, expandDuePlans, markTickFired, recordTickFailure, type ClaimedTick } from "../../../adapters/postgres/tick-store.ts"
import { startHarness, type Harness } from "../../support/harness.ts"
import { book, setUpSchedulerWorld, type SchedulerWorld } from "./scheduler-fixtures.ts"

/**
 * Spec "Scheduler ticks" on PostgreSQL, where a new single booking's first schedule is one plan
 * row (adapters/postgres/tables/scheduler.ts): the ticks it stands for fire exactly as tick rows
 * would, one by one and in one due order with every other booking's.
 */
describe("plan rows on PostgreSQL", () => {
  let h: Harness
  let w: SchedulerWorld
  beforeAll(async () => {
    h = await startHarness("postgres", {}, { background: false })
    w = await setUpSchedulerWorld(h)
  })
  afterAll(async () => h?.close())
  // Each test's own rows only (the booked meeting's plan is due years after these).
  beforeEach(async () => {
    await db().execute(sql`delete from scheduled_ticks where booking_id like 'plan-%' or booking_id like 'tick-%'`)
  })

  const db = () => h.booted.services.database.db
  // Long before the harness clock: the booked meeting's plan (a later due time) holds back none of these.
  const at = (minutes: number) => Date.parse("2001-03-05T09:00:00Z") + minutes * 60_000
  const ts = (ms: number) => new Date(ms).toISOString()
  const rowsOf = (bookingId: string) =>
    execute<{ kind: string; state: string; due: string; ticks: number | null }>(
      db(),
      sql`select kind, state, to_char(due_at at time zone 'UTC', 'HH24:MI') as due, jsonb_array_length(plan) as ticks
          from scheduled_ticks where booking_id = ${bookingId} order by due_at, rank`,
    )
  /** A plan row as a create writes it: its earliest tick's time and rank, the ticks in `plan`. */
  const insertPlan = (bookingId: string, ticks: ReadonlyArray<{ kind: string; rank: number; minutes: number }>) =>
    db().execute(sql`insert into scheduled_ticks (booking_id, occurrence_index, kind, rank, due_at, run_at, created_at, plan)
      values (${bookingId}, 0, 'plan', ${ticks[0]!.rank}, ${ts(at(ticks[0]!.minutes))}::timestamptz,
        ${ts(at(ticks[0]!.minutes))}::timestamptz, ${ts(at(-60))}::timestamptz,
        ${JSON.stringify(ticks.map((t) => ({ occurrence_index: 0, kind: t.kind, rank: t.rank, due_ms: at(t.minutes) })))}::jsonb)`)
  /** What a worker would claim at `now` of this file's rows; a claim only locks its rows, they stay pending. */
  const claimed = (now: number, label: (t: ClaimedTick) => string) =>
    db().transaction(async (tx) => (await claimDueTicks(tx, now, 10)).filter((t) => /^(plan|tick)-/.test(t.bookingId)).map(label))
  const insertTick = (bookingId: string, kind: string, rank: number, minutes: number) =>
    db().execute(sql`insert into scheduled_ticks (booking_id, occurrence_index, kind, rank, due_at, run_at, created_at)
      values (${bookingId}, 0, ${kind}, ${rank}, ${ts(at(minutes))}::timestamptz, ${ts(at(minutes))}::timestamptz, ${ts(at(-60))}::timestamptz)`)

  it("a single booking's first ticks are written as one plan row standing for all of them", async () => {
    const m = await book(h, w, { room: "std" }, "10:00", "11:00", 3)
    const rows = await rowsOf(m._id)
    expect(rows).toEqual([{ kind: "plan", state: "pending", due: rows[0]!.due, ticks: 5 }])
    const [plan] = await execute<{ kinds: string[] }>(
      db(),
      sql`select array(select x->>'kind' from jsonb_array_elements(plan) as x) as kinds from scheduled_ticks where booking_id = ${m._id}`,
    )
    expect(plan!.kinds).toEqual(["pre-start", "post-start-warn", "post-start-expire", "pre-end", "end"])
  })

  it("no tick due at or after a pending plan's time is claimed until the plan is expanded; then all fire in one due order", async () => {
    await insertPlan("plan-x", [
      { kind: "pre-start", rank: 3, minutes: 10 },
      { kind: "end", rank: 2, minutes: 30 },
    ])
    await insertTick("tick-y", "pre-start", 3, 20)
    await insertTick("tick-z", "pre-start", 3, 5)
    expect(await claimed(at(40), (t) => `${t.bookingId}:${t.kind}`)).toEqual(["tick-z:pre-start"])
    expect(await expandDuePlans(db(), at(40), 10)).toEqual({ expanded: 1, failed: [] })
    // A booking's next tick only once its earlier one is done (claimDueTicks).
    expect(await claimed(at(40), (t) => `${t.bookingId}:${t.kind}:${t.dueAt - at(0)}`)).toEqual([
      `tick-z:pre-start:${5 * 60_000}`,
      `plan-x:pre-start:${10 * 60_000}`,
      `tick-y:pre-start:${20 * 60_000}`,
    ])
    expect(await rowsOf("plan-x")).toEqual([
      { kind: "pre-start", state: "pending", due: "09:10", ticks: null },
      { kind: "end", state: "pending", due: "09:30", ticks: null },
    ])
    await db().execute(sql`update scheduled_ticks set state = 'done' where booking_id in ('tick-z', 'tick-y', 'plan-x') and kind = 'pre-start'`)
    expect(await claimed(at(40), (t) => `${t.bookingId}:${t.kind}`)).toEqual(["plan-x:end"])
  })

  it("a booking's tick whose retry was pushed past its later ticks (a failure during a clock advance) still goes first: its end never runs before its no-show", async () => {
    await insertTick("tick-r", "post-start-expire", 4, 15)
    await insertTick("tick-r", "end", 2, 60)
    const [expire] = await execute<{ id: number }>(db(), sql`select id from scheduled_ticks where booking_id = 'tick-r' and kind = 'post-start-expire'`)
    // The advance's clock stood at 10:30 when the tick failed: its retry is stamped after the end.
    await db().transaction((tx) => recordTickFailure(tx, { id: expire!.id, attempts: 0 }, at(90), "runtime stopping", 5))
    // Before its retry (2 s on): nothing of the booking, its end held back.
    expect(await claimed(at(90) + 1_000, (t) => `${t.bookingId}:${t.kind}`)).toEqual([])
    expect(await claimed(at(91), (t) => `${t.bookingId}:${t.kind}`)).toEqual(["tick-r:post-start-expire"])
  })

  it("a plan not yet due is left alone, and holds back no tick due before it", async () => {
    await insertPlan("plan-later", [
      { kind: "pre-start", rank: 3, minutes: 120 },
      { kind: "end", rank: 2, minutes: 180 },
    ])
    await insertTick("tick-soon", "end", 2, 100)
    expect(await expandDuePlans(db(), at(110), 10)).toEqual({ expanded: 0, failed: [] })
    expect(await claimed(at(110), (t) => t.bookingId)).toContain("tick-soon")
    expect((await rowsOf("plan-later")).map((r) => r.kind)).toEqual(["plan"])
  })

  it("a cancel that meets its booking's plan being expanded waits for it and drops the expanded ticks too", async () => {
    await insertPlan("plan-race", [
      { kind: "pre-start", rank: 3, minutes: 300 },
      { kind: "end", rank: 2, minutes: 360 },
    ])
    // A worker's expansion, held open: its plan row is deleted and its ticks inserted, uncommitted.
    let release!: () => void
    const held = new Promise<void>((r) => (release = r))
    let expanded!: () => void
    const expanding = new Promise<void>((r) => (expanded = r))
    const worker = db().transaction(async (tx) => {
      try {
        expect(await expandDuePlans(tx, at(300), 10)).toEqual({ expanded: 1, failed: [] })
      } finally {
        expanded()
      }
      await held
    })
    await expanding
    let dropped = false
    const cancel = db().transaction((tx) => dropBookingTicks(tx, "plan-race")).then(() => (dropped = true))
    await new Promise((r) => setTimeout(r, 200))
    expect(dropped).toBe(false)
    release()
    await Promise.all([worker, cancel])
    expect(await rowsOf("plan-race")).toEqual([])
  })

  it("a plan PostgreSQL refuses to expand is marked failed and holds back no tick due after it", async () => {
    await db().execute(sql`insert into scheduled_ticks (booking_id, occurrence_index, kind, rank, due_at, run_at, created_at, plan)
      values ('plan-bad', 0, 'plan', 3, ${ts(at(400))}::timestamptz, ${ts(at(400))}::timestamptz, ${ts(at(-60))}::timestamptz,
        '[{"occurrence_index": 0, "kind": "pre-start", "rank": 3, "due_ms": null}]'::jsonb)`)
    await insertTick("tick-after-bad", "end", 2, 410)
    const result = await expandDuePlans(db(), at(420), 10)
    expect(result.expanded).toBe(0)
    expect(result.failed.map((f) => f.bookingId)).toEqual(["plan-bad"])
    expect((await rowsOf("plan-bad")).map((r) => r.state)).toEqual(["failed"])
    expect(await claimed(at(420), (t) => t.bookingId)).toContain("tick-after-bad")
  })

  it("a plan whose expansion meets a fault other than its content (a lost connection) stays pending for the next try", async () => {
    await insertPlan("plan-fault", [
      { kind: "pre-start", rank: 3, minutes: 500 },
      { kind: "end", rank: 2, minutes: 560 },
    ])
    const lost = { execute: () => Promise.reject(new Error("write ECONNRESET")) } as unknown as Queryable
    await expect(expandDuePlans(lost, at(520), 10)).rejects.toThrow("ECONNRESET")
    expect((await rowsOf("plan-fault")).map((r) => `${r.kind}:${r.state}`)).toEqual(["plan:pending"])
    expect(await expandDuePlans(db(), at(520), 10)).toEqual({ expanded: 1, failed: [] })
  })

  it("the fired ledger (Temporal activities) expands the booking's plan: its other ticks stay pending rows", async () => {
    await insertPlan("plan-ledger", [
      { kind: "pre-start", rank: 3, minutes: 200 },
      { kind: "post-start-expire", rank: 1, minutes: 215 },
      { kind: "end", rank: 2, minutes: 260 },
    ])
    const fired = await db().transaction((tx) =>
      markTickFired(tx, { bookingId: "plan-ledger", occurrenceIndex: 0, kind: "pre-start", dueAt: at(200) }, at(200)),
    )
    expect(fired).toBe(true)
    expect(await rowsOf("plan-ledger")).toEqual([
      { kind: "pre-start", state: "done", due: "12:20", ticks: null },
      { kind: "post-start-expire", state: "pending", due: "12:35", ticks: null },
      { kind: "end", state: "pending", due: "13:20", ticks: null },
    ])
  })
})
