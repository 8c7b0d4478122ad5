import type { Tokens } from "./auth/tokens.ts"
import type { Assets } from "./booking/assets.ts"
import type { Bookings } from "./booking/bookings.ts"
import type { BookingLifecycle } from "./booking/lifecycle.ts"
import type { Meetings } from "./booking/meeting-queries.ts"
import type { WebhookAdmin } from "./events/webhooks.ts"
import type { PartnerMembers } from "./member/members.ts"
import type { ClockControl } from "./operator/clock.ts"
import type { Payments } from "./payment/payments.ts"
import type { Tenancy } from "./tenancy/tenancy.ts"

/**
 * Every use-case service of the core. The HTTP error table (adapters/http/error-table.ts) is
 * typed against the failures these declare: a use case that can fail with a tag the table has
 * no row for does not compile. A new use-case service is added to this union.
 */
export type UseCases =
  | Bookings
  | Meetings
  | Assets
  | Payments
  | PartnerMembers
  | Tokens
  | Tenancy
  | WebhookAdmin
  | ClockControl
  | BookingLifecycle
