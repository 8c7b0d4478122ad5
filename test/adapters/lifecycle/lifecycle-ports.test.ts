import { Cause, Effect, Exit } from "effect"
import { afterAll, describe, expect, it } from "vitest"
import { defaultMeetingConfig } from "../../../core/booking/timeline.ts"
import type { LifecycleSnapshot } from "../../../core/ports/lifecycle-scheduler.ts"
import { LifecycleSignals } from "../../../core/ports/lifecycle-signals.ts"
import { ManifestStore } from "../../../core/ports/manifest-store.ts"
import { Outbox } from "../../../core/ports/outbox.ts"
import { TickStore } from "../../../core/ports/tick-store.ts"
import { UnitOfWork } from "../../../core/ports/unit-of-work.ts"
import { Tenancy } from "../../../core/tenancy/tenancy.ts"
import { parseConfig } from "../../../adapters/config/config.ts"
import { SchedulerWake } from "../../../adapters/scheduler/signals.ts"
import { makeAppRuntime } from "../../../adapters/wiring/app-layer.ts"

const start = Date.parse("2026-06-01T09:00:00Z")
let seq = 0
const runtime = makeAppRuntime({
  config: parseConfig({}),
  clock: { now: () => start - 3_600_000, mode: "manual" },
  newId: () => `id-${++seq}`,
  storage: { profile: "memory" },
})
afterAll(() => runtime.dispose())

const snapshot = (status: "active" | "unpaid" = "active"): LifecycleSnapshot => ({
  booking: { id: "b1", status, start, end: start + 3_600_000, createdAt: start - 7_200_000, checkedIn: false },
  config: defaultMeetingConfig,
  occurrenceIndex: 0,
})
const inTx = <A, E>(self: Effect.Effect<A, E, TickStore | Outbox>) =>
  Effect.gen(function* () {
    const uow = yield* UnitOfWork
    return yield* uow.transaction(self)
  })

describe("lifecycle ports (memory profile)", () => {
  it("a tick write outside a transaction dies", async () => {
    const exit = await runtime.runPromiseExit(Effect.flatMap(TickStore, (t) => t.replace("b1", [snapshot()], start)))
    expect(Exit.isFailure(exit) && Cause.hasDies(exit.cause)).toBe(true)
  })

  it("the fired ledger applies a tick once", async () => {
    const tick = { bookingId: "b1", occurrenceIndex: 0, kind: "end" as const, dueAt: start + 3_600_000 }
    const fire = () => runtime.runPromise(inTx(Effect.flatMap(TickStore, (t) => t.markFired(tick, tick.dueAt))))
    await runtime.runPromise(inTx(Effect.flatMap(TickStore, (t) => t.replace("b1", [snapshot()], start - 3_600_000, []))))
    expect(await fire()).toBe(true)
    expect(await fire()).toBe(false)
    // A reschedule keeps the fired tick fired.
    await runtime.runPromise(inTx(Effect.flatMap(TickStore, (t) => t.replace("b1", [snapshot()], start - 3_600_000))))
    expect(await fire()).toBe(false)
  })

  it("outbox writes die outside a transaction", async () => {
    const exit = await runtime.runPromiseExit(Effect.flatMap(Outbox, (o) => o.record({ projectId: "p", bookingId: "b1", assetKind: "room" }, [])))
    expect(Exit.isFailure(exit) && Cause.hasDies(exit.cause)).toBe(true)
  })

  it("a booking commit reaches the subscribed scheduler, and a failing one never fails the caller", async () => {
    const seen: Array<string> = []
    const unsubscribe = await runtime.runPromise(
      Effect.map(SchedulerWake, (w) => w.subscribe((id, signal) => void seen.push(`${id}:${signal}`))),
    )
    const failing = await runtime.runPromise(
      Effect.map(SchedulerWake, (w) =>
        w.subscribe(() => {
          throw new Error("Temporal unreachable")
        }),
      ),
    )
    await runtime.runPromise(Effect.flatMap(LifecycleSignals, (s) => s.bookingCommitted("b1", "create")))
    unsubscribe()
    failing()
    await runtime.runPromise(Effect.flatMap(LifecycleSignals, (s) => s.bookingCommitted("b1", "cancel")))
    expect(seen).toEqual(["b1:create"])
  })
})

describe("a manifest's retimed rooms (memory profile)", () => {
  const manifest = (meetingConfig?: Record<string, number>, name = "Lotus") => ({
    projects: [
      {
        key: "hq",
        name: "HQ",
        timezone: "Asia/Bangkok",
        zones: [{ key: "a", name: "A", floors: [{ key: "a-1", name: "1" }] }],
        rooms: [{ key: "r1", name, zone: "a", floor: "a-1", config: meetingConfig === undefined ? {} : { meetingConfig } }],
      },
    ],
  })
  const apply = (m: ReturnType<typeof manifest>) =>
    runtime.runPromise(
      Effect.gen(function* () {
        const uow = yield* UnitOfWork
        const store = yield* ManifestStore
        return yield* uow.transaction(store.apply(m as never))
      }),
    )

  it("a room whose timings change is retimed; a new room, a rename or the same timings spelled out are not", async () => {
    const first = await apply(manifest())
    expect(first.retimedAssets).toEqual([])
    expect((await apply(manifest(undefined, "Lotus 2"))).retimedAssets).toEqual([])
    expect((await apply(manifest({ preStartMinutes: 15, postStartExpireMinutes: 15 }))).retimedAssets).toEqual([])
    expect((await apply(manifest({ postStartExpireMinutes: 20 }))).retimedAssets).toEqual([first.ids.projects.hq!.rooms.r1])
  })

  it("the manifest use case applies a retiming without bookings to re-plan", async () => {
    const applyThrough = (m: ReturnType<typeof manifest>) => runtime.runPromise(Effect.flatMap(Tenancy, (t) => t.applyManifest(m as never)))
    await applyThrough(manifest({ postStartExpireMinutes: 5 }))
    const ids = await applyThrough(manifest({ postStartExpireMinutes: 25 }))
    expect(ids.projects.hq?.rooms.r1).toBeDefined()
  })
})
