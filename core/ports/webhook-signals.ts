import { Context, type Effect } from "effect"

/** Wakes the webhook relay and dispatcher after new deliveries were committed (never fails). */
export class WebhookSignals extends Context.Service<
  WebhookSignals,
  { readonly kick: () => Effect.Effect<void> }
>()("keyspace/ports/WebhookSignals") {}
