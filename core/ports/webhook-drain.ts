import { Context, type Effect } from "effect"

/**
 * Relays the outbox and attempts every delivery due at `now` (the manual clock's advance), then
 * prunes finished deliveries past retention. A no-op when no webhook worker runs here.
 */
export class WebhookDrain extends Context.Service<
  WebhookDrain,
  { readonly drainDue: (now: number) => Effect.Effect<void> }
>()("keyspace/ports/WebhookDrain") {}
