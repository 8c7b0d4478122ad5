import { Cause, Effect, Exit, Layer, ManagedRuntime, Option } from "effect"
import { expect } from "vitest"
import type { Principal } from "../../core/auth/principal.ts"
import type { AssetRecord, Project } from "../../core/booking/asset.ts"
import { Bookings } from "../../core/booking/bookings.ts"
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
import { MINUTE, T0, type Action, type BookingDriver, type Outcome, type RealBooking, type Who } from "./booking-model.ts"

/** Ids of the model's world (ObjectId-shaped). */
export const PROJECT = "f00000000000000000000001"
export const APP = "a00000000000000000000001"
export const ROOM_IDS = ["e00000000000000000000001", "e00000000000000000000002"] as const
export const ORGANIZERS = ["c00000000000000000000001", "c00000000000000000000002"] as const
const PIN_HOLDER = "c00000000000000000000003"
const ADMIN = "c00000000000000000000004"
const STRANGER = "c00000000000000000000005"
const TIME_ZONE = "Asia/Bangkok"

export const memberPrincipal = (userId: string): Principal => ({
  appId: APP,
  appKey: "model",
  grant: "act_as",
  projectIds: [PROJECT],
  subjectUserId: userId,
})

const roomRecord = (id: string, name: string, perHour: number): AssetRecord => ({
  kind: "room",
  id,
  projectId: PROJECT,
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

/** Outcome of a use-case exit: "Success" or the failure's tag (a defect fails the test). */
export const outcomeOf = <A>(exit: Exit.Exit<A, { readonly _tag: string }>): Outcome => {
  if (Exit.isSuccess(exit)) return "Success"
  const failure = Cause.findErrorOption(exit.cause)
  if (Option.isSome(failure)) return failure.value._tag
  throw new Error(`defect: ${Cause.pretty(exit.cause)}`)
}

/**
 * The model's driver over the real Bookings use case on the memory stores (booking, asset,
 * directory, discount, payment, tick, outbox) with a manual clock and sequential ids.
 */
export const memoryDriver = async (): Promise<BookingDriver> => {
  let now = T0
  let seq = 0
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
  const { bookings, table } = await runtime.runPromise(
    Effect.gen(function* () {
      const db = yield* MemoryDb
      const project: Project = { id: PROJECT, timezone: TIME_ZONE, brandId: "b" }
      db.table<AssetTables>(ASSETS_TABLE, emptyAssetTables).set({
        projects: new Map([[PROJECT, project]]),
        assets: new Map([
          [ROOM_IDS[0], roomRecord(ROOM_IDS[0], "Free", 0)],
          [ROOM_IDS[1], roomRecord(ROOM_IDS[1], "Paid", 60)],
        ]),
      })
      const person = (name: string) => ({ email: `${name}@example.com`, name, displayName: name })
      directoryTable(db).set({
        users: new Map([
          [ORGANIZERS[0], person("org0")],
          [ORGANIZERS[1], person("org1")],
          [PIN_HOLDER, person("pin")],
          [ADMIN, person("admin")],
          [STRANGER, person("stranger")],
        ]),
        apps: new Map([[APP, "model"]]),
        memberships: new Map([[`${PROJECT}:${ADMIN}`, "admin"]]),
      })
      return { bookings: yield* Bookings, table: bookingTables(db) }
    }),
  )
  const pins = new Map<string, string>()
  const actorOf = (id: string, who: Who): { principal: Principal; pinCode?: string | undefined } => {
    switch (who) {
      case "organizer":
        return { principal: memberPrincipal(organizerOf.get(id)!) }
      case "pin":
        return { principal: memberPrincipal(PIN_HOLDER), pinCode: pins.get(id) }
      case "admin":
        return { principal: memberPrincipal(ADMIN) }
      case "stranger":
        return { principal: memberPrincipal(STRANGER) }
      case "wrongPin":
        return { principal: memberPrincipal(STRANGER), pinCode: "nope" }
    }
  }
  const organizerOf = new Map<string, string>()

  return {
    now: () => now,
    create: async (organizer, room, start, end) => {
      const exit = await runtime.runPromiseExit(
        bookings.create(memberPrincipal(ORGANIZERS[organizer]!), {
          asset: { _tag: "Room", id: ROOM_IDS[room]! },
          when: { _tag: "Span", start, end },
          title: "model",
          attendees: [],
          payment: {},
          draft: Option.none(),
        }),
      )
      const outcome = outcomeOf(exit)
      if (Exit.isSuccess(exit) && exit.value._tag === "Created") {
        const m = exit.value.meeting
        // The organizer's view shows the PIN.
        expect(m.showPin).toBe(true)
        pins.set(m.row.id, m.row.pinCode)
        organizerOf.set(m.row.id, ORGANIZERS[organizer]!)
        return { outcome, id: m.row.id }
      }
      return { outcome }
    },
    act: async (id, action: Action, who) => {
      if (action === "Reject") return outcomeOf(await runtime.runPromiseExit(bookings.act("operator", id, { _tag: "Reject" })))
      const { principal, pinCode } = actorOf(id, who)
      return outcomeOf(await runtime.runPromiseExit(bookings.act(principal, id, { _tag: action, pinCode })))
    },
    update: async (id, start, end, who) => {
      const { principal, pinCode } = actorOf(id, who)
      return outcomeOf(
        await runtime.runPromiseExit(
          bookings.update(principal, id, {
            start,
            end,
            pinCode,
            payment: {},
            fields: ["endDateTime", "startDateTime"],
            draft: Option.none(),
          }),
        ),
      )
    },
    advance: async (minutes) => {
      now += minutes * MINUTE
    },
    bookings: async () => {
      const out = new Map<string, RealBooking>()
      for (const [id, stored] of table.get().bookings) {
        const slot = currentSlot(stored, TIME_ZONE, now)
        out.set(id, {
          status: slot.status as BookingStatus,
          start: slot.startAt.getTime(),
          end: slot.endAt.getTime(),
          room: ROOM_IDS.indexOf(stored.row.assetId as (typeof ROOM_IDS)[number]),
        })
      }
      return out
    },
    dispose: () => runtime.dispose(),
  }
}

