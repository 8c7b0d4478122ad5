import type { OperationGroup } from "./operation.ts"
import { assetsGroup } from "./operations/assets.ts"
import { authGroup, operatorGroup, serviceGroup } from "./operations/foundation.ts"
import { meetingsGroup, operatorMeetingsGroup } from "./operations/meetings.ts"
import { operatorWebhooksGroup } from "./operations/operator-webhooks.ts"
import { partnerMembersGroup } from "./operations/partner-members.ts"
import { paymentsGroup } from "./operations/payments.ts"

/**
 * Every documented surface. A new surface adds one file under operations/ and one line here;
 * test/integration/dx/openapi.test.ts fails while a served route has no entry.
 */
export const operationCatalog: readonly OperationGroup[] = [
  authGroup,
  assetsGroup,
  meetingsGroup,
  partnerMembersGroup,
  operatorGroup,
  operatorMeetingsGroup,
  operatorWebhooksGroup,
  paymentsGroup,
  serviceGroup,
]
