import { Effect, Layer } from "effect"
import { ticksToSchedule } from "../../core/booking/tick-schedule.ts"
import type { BookingTick } from "../../core/ports/lifecycle-scheduler.ts"
import { TickStore } from "../../core/ports/tick-store.ts"
import { MemoryDb, requireTx } from "./memory-db.ts"

/** One scheduled tick of the memory profile (the scheduled_ticks row). */
export interface MemoryTick extends BookingTick {
  readonly state: "pending" | "done"
  readonly firedAt?: number
}

/** Ticks by booking id. */
export type MemoryTicks = ReadonlyMap<string, ReadonlyArray<MemoryTick>>

const sameTick = (a: BookingTick, b: BookingTick): boolean => a.kind === b.kind && a.dueAt === b.dueAt

/** TickStore on the memory tables: same rules as scheduled_ticks (unique booking+kind+due). */
export const TickStoreMemory = Layer.effect(
  TickStore,
  Effect.gen(function* () {
    const db = yield* MemoryDb
    const ticks = db.table<MemoryTicks>("scheduled_ticks", () => new Map())
    const setBooking = (bookingId: string, rows: ReadonlyArray<MemoryTick>) =>
      ticks.update((all) => new Map(all).set(bookingId, rows))
    return TickStore.of({
      replace: (bookingId, snapshots, now, only) =>
        requireTx("TickStore.replace").pipe(
          Effect.map(() => {
            const kept = (ticks.get().get(bookingId) ?? []).filter(
              (t) => t.state === "done" || (only !== undefined && !only.includes(t.occurrenceIndex)),
            )
            const added = ticksToSchedule(bookingId, snapshots, now)
              .filter((t) => !kept.some((k) => sameTick(k, t)))
              .map((t): MemoryTick => ({ ...t, state: "pending" }))
            setBooking(bookingId, [...kept, ...added])
          }),
        ),
      drop: (bookingId) =>
        requireTx("TickStore.drop").pipe(
          Effect.map(() => setBooking(bookingId, (ticks.get().get(bookingId) ?? []).filter((t) => t.state === "done"))),
        ),
      markFired: (tick, at) =>
        requireTx("TickStore.markFired").pipe(
          Effect.map(() => {
            const rows = ticks.get().get(tick.bookingId) ?? []
            const found = rows.find((t) => sameTick(t, tick))
            if (found?.state === "done") return false
            const fired: MemoryTick = { ...tick, state: "done", firedAt: at }
            setBooking(tick.bookingId, [...rows.filter((t) => !sameTick(t, tick)), fired])
            return true
          }),
        ),
    })
  }),
)
