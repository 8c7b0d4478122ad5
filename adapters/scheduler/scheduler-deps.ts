import type { ManagedRuntime } from "effect"
import type { BookingStore } from "../../core/ports/booking-store.ts"
import type { ClockShape } from "../../core/ports/clock.ts"
import type { PaymentStore } from "../../core/ports/payment-store.ts"
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
  /** The stores the payment lapse runs on inside the scheduler's transaction. */
  readonly runtime: ManagedRuntime.ManagedRuntime<BookingStore | PaymentStore, never>
}
