import { Effect, Layer } from "effect"
import { WebhookStore } from "../../core/ports/webhook-store.ts"
import { NotFound } from "../../core/shared/errors.ts"
import { requireTx } from "./memory-db.ts"

/**
 * WebhookStore of the memory profile: it has no webhook registrations (the manifest's webhooks
 * live in PostgreSQL only), so every registration and delivery is unknown. Projects are not
 * checked (the memory profile has no tenancy tables of this stream's).
 */
export const WebhookStoreMemory = Layer.succeed(
  WebhookStore,
  WebhookStore.of({
    projectExists: () => Effect.succeed(true),
    deliveries: (webhookId) => Effect.fail(new NotFound({ entity: "webhook", id: webhookId })),
    requeue: (id) =>
      requireTx("WebhookStore.requeue").pipe(Effect.andThen(Effect.fail(new NotFound({ entity: "delivery", id })))),
    enable: (webhookId) =>
      requireTx("WebhookStore.enable").pipe(Effect.andThen(Effect.fail(new NotFound({ entity: "webhook", id: webhookId })))),
  }),
)
