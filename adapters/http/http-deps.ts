import type { ManagedRuntime } from "effect"
import type { UseCases } from "../../core/use-cases.ts"
import type { ClockShape } from "../../core/ports/clock.ts"
import type { SnapshotMemos } from "../../core/ports/read-freshness.ts"
import type { Config } from "../config/config.ts"
import type { Logger } from "../observability/logger.ts"
import type { Metrics } from "../observability/metrics.ts"
import type { Telemetry } from "../observability/telemetry.ts"

/**
 * The services a handler may run: the core's use cases, the telemetry of /metrics, and the
 * snapshot memos whole listing answers are kept in (kept-answers.ts).
 */
export type EdgeServices = UseCases | Telemetry | SnapshotMemos

/**
 * What the HTTP edge is given at start (adapters/wiring builds it once): the runtime it runs use
 * cases on, and the few settings and sinks of the edge itself. No store, no database.
 */
export interface HttpDeps {
  readonly runtime: ManagedRuntime.ManagedRuntime<EdgeServices, never>
  readonly config: Config
  readonly clock: ClockShape
  readonly logger: Logger
  /** The request metrics of the observer (legacy recorders over the runtime's registry). */
  readonly metrics: Metrics
  readonly adminToken: string
  /** Faults a retry may clear (a lost database connection): answered 503 SV004, not 500 (run.ts). */
  readonly transientFault: (e: unknown) => boolean
  /** A value of the request the database refused: answered 400 SV001, not 500 (run.ts). */
  readonly refusedValue: (e: unknown) => boolean
}
