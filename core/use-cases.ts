import type { WebhookAdmin } from "./events/webhooks.ts"
import type { ClockControl } from "./operator/clock.ts"

/**
 * Every use-case service of the core. The HTTP error table (adapters/http/error-table.ts) is
 * typed against the failures these declare: a use case that can fail with a tag the table has
 * no row for does not compile. A new use-case service is added to this union.
 */
export type UseCases =
  | WebhookAdmin
  | ClockControl
