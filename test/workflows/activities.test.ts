import { MockActivityEnvironment } from "@temporalio/testing"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { BookingTick, LifecycleSnapshot } from "../../core/ports/lifecycle-scheduler.ts"
import type { LifecyclePorts } from "../../workflows/activities.ts"
import { createActivities, EARLY_TOLERANCE_MS } from "../../workflows/activities.ts"
import { plan } from "../../workflows/booking-lifecycle.ts"
import { applyTickFor } from "../../adapters/wiring/layers/lifecycle.ts"
import { lifecyclePorts } from "../../adapters/scheduler/temporal.ts"
import { startHarness, type Harness } from "../support/harness.ts"
import { advanceTo, book, eventsOf, local, setUpSchedulerWorld, statusOf, type SchedulerWorld } from "../integration/scheduler/scheduler-fixtures.ts"

const T = Date.parse("2030-01-07T03:00:00Z")
const tick: BookingTick = { bookingId: "b1", occurrenceIndex: 0, kind: "end", dueAt: T }

const fakePorts = (now: number, applied: Array<[BookingTick, number]>): LifecyclePorts => ({
  now: () => now,
  load: async () => [],
  apply: async (t, at) => {
    applied.push([t, at])
    return { _tag: "Transitioned", to: "done" }
  },
})

describe("lifecycle activities (MockActivityEnvironment)", () => {
  it("a timer that fires a little early applies the tick at its due time, never before", async () => {
    const applied: Array<[BookingTick, number]> = []
    const acts = createActivities(fakePorts(T - 2_000, applied))
    const outcome = await new MockActivityEnvironment().run(acts.applyLifecycleTick, tick)
    expect(outcome).toEqual({ _tag: "Transitioned", to: "done" })
    expect(applied).toEqual([[tick, T]])
  })

  it("a tick far ahead of the service clock fails retryably instead of being skipped", async () => {
    const applied: Array<[BookingTick, number]> = []
    const acts = createActivities(fakePorts(T - EARLY_TOLERANCE_MS - 1, applied))
    await expect(new MockActivityEnvironment().run(acts.applyLifecycleTick, tick)).rejects.toMatchObject({
      nonRetryable: false,
    })
    expect(applied).toEqual([])
  })
})

/**
 * The activities over the real service (PGlite, no scheduler running): the same repository
 * path as the embedded worker, and the fired ledger makes a retried activity harmless.
 */
describe("lifecycle activities over the service", () => {
  let h: Harness
  let w: SchedulerWorld
  beforeAll(async () => {
    h = await startHarness("pglite", {}, { background: false })
    w = await setUpSchedulerWorld(h)
  })
  afterAll(async () => h?.close())

  it("load, reminder once (a retry is AlreadyFired), no-show cancel, then nothing left to plan", async () => {
    const s = h.booted.services
    const acts = createActivities(lifecyclePorts(s, applyTickFor(s)))
    const env = new MockActivityEnvironment()
    const m = await book(h, w, { room: "std" }, "10:00", "11:00")

    const load = (id: string) => env.run(acts.loadLifecycle, id) as Promise<ReadonlyArray<LifecycleSnapshot>>
    const snapshots = await load(m._id)
    expect(snapshots).toHaveLength(1)
    const ticks = plan(snapshots, new Set())
    expect(ticks.map((t) => t.kind)).toEqual(["pre-start", "post-start-warn", "post-start-expire", "pre-end", "end"])

    await advanceTo(h, "09:45")
    expect(await env.run(acts.applyLifecycleTick, ticks[0]!)).toEqual({ _tag: "Emitted", event: "REMINDER" })
    expect(await env.run(acts.applyLifecycleTick, ticks[0]!)).toEqual({ _tag: "AlreadyFired" })

    await advanceTo(h, "10:15")
    expect(await env.run(acts.applyLifecycleTick, ticks[2]!)).toEqual({ _tag: "Transitioned", to: "cancelled" })
    expect(await statusOf(h, w, m._id)).toBe("cancelled")
    // The warning was never applied (its timer "lost"): too late now, and nothing is planned.
    expect(await env.run(acts.applyLifecycleTick, ticks[1]!)).toEqual({ _tag: "Skipped" })
    expect(plan(await load(m._id), new Set())).toEqual([])

    const events = (await eventsOf(h, m._id)).map((e) => `${e.type}@${e.at}`)
    expect(events).toEqual([
      `ROOM_BOOK@${new Date(Date.parse("2030-01-07T02:00:00Z")).toISOString()}`,
      `ROOM_REMINDER@${new Date(Date.parse(local("09:45"))).toISOString()}`,
      `ROOM_CANCEL@${new Date(Date.parse(local("10:15"))).toISOString()}`,
    ])
  })
})
