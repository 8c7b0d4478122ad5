import { Layer, ManagedRuntime } from "effect"
import type { ClockShape } from "../../core/ports/clock.ts"
import { Clock } from "../../core/ports/clock.ts"
import { Ids } from "../../core/ports/ids.ts"
import { AppConfig, type Config } from "../config/config.ts"
import { MemoryDb, UnitOfWorkMemory } from "../memory/memory-db.ts"
import { EpochCaches, makeCaches } from "../postgres/cache-epoch.ts"
import { SqlDatabase, UnitOfWorkPostgres } from "../postgres/unit-of-work.ts"
import { bookingsStores, bookingsUseCases } from "./layers/bookings.ts"
import { lifecycleSignals, lifecycleStores, lifecycleUseCases, lifecycleWorkers } from "./layers/lifecycle.ts"
import { membersStores, membersUseCases } from "./layers/members.ts"
import { paymentsStores, paymentsUseCases } from "./layers/payments.ts"
import { observabilityLayer } from "./layers/observability.ts"
import type { TracingConfig } from "../observability/tracing.ts"
import type { Logger } from "../observability/logger.ts"

import type { WorkerDeps } from "./worker-deps.ts"
import type { Storage } from "./storage.ts"

export type { Storage }

/** What boot opened before the graph (the database, the clock) comes in as values. */
export interface AppInputs {
  readonly config: Config
  readonly clock: ClockShape
  readonly newId: () => string
  readonly storage: Storage
  /** OTLP export settings from the OTEL_* variables; absent = tracing off. */
  readonly tracing?: TracingConfig | undefined
  /** Start the background workers when the runtime builds (boot's `background`; default off). */
  readonly background?: boolean
  /** The worker loops' dependencies, handed over by boot once the runtime is built. */
  readonly workerDeps?: Promise<WorkerDeps>
  /**
   * The line logger the Effect logger writes through (boot's, whose lines its `logLine` takes);
   * default: redacted lines at the configured level, `console.log` one call per line.
   */
  readonly logger?: Logger | undefined
}

const infra = (inputs: AppInputs) =>
  Layer.mergeAll(
    Layer.succeed(AppConfig, inputs.config),
    Layer.succeed(Clock, inputs.clock),
    Layer.succeed(Ids, Ids.of({ newId: inputs.newId })),
    observabilityLayer(inputs),
  )

const stores = (storage: Storage) =>
  storage.profile === "postgres"
    ? Layer.mergeAll(
        UnitOfWorkPostgres,
        bookingsStores.postgres,
        paymentsStores.postgres,
        membersStores.postgres,
        lifecycleStores.postgres,
      ).pipe(
        // One set of caches per runtime: the token store's per-request sync serves every store.
        Layer.provideMerge(EpochCaches.memos),
        Layer.provideMerge(Layer.succeed(EpochCaches, storage.caches ?? makeCaches(storage.database.db))),
        Layer.provide(Layer.succeed(SqlDatabase, storage.database)),
      )
    : Layer.mergeAll(
        UnitOfWorkMemory,
        bookingsStores.memory,
        paymentsStores.memory,
        membersStores.memory,
        lifecycleStores.memory,
      ).pipe(Layer.provideMerge(EpochCaches.memos), Layer.provideMerge(EpochCaches.layerMemory), Layer.provide(MemoryDb.layer))

/**
 * The stores of either profile provide the same ports (a port missing from one profile does
 * not compile); the driver (SqlDatabase, MemoryDb) stays inside.
 *
 * The whole application as one layer: workers over use cases over signals over stores over
 * infrastructure. Use cases depend on ports, and the manifest's on the booking lifecycle;
 * workers depend on use cases; nothing depends on a worker, so the graph has no cycle.
 */
export const appLayer = (inputs: AppInputs) =>
  lifecycleWorkers({ background: inputs.background ?? false, workerDeps: inputs.workerDeps }).pipe(
    Layer.provideMerge(Layer.mergeAll(paymentsUseCases, membersUseCases, lifecycleUseCases)),
    // Below the others: the manifest (Tenancy) re-plans the ticks of bookings (BookingLifecycle).
    Layer.provideMerge(bookingsUseCases),
    Layer.provideMerge(lifecycleSignals),
    Layer.provideMerge(stores(inputs.storage)),
    Layer.provideMerge(infra(inputs)),
  )

/** Every service the runtime provides (ports, use cases, workers). */
export type AppServices = Layer.Success<ReturnType<typeof appLayer>>
export type AppRuntime = ManagedRuntime.ManagedRuntime<AppServices, never>

export const makeAppRuntime = (inputs: AppInputs): AppRuntime => ManagedRuntime.make(appLayer(inputs))
