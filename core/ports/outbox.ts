import { Context, type Effect } from "effect"
import type { AssetKind } from "../booking/state.ts"
import type { BookingDomainEvent } from "../events/domain-events.ts"
import type { NotFound } from "../shared/errors.ts"

/** Where a booking's domain events come from (the webhook type and payload need it). */
export interface BookingEventSource {
  readonly projectId: string
  readonly bookingId: string
  readonly assetKind: AssetKind
  /** The occurrence a series event is about; absent for single bookings. */
  readonly occurrenceEventId?: string | undefined
}

/** A visitor event already validated by the core (type, mirrored data, occurredAt). */
export interface VisitorEventToPublish {
  readonly type: string
  readonly occurredAt: number
  readonly data: unknown
}

/**
 * The transactional outbox: events are written with the change that caused them, so an event
 * exists if and only if its change committed; the webhook relay wakes once it commits.
 */
export class Outbox extends Context.Service<
  Outbox,
  {
    /** In tx. Writes booking domain events (none: nothing written). */
    readonly record: (source: BookingEventSource, events: ReadonlyArray<BookingDomainEvent>) => Effect.Effect<void>
    /**
     * In tx. One delivery per enabled registration of the project subscribed to the type;
     * returns the envelope id (the first subscriber's delivery id). NotFound: no such project.
     */
    readonly publishVisitor: (projectId: string, event: VisitorEventToPublish) => Effect.Effect<string, NotFound>
  }
>()("keyspace/ports/Outbox") {}
