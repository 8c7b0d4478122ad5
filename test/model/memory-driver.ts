import { Effect, Layer, ManagedRuntime } from "effect"
import type { AssetRecord, Project } from "../../core/booking/asset.ts"
import { Bookings } from "../../core/booking/bookings.ts"
import { BookingLifecycle } from "../../core/booking/lifecycle.ts"
import { UnitOfWork } from "../../core/ports/unit-of-work.ts"
import { currentSlot } from "../../core/booking/meeting.ts"
import type { BookingStatus } from "../../core/booking/state.ts"
import { Clock } from "../../core/ports/clock.ts"
import { Ids } from "../../core/ports/ids.ts"
import { AppConfig, parseConfig } from "../../adapters/config/config.ts"
import { ASSETS_TABLE, emptyAssetTables, type AssetTables } from "../../adapters/memory/asset-store.ts"
import { bookingTables } from "../../adapters/memory/booking-store.ts"
import { directoryTable } from "../../adapters/memory/directory-store.ts"
import { MemoryDb, UnitOfWorkMemory } from "../../adapters/memory/memory-db.ts"
import { bookingsStores, bookingsUseCases } from "../../adapters/wiring/layers/bookings.ts"
import { lifecycleSignals, lifecycleStores } from "../../adapters/wiring/layers/lifecycle.ts"
import { paymentsStores } from "../../adapters/wiring/layers/payments.ts"
import { MINUTE, T0, type BookingDriver, type RealBooking } from "./booking-model.ts"
import { driverOver, type ModelWorld } from "./use-case-driver.ts"

const TIME_ZONE = "Asia/Bangkok"

export const MEMORY_WORLD: ModelWorld = {
  project: "f00000000000000000000001",
  app: "a00000000000000000000001",
  rooms: ["e00000000000000000000001", "e00000000000000000000002"],
  organizers: ["c00000000000000000000001", "c00000000000000000000002"],
  pinHolder: "c00000000000000000000003",
  admin: "c00000000000000000000004",
  stranger: "c00000000000000000000005",
}

const roomRecord = (id: string, name: string, perHour: number): AssetRecord => ({
  kind: "room",
  id,
  projectId: MEMORY_WORLD.project,
  zoneId: "z",
  floorId: "f",
  name,
  email: null,
  capacity: 8,
  status: "active",
  isPublic: true,
  facilities: [],
  pictureUrls: [],
  // 60 THB an hour is one baht a minute: prices never round, so "longer costs more" exactly.
  chargeRate: { perHour, perDay: 0 },
  rawConfig: { bookMultipleDayRoom: true },
  createdAt: T0,
  updatedAt: T0,
  type: "meeting",
  equipmentsAvailability: { camera: false, display: false, mic: false, projector: false, speaker: false },
})

/**
 * The driver over the real Bookings use case on the memory stores (booking, asset, directory,
 * discount, payment, tick, outbox), a manual clock and sequential ids: one runtime per sequence.
 */
export const memoryDriver = async (): Promise<BookingDriver> => (await memoryRuntime()).driver

/** The memory driver with its runtime (to run other use cases on the same stores). */
export const memoryRuntime = async () => {
  let now = T0
  let seq = 0
  const w = MEMORY_WORLD
  const infra = Layer.mergeAll(
    Layer.succeed(AppConfig, parseConfig({ KEYSPACE_MAX_UNPAID_HOLDS: "1000" })),
    Layer.succeed(Clock, { now: () => now, mode: "manual" as const }),
    Layer.succeed(Ids, Ids.of({ newId: () => (++seq).toString(16).padStart(24, "0") })),
  )
  const stores = Layer.mergeAll(UnitOfWorkMemory, bookingsStores.memory, paymentsStores.memory, lifecycleStores.memory)
  const layer = bookingsUseCases.pipe(
    Layer.provideMerge(lifecycleSignals),
    Layer.provideMerge(stores),
    Layer.provideMerge(MemoryDb.layer),
    Layer.provideMerge(infra),
  )
  const runtime = ManagedRuntime.make(layer)
  const { bookings, lifecycle, uow, table } = await runtime.runPromise(
    Effect.gen(function* () {
      const db = yield* MemoryDb
      const project: Project = { id: w.project, timezone: TIME_ZONE, brandId: "b" }
      db.table<AssetTables>(ASSETS_TABLE, emptyAssetTables).set({
        projects: new Map([[w.project, project]]),
        assets: new Map([
          [w.rooms[0]!, roomRecord(w.rooms[0]!, "Free", 0)],
          [w.rooms[1]!, roomRecord(w.rooms[1]!, "Paid", 60)],
        ]),
      })
      const person = (name: string) => ({ email: `${name}@example.com`, name, displayName: name })
      directoryTable(db).set({
        users: new Map([
          [w.organizers[0]!, person("org0")],
          [w.organizers[1]!, person("org1")],
          [w.pinHolder, person("pin")],
          [w.admin, person("admin")],
          [w.stranger, person("stranger")],
        ]),
        apps: new Map([[w.app, "model"]]),
        memberships: new Map([[`${w.project}:${w.admin}`, "admin"]]),
      })
      return { bookings: yield* Bookings, lifecycle: yield* BookingLifecycle, uow: yield* UnitOfWork, table: bookingTables(db) }
    }),
  )
  const driver = driverOver({
    bookings,
    lifecycle,
    uow,
    run: (e) => runtime.runPromiseExit(e),
    world: w,
    now: () => now,
    advance: (minutes) => {
      now += minutes * MINUTE
    },
    read: async () => {
      const out = new Map<string, RealBooking>()
      for (const [id, stored] of table.get().bookings) {
        const slot = currentSlot(stored, TIME_ZONE, now)
        out.set(id, {
          status: slot.status as BookingStatus,
          start: slot.startAt.getTime(),
          end: slot.endAt.getTime(),
          room: w.rooms.indexOf(stored.row.assetId),
        })
      }
      return out
    },
    dispose: () => runtime.dispose(),
  })
  return { driver, runtime }
}
