import type { AssetKind } from "../../core/booking/state.ts"
import type { BookingDomainEvent } from "../../core/events/domain-events.ts"
import type { Queryable } from "./database.ts"
import { outboxEventsTable } from "./tables/bookings.ts"

/** ROOM_BOOK, DESK_CANCEL, ...: the webhook type of a domain event. */
export const bookingEventType = (assetKind: AssetKind, event: BookingDomainEvent): string =>
  `${assetKind === "room" ? "ROOM" : "DESK"}_${event.kind}`

export interface BookingEventSource {
  readonly projectId: string
  readonly bookingId: string
  readonly assetKind: AssetKind
  /** The occurrence a series event is about; absent for single bookings. */
  readonly occurrenceEventId?: string | undefined
}

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
  if (events.length === 0) return
  await tx.insert(outboxEventsTable).values(
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
    })),
  )
}
