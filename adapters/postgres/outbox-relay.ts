import { Result } from "effect"
import { and, asc, eq, inArray, sql } from "drizzle-orm"
import type { Organizer, Attendee } from "../../core/booking/state.ts"
import { bookingPayload, type BookingEventContext } from "../../core/events/booking-payloads.ts"
import type { BookingDomainEvent } from "../../core/events/domain-events.ts"
import { execute, type Queryable, type Tx } from "./database.ts"
import {
  bookingSlotsTable,
  bookingsTable,
  outboxEventsTable,
} from "./tables/bookings.ts"
import { desksTable, floorsTable, projectsTable, roomsTable } from "./tables/tenancy.ts"
import { webhookOutboxQueueTable } from "./tables/webhook-deliveries.ts"
import type { ClockShape } from "../../core/ports/clock.ts"
import type { Logger } from "../observability/logger.ts"
import type { Database } from "./database.ts"
import {
  deliveriesFor,
  insertDeliveries,
  subscribedRegistrations,
  type NewDelivery,
} from "./webhook-store.ts"

// --- booking events (outbox relay) ---------------------------------------------------------

type BookingRow = typeof bookingsTable.$inferSelect

const organizerName = (o: Organizer): string | undefined => o.displayName ?? o.name

const attendeeNames = (attendees: ReadonlyArray<Attendee>): string[] | undefined => {
  const names = attendees.map((a) => a.name ?? a.email).filter((n) => n !== "")
  return names.length === 0 ? undefined : names
}

/** The occurrence start a series event is about: occurrenceEventId is `${masterId}_${start}`. */
const occurrenceStart = (payload: Record<string, unknown>): number | undefined => {
  const oid = payload["occurrenceEventId"]
  if (typeof oid !== "string") return undefined
  const ms = Number(oid.slice(oid.lastIndexOf("_") + 1))
  return Number.isFinite(ms) ? ms : undefined
}

const bookingContext = async (
  tx: Tx,
  booking: BookingRow,
  payload: Record<string, unknown>,
): Promise<BookingEventContext | undefined> => {
  const assets = booking.assetKind === "desk" ? desksTable : roomsTable
  const [asset] = await tx
    .select({ name: assets.name, floorName: floorsTable.name, timezone: projectsTable.timezone })
    .from(assets)
    .innerJoin(floorsTable, eq(floorsTable.id, assets.floorId))
    .innerJoin(projectsTable, eq(projectsTable.id, assets.projectId))
    .where(eq(assets.id, booking.assetId))
  if (!asset) return undefined
  let start = booking.startAt.getTime()
  let end = booking.endAt.getTime()
  const occurrence = occurrenceStart(payload)
  if (occurrence !== undefined) {
    const [slot] = await tx
      .select({ startAt: bookingSlotsTable.startAt, endAt: bookingSlotsTable.endAt })
      .from(bookingSlotsTable)
      .where(
        and(
          eq(bookingSlotsTable.bookingId, booking.id),
          eq(bookingSlotsTable.startAt, new Date(occurrence)),
        ),
      )
    if (slot) {
      start = slot.startAt.getTime()
      end = slot.endAt.getTime()
    } else {
      end = occurrence + (end - start)
      start = occurrence
    }
  }
  return {
    projectId: booking.projectId,
    userId: booking.organizerUserId,
    assetKind: booking.assetKind === "desk" ? "desk" : "room",
    assetName: asset.name,
    floorName: asset.floorName,
    timezone: asset.timezone,
    start,
    end,
    organizerName: organizerName(booking.organizer),
    organizerEmail: booking.organizer.email,
    attendeeNames: attendeeNames(booking.attendees),
  }
}

/** What the relay needs of the worker that runs it. */
export interface RelayDeps {
  readonly database: Database
  readonly clock: ClockShape
  readonly newId: () => string
  readonly logger: Logger
}

