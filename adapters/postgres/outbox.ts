import type { AssetKind } from "../../core/booking/state.ts"
import type { BookingEventSource } from "../../core/ports/outbox.ts"
import type { BookingDomainEvent } from "../../core/events/domain-events.ts"
import { wakeAfterCommit, type Queryable } from "./database.ts"
import { keptQuery, paramsOf } from "./kept-query.ts"
import { outboxEventsTable } from "./tables/bookings.ts"

/** The channel that wakes the dispatchers: deliveries may be due (and the relay runs first). */
export const WEBHOOK_CHANNEL = "keyspace_webhooks"
/**
 * The channel that wakes only the relay: booking events were queued. Deliveries are claimed
 * after it only when the relay found a subscriber (most bookings have none), so a create's
 * commit costs the relay's one statement, not also a claim transaction.
 */
export const OUTBOX_CHANNEL = "keyspace_outbox"

/** ROOM_BOOK, DESK_CANCEL, ...: the webhook type of a domain event. */
export const bookingEventType = (assetKind: AssetKind, event: BookingDomainEvent): string =>
  `${assetKind === "room" ? "ROOM" : "DESK"}_${event.kind}`

export type { BookingEventSource }

/** The outbox insert for `events` (unsent), or undefined when there are none. */
export const outboxInsert = (
  tx: Queryable,
  newId: () => string,
  source: BookingEventSource,
  events: ReadonlyArray<BookingDomainEvent>,
) => {
  if (events.length === 0) return undefined
  // The webhook relay wakes once the transaction commits.
  wakeAfterCommit(tx, OUTBOX_CHANNEL)
  return tx.insert(outboxEventsTable).values(outboxValues(newId, source, events))
}

/** The outbox rows of `events` (every column). */
export const outboxValues = (
  newId: () => string,
  source: BookingEventSource,
  events: ReadonlyArray<BookingDomainEvent>,
): Array<typeof outboxEventsTable.$inferInsert> =>
  events.map((event) => ({
    id: newId(),
    projectId: source.projectId,
    bookingId: source.bookingId,
    type: bookingEventType(source.assetKind, event),
    payload: {
      event: event as unknown as Record<string, unknown>,
      ...(source.occurrenceEventId === undefined ? {} : { occurrenceEventId: source.occurrenceEventId }),
    },
    occurredAt: new Date(event.at),
    // The service clock's instant of the event (never the database's clock).
    createdAt: new Date(event.at),
  }))

/**
 * Writes domain events to the outbox. Call it with the transaction that makes the change, so
 * an event exists if and only if its change was committed (transactional outbox).
 */
export const recordBookingEvents = async (
  tx: Queryable,
  newId: () => string,
  source: BookingEventSource,
  events: ReadonlyArray<BookingDomainEvent>,
): Promise<void> => {
  if (events.length !== 1) return void (await outboxInsert(tx, newId, source, events))
  // A transition's one event (the usual case): the statement written once.
  wakeAfterCommit(tx, OUTBOX_CHANNEL)
  await insertOneEvent(tx, outboxValues(newId, source, events)[0]!)
}

const insertOneEvent = keptQuery((q) => q.insert(outboxEventsTable).values(paramsOf(outboxEventsTable)))
