import type { ManagedRuntime } from "effect"
import type { BookingLifecycle } from "../../core/booking/lifecycle.ts"
import type { ClockShape } from "../../core/ports/clock.ts"
import type { Config } from "../config/config.ts"
import type { Logger } from "../observability/logger.ts"
import type { Caches } from "../postgres/cache-epoch.ts"
import type { Database } from "../postgres/database.ts"

/**
 * What the scheduler's loops (embedded and Temporal) are given when their worker layer starts
 * (adapters/wiring/layers/lifecycle.ts): the open database, the clock, settings and the log.
 */
export interface SchedulerDeps {
  readonly config: Config
  readonly clock: ClockShape
  readonly database: Database
  readonly caches: Caches
  readonly newId: () => string
  readonly logger: Logger
  /** The runtime the ticks are applied on (BookingLifecycle, in the worker's transaction). */
  readonly runtime: ManagedRuntime.ManagedRuntime<BookingLifecycle, never>
}
