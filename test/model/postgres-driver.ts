import { sql } from "drizzle-orm"
import { Effect, Layer, ManagedRuntime } from "effect"
import { Bookings } from "../../core/booking/bookings.ts"
import { BookingLifecycle } from "../../core/booking/lifecycle.ts"
import { UnitOfWork } from "../../core/ports/unit-of-work.ts"
import type { BookingStatus } from "../../core/booking/state.ts"
import { Clock } from "../../core/ports/clock.ts"
import { Ids } from "../../core/ports/ids.ts"
import type { Manifest } from "../../core/tenancy/manifest.ts"
import { AppConfig, parseConfig } from "../../adapters/config/config.ts"
import { EpochCaches, makeCaches } from "../../adapters/postgres/cache-epoch.ts"
import { bookingSlotsTable } from "../../adapters/postgres/schema.ts"
import { SqlDatabase, UnitOfWorkPostgres } from "../../adapters/postgres/unit-of-work.ts"
import { bookingsStores, bookingsUseCases } from "../../adapters/wiring/layers/bookings.ts"
import { lifecycleSignals, lifecycleStores } from "../../adapters/wiring/layers/lifecycle.ts"
import { paymentsStores } from "../../adapters/wiring/layers/payments.ts"
import type { Harness } from "../support/harness.ts"
import { MINUTE, T0, type BookingDriver, type RealBooking } from "./booking-model.ts"
import { driverOver, type ModelWorld } from "./use-case-driver.ts"

const room = (key: string, extra: Record<string, unknown> = {}) => ({
  key,
  name: key,
  zone: "z",
  floor: "z-1",
  capacity: 8,
  config: { bookMultipleDayRoom: true },
  ...extra,
})
const user = (key: string, role: "member" | "admin" = "member") => ({
  key,
  firstName: key,
  lastName: "Model",
  email: `${key}@model.example`,
  role,
  links: [{ app: "app", externalUserId: `ext-${key}` }],
})

/** The model's world as a manifest: a free room, a paid one (60 THB an hour), five members. */
export const modelManifest = (): Manifest =>
  ({
    projects: [
      {
        key: "m",
        name: "Model",
        timezone: "Asia/Bangkok",
        zones: [{ key: "z", name: "Zone", floors: [{ key: "z-1", name: "Floor" }] }],
        rooms: [room("free"), room("paid", { chargeRate: { perHour: 60, perDay: 0 } })],
        users: [user("org0"), user("org1"), user("pin"), user("admin", "admin"), user("stranger")],
      },
    ],
    apps: [{ key: "app", appId: "model-app", appSecret: "model-secret-123", projects: ["m"], canActAs: true }],
  }) as Manifest

/** Applies the model manifest through the operator API; the world's ids. */
export const modelWorld = async (h: Harness): Promise<ModelWorld> => {
  const ids = await h.applyManifest(modelManifest())
  const p = ids.projects.m
  return {
    project: p.id,
    app: ids.apps.app,
    rooms: [p.rooms.free, p.rooms.paid],
    organizers: [p.users.org0, p.users.org1],
    pinHolder: p.users.pin,
    admin: p.users.admin,
    stranger: p.users.stranger,
  }
}

/**
 * The driver over the real Bookings use case on the PostgreSQL stores of a booted service
 * (background workers off, so no tick fires behind the model's back), with its own manual
 * clock: one runtime per sequence, the booking tables emptied first.
 */
export const postgresDriver = (h: Harness, world: ModelWorld) => async (): Promise<BookingDriver> => {
  const database = h.booted.services.database
  await database.db.execute(sql`truncate table bookings cascade`)
  let now = T0
  const infra = Layer.mergeAll(
    Layer.succeed(AppConfig, parseConfig({ KEYSPACE_MAX_UNPAID_HOLDS: "1000" })),
    Layer.succeed(Clock, { now: () => now, mode: "manual" as const }),
    Layer.succeed(Ids, Ids.of({ newId: h.booted.services.newId })),
    Layer.succeed(SqlDatabase, database),
    Layer.succeed(EpochCaches, makeCaches(database.db)),
  )
  const stores = Layer.mergeAll(UnitOfWorkPostgres, bookingsStores.postgres, paymentsStores.postgres, lifecycleStores.postgres)
  const runtime = ManagedRuntime.make(
    bookingsUseCases.pipe(Layer.provideMerge(lifecycleSignals), Layer.provideMerge(stores), Layer.provideMerge(infra)),
  )
  const bookings = await runtime.runPromise(Effect.service(Bookings))
  const lifecycle = await runtime.runPromise(Effect.service(BookingLifecycle))
  const uow = await runtime.runPromise(Effect.service(UnitOfWork))
  return driverOver({
    bookings,
    lifecycle,
    uow,
    run: (e) => runtime.runPromiseExit(e),
    world,
    now: () => now,
    advance: (minutes) => {
      now += minutes * MINUTE
    },
    // The model books single meetings: one slot each.
    read: async () => {
      const slots = await database.db.select().from(bookingSlotsTable)
      return new Map(
        slots.map((s): [string, RealBooking] => [
          s.bookingId,
          { status: s.status as BookingStatus, start: s.startAt.getTime(), end: s.endAt.getTime(), room: world.rooms.indexOf(s.assetId) },
        ]),
      )
    },
    dispose: () => runtime.dispose(),
  })
}
