import { Context, type Effect } from "effect"
import type { DeliveryState } from "../events/delivery-policy.ts"
import type { NotFound, StateConflict } from "../shared/errors.ts"

/** One attempt in a delivery's log. */
export interface DeliveryAttempt {
  /** ISO 8601, service clock. */
  readonly time: string
  /** The receiver's HTTP status, when it answered at all. */
  readonly statusCode?: number
  /** Why the attempt failed (timeout, refused address, connection error, redirect). */
  readonly error?: string
  readonly durationMs: number
}

/** A delivery as the operator's delivery log shows it. */
export interface DeliveryLogEntry {
  readonly id: string
  readonly webhookId: string
  readonly type: string
  readonly state: DeliveryState
  readonly attempts: ReadonlyArray<DeliveryAttempt>
  readonly occurredAt: string
  readonly createdAt: string
  /** When the next attempt is due (pending only). */
  readonly nextAttemptAt?: string
}

export interface WebhookState {
  readonly id: string
  readonly enabled: boolean
  readonly consecutiveFailures: number
}

/** Webhook registrations and their deliveries, as the operator API manages them. */
export class WebhookStore extends Context.Service<
  WebhookStore,
  {
    readonly projectExists: (projectId: string) => Effect.Effect<boolean>
    /** The delivery log of one registration, newest first. NotFound: no such webhook. */
    readonly deliveries: (
      webhookId: string,
      page: { readonly limit: number; readonly offset: number },
    ) => Effect.Effect<{ readonly rows: ReadonlyArray<DeliveryLogEntry>; readonly total: number }, NotFound>
    /** In tx. Queues a delivery again (same id, fresh attempts); StateConflict: webhook disabled. */
    readonly requeue: (deliveryId: string, now: number) => Effect.Effect<DeliveryLogEntry, NotFound | StateConflict>
    /** In tx. Re-enables a registration and resets its failure counter. */
    readonly enable: (webhookId: string, now: number) => Effect.Effect<WebhookState, NotFound>
  }
>()("keyspace/ports/WebhookStore") {}
