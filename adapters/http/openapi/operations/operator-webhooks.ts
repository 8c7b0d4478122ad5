import { Schema } from "effect"
import {
  DeliveriesQuery,
  IdParam,
  ProjectIdParam,
  VisitorEventRequest,
} from "../../schemas/operator-webhook-requests.ts"
import { defineGroup } from "../operation.ts"
import { DeliveryAccepted, DeliveryLogEntry } from "../resource-schemas.ts"

export const operatorWebhooksGroup = defineGroup({
  tag: "Operator",
  description: "Provisioning and test control (operator contract); KEYSPACE_ADMIN_TOKEN required.",
  operations: [
    {
      method: "post",
      path: "/admin/v1/projects/:projectId/visitor-events",
      operationId: "publishVisitorEvent",
      tag: "Operator",
      summary: "Publish a visitor event",
      description:
        "type is VMS_INVITE_SENT, VMS_VISITOR_CHECKED_IN or VMS_HOST_CANCELLED; the reserved types give 400.",
      security: "operator",
      pathParams: ProjectIdParam,
      body: { schema: VisitorEventRequest, required: true },
      responses: [
        {
          status: 202,
          description: "Accepted; the delivery envelope id.",
          data: Schema.Union([Schema.String, DeliveryAccepted]),
        },
      ],
      errors: ["NotFound"],
    },
    {
      method: "get",
      path: "/admin/v1/webhooks/:id/deliveries",
      operationId: "listWebhookDeliveries",
      tag: "Operator",
      summary: "Delivery log of a webhook",
      description:
        "Newest first: each delivery's id, event type, state (`pending`, `delivered`, `failed`) and " +
        "attempts (time, and the receiver's status code or the error), paginated by limit and offset.",
      security: "operator",
      pathParams: IdParam,
      query: DeliveriesQuery,
      responses: [
        {
          status: 200,
          description: "Deliveries, paginated.",
          data: Schema.Array(DeliveryLogEntry),
          paginated: true,
        },
      ],
      errors: ["NotFound"],
    },
    {
      method: "post",
      path: "/admin/v1/webhooks/:id/enable",
      operationId: "enableWebhook",
      tag: "Operator",
      summary: "Re-enable a webhook",
      description: "Re-enables an auto-disabled webhook and resets its failure counter.",
      security: "operator",
      pathParams: IdParam,
      responses: [{ status: 200, description: "The webhook.", data: Schema.Unknown }],
      errors: ["NotFound"],
    },
    {
      method: "post",
      path: "/admin/v1/deliveries/:id/redeliver",
      operationId: "redeliverDelivery",
      tag: "Operator",
      summary: "Send a delivery again (same id)",
      description:
        "Queues that delivery again with the same id (receivers de-duplicate on it) and a fresh budget of " +
        "attempts; its earlier attempts stay in the log. 409 SV006 while the webhook is disabled.",
      security: "operator",
      pathParams: IdParam,
      responses: [{ status: 202, description: "Queued.", data: Schema.Unknown }],
      errors: ["NotFound", "StateConflict"],
    },
  ],
})
