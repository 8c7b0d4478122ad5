import { Context, Effect, Layer, Result } from "effect"
import { Clock } from "../ports/clock.ts"
import { Outbox } from "../ports/outbox.ts"
import { UnitOfWork } from "../ports/unit-of-work.ts"
import { WebhookStore, type DeliveryLogEntry, type WebhookState } from "../ports/webhook-store.ts"
import { NotFound, ValidationFailed, type StateConflict } from "../shared/errors.ts"
import { parseOffsetDateTimeExact } from "../shared/local-time.ts"
import { visitorEventOf } from "./visitor-payloads.ts"

/** A visitor event as the operator posts it (decoded at the edge: a type and an object). */
export interface VisitorEventInput {
  readonly type: string
  readonly data: unknown
}

/**
 * The operator's webhook use cases (operator contract, section 2): publishing visitor events,
 * the delivery log, redelivery and re-enabling a registration.
 */
export class WebhookAdmin extends Context.Service<
  WebhookAdmin,
  {
    /** Validates, then enqueues one delivery per subscriber; returns the envelope id. */
    readonly publishVisitor: (projectId: string, input: VisitorEventInput) => Effect.Effect<string, NotFound | ValidationFailed>
    readonly deliveries: (
      webhookId: string,
      page: { readonly limit: number; readonly offset: number },
    ) => Effect.Effect<{ readonly rows: ReadonlyArray<DeliveryLogEntry>; readonly total: number }, NotFound>
    readonly requeue: (deliveryId: string) => Effect.Effect<DeliveryLogEntry, NotFound | StateConflict>
    readonly enable: (webhookId: string) => Effect.Effect<WebhookState, NotFound>
  }
>()("keyspace/core/WebhookAdmin") {
  static readonly layer = Layer.effect(
    WebhookAdmin,
    Effect.gen(function* () {
      const uow = yield* UnitOfWork
      const outbox = yield* Outbox
      const store = yield* WebhookStore
      const clock = yield* Clock
      const publishVisitor = Effect.fn("WebhookAdmin.publishVisitor")(function* (projectId: string, input: VisitorEventInput) {
        // An unknown project is a 404 whatever the body says.
        if (!(yield* store.projectExists(projectId))) return yield* new NotFound({ entity: "project", id: projectId })
        const validated = visitorEventOf(input.type, input.data, projectId, clock.now())
        if (Result.isFailure(validated)) return yield* validated.failure
        const event = validated.success
        // timestamp mirrors occurredAt: both leave as the same ISO 8601 UTC text, seconds kept.
        // mirrorEnvelopeFields checked it (Date.parse refused a comma fraction it accepts).
        const occurredAt = Result.getOrThrow(parseOffsetDateTimeExact(event.data.timestamp))
        const data = { ...event.data, timestamp: new Date(occurredAt).toISOString() }
        return yield* uow.transaction(outbox.publishVisitor(projectId, { type: event.type, occurredAt, data }))
      })
      const deliveries = Effect.fn("WebhookAdmin.deliveries")(function* (
        webhookId: string,
        page: { readonly limit: number; readonly offset: number },
      ) {
        return yield* store.deliveries(webhookId, page)
      })
      const requeue = Effect.fn("WebhookAdmin.requeue")(function* (deliveryId: string) {
        return yield* uow.transaction(store.requeue(deliveryId, clock.now()))
      })
      const enable = Effect.fn("WebhookAdmin.enable")(function* (webhookId: string) {
        return yield* uow.transaction(store.enable(webhookId, clock.now()))
      })
      return WebhookAdmin.of({ publishVisitor, deliveries, requeue, enable })
    }),
  )
}

