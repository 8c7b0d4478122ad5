import type { ClockShape } from "../../core/ports/clock.ts"
import type { Config } from "../config/config.ts"
import type { Logger } from "../observability/logger.ts"
import type { Metrics } from "../observability/metrics.ts"
import type { Database } from "../postgres/database.ts"

/**
 * What the webhook relay, dispatcher and retention loops are given when their worker layer
 * starts (adapters/wiring/layers/lifecycle.ts).
 */
export interface WebhookDeps {
  readonly config: Config
  readonly clock: ClockShape
  readonly database: Database
  readonly newId: () => string
  readonly logger: Logger
  readonly metrics: Metrics
}