/**
 * The relay's first step, one autocommit statement: claims a batch of the queue (SKIP LOCKED),
 * deletes the events no enabled webhook subscribes to (the slow path below would only drop
 * them), and says how many it took and how many have a subscriber. Most rounds end here: one
 * round trip instead of BEGIN, four statements and COMMIT per round. Each queued event is looked
 * up by its key inside the EXISTS: a join of the batch with outbox_events was planned as a hash
 * join over a sequential scan of the whole table (the batch is estimated at its LIMIT), a cost
 * that grew with every booking ever made.
 */
const dropUnsubscribed = async (q: Queryable, batch: number): Promise<{ taken: number; wanted: number }> => {
  const [row] = await execute<{ taken: number; wanted: number }>(
    q,
    sql`with q as (
          select event_id from webhook_outbox_queue
          order by created_at, event_id limit ${batch} for update skip locked),
        e as (
          select q.event_id, exists (
            select 1 from outbox_events o where o.id = q.event_id and webhook_subscribed(o.project_id, o.type)
          ) as wanted
          from q),
        d as (delete from webhook_outbox_queue where event_id in (select event_id from e where not wanted))
        select count(*)::int as taken, (count(*) filter (where wanted))::int as wanted from e`,
  )
  return { taken: Number(row?.taken ?? 0), wanted: Number(row?.wanted ?? 0) }
}

/** What one relay round did: events taken off the queue, and whether any had a subscriber. */
export interface Relayed {
  readonly taken: number
  readonly subscribed: boolean
}

/**
 * Turns queued booking outbox events into deliveries. Claims queue rows with SKIP LOCKED and
 * deletes them with the deliveries' insert, so several processes relay in parallel without
 * losing or duplicating an event. Names are joined now, at relay time.
 */
export const relayOutbox = async (s: RelayDeps, batch = 100): Promise<Relayed> => {
  const first = await dropUnsubscribed(s.database.db, batch)
  return first.wanted === 0
    ? { taken: first.taken, subscribed: false }
    : { taken: await relaySubscribed(s, batch), subscribed: true }
}

/** Events with subscribers: their deliveries are built and inserted in one transaction. */
const relaySubscribed = async (s: RelayDeps, batch: number): Promise<number> =>
  s.database.db.transaction(async (tx) => {
    const q = webhookOutboxQueueTable
    const queued = await tx
      .select({ eventId: q.eventId })
      .from(q)
      .orderBy(asc(q.createdAt), asc(q.eventId))
      .limit(batch)
      .for("update", { skipLocked: true })
    if (queued.length === 0) return 0
    const ids = queued.map((r) => r.eventId)
    const events = await tx
      .select()
      .from(outboxEventsTable)
      .where(inArray(outboxEventsTable.id, ids))
    const bookings = new Map<string, BookingRow | undefined>()
    const rows: NewDelivery[] = []
    for (const e of events) {
      const event = e.payload["event"] as BookingDomainEvent | undefined
      if (!event || !e.bookingId) continue
      // Cheap check first: most events of most projects have no subscriber.
      const subscribers = await subscribedRegistrations(tx, e.projectId, e.type)
      if (subscribers.length === 0) continue
      if (!bookings.has(e.bookingId)) {
        const [b] = await tx.select().from(bookingsTable).where(eq(bookingsTable.id, e.bookingId))
        bookings.set(e.bookingId, b)
      }
      const booking = bookings.get(e.bookingId)
      const ctx = booking && (await bookingContext(tx, booking, e.payload))
      if (!ctx) {
        s.logger.log("error", "webhook relay: booking context missing; event dropped", {
          eventId: e.id,
          type: e.type,
        })
        continue
      }
      const { type, data } = bookingPayload(event, ctx)
      rows.push(
        ...(await deliveriesFor(tx, { now: s.clock.now(), newId: s.newId }, {
          eventId: e.id,
          projectId: e.projectId,
          type,
          occurredAt: e.occurredAt.getTime(),
          data,
        })),
      )
    }
    await insertDeliveries(tx, rows)
    await tx.delete(q).where(inArray(q.eventId, ids))
    return queued.length
  })
