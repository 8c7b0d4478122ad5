import postgres from "postgres"
import { SlotTaken } from "../../core/booking/errors.ts"
import type { BookingExtras } from "../../core/booking/meeting.ts"
import type { Occurrence } from "../../core/booking/recurrence.ts"
import type { Transitioned } from "../../core/booking/transitions.ts"
import type { FirstTicks, InsertedBooking } from "../../core/ports/booking-store.ts"
import {
  clientOf,
  EVENTS_WANTED,
  insertedOf,
  insertFromJson,
  rowsOf,
  TICKS_FROM_B,
  wakeWorkers,
  writeAlone,
  type CreateRows,
} from "./booking-create.ts"
import { assetLockKey } from "./booking-repo.ts"
import { backendEnded, RETRY_DELAYS_MS, retryingRead } from "./connection-loss.ts"
import type { Db } from "./database.ts"
import { bookingHistoriesTable, bookingSlotsTable, bookingsTable, outboxEventsTable } from "./tables/bookings.ts"

/*
 * Group commit of creates. Under load most of a create's cost in PostgreSQL is per statement
 * and per commit (bind, executor start-up, the commit's WAL flush, waking the backend), not its
 * rows. Free single-slot creates that reach the store while another is in flight are written
 * together: one autocommit statement, one commit.
 *
 * - Each asset's advisory lock (the key every slot writer queues on) is TRIED, never waited for:
 *   a create whose asset another transaction holds (a paid create waiting on its gateway, say)
 *   leaves the batch and is written alone, waiting for the lock as before, instead of holding
 *   up the creates of every other asset in its batch.
 * - The slots go first with ON CONFLICT DO NOTHING: the exclusion constraint is the arbiter, so
 *   a taken slot skips its row instead of failing the statement (two creates of one slot in one
 *   batch: the first row wins). Every other row of a booking is written only if its slot was.
 * - A booking missing from the answer whose asset was locked is SlotTaken (409 SV012), as the
 *   single statement's 23P01 is.
 */
const SLOTS = insertFromJson(
  bookingSlotsTable,
  "booking_slots",
  undefined,
  "$3",
  ` where r."assetId" in (select asset_id from l) on conflict do nothing returning booking_id`,
)
const BOOKINGS = insertFromJson(bookingsTable, "bookings", undefined, "$2", ` where r."id" in (select booking_id from s)`)
const HISTORIES = insertFromJson(bookingHistoriesTable, "booking_histories", "b", "$4", ` where r."bookingId" = b.id`)
const EVENTS = insertFromJson(outboxEventsTable, "outbox_events", "b", "$5", ` where r."bookingId" = b.id returning project_id, type`)

const BATCH_STATEMENT = [
  `with l as (select a as asset_id from (select distinct a from unnest($1::text[]) as a) as assets`,
  `    where pg_try_advisory_xact_lock(${assetLockKey("a")}))`,
  `, s as (${SLOTS.sql})`,
  `, b as (${BOOKINGS.sql} returning id)`,
  `, h as (${HISTORIES.sql})`,
  `, o as (${EVENTS.sql})`,
  `, t as (${TICKS_FROM_B})`,
  `select (select coalesce(array_agg(id), '{}') from b) as written, (select coalesce(array_agg(asset_id), '{}') from l) as locked,`,
  `  ${EVENTS_WANTED}`,
].join("\n")

/** The batch statement's one row. */
interface BatchAnswer {
  readonly written: ReadonlyArray<string>
  readonly locked: ReadonlyArray<string>
  /** Whether the outbox trigger queued events the statement wrote for the webhook relay (EVENTS_WANTED). */
  readonly wanted: boolean
}

interface Queued {
  readonly rows: CreateRows
  readonly resolve: (inserted: InsertedBooking) => void
  readonly reject: (e: unknown) => void
  /** Sent again after a statement whose session PostgreSQL ended did not write it (`recover`): how often. */
  readonly resent: number
}

export interface CreateBatcher {
  /** Writes a new single-slot booking with whatever other creates are waiting; SlotTaken if its slot is taken. */
  readonly insert: (
    created: Transitioned,
    occurrences: ReadonlyArray<Occurrence>,
    extras: BookingExtras,
    ticks: FirstTicks | undefined,
  ) => Promise<InsertedBooking>
}

/**
 * PostgreSQL refused the statement: an autocommit statement that ends in an ERROR was rolled
 * back. A socket error (EPIPE, a reset) may have come after the commit: it is not one.
 */
const refused = (e: unknown): boolean => e instanceof postgres.PostgresError && e.severity === "ERROR"

/** Which of these bookings exist (committed), read on a new connection. */
const committedOf = async (db: Db, bookingIds: ReadonlyArray<string>): Promise<Set<string>> => {
  const rows = await retryingRead(() =>
    clientOf(db).unsafe<Array<{ id: string }>>("select id from bookings where id = any($1::text[])", [bookingIds as string[]], { prepare: true }),
  )
  return new Set(rows.map((r) => r.id))
}

/**
 * At most `inFlightLimit` batch statements at once (two: one commits while the next fills), each
 * of at most `maxBatch` creates (a multi-row statement's cost grows with it; 32 is far above
 * what 64 clients queue). A create arriving with nothing in flight leaves at once; with a
 * statement in flight, at the end of the event-loop turn, together with the creates that
 * arrived in it; with the limit reached, when a statement returns.
 */
export const makeCreateBatcher = (db: Db, newId: () => string, inFlightLimit = 2, maxBatch = 32): CreateBatcher => {
  const queue: Queued[] = []
  let inFlight = 0
  let scheduled = false

  /**
   * Each create on its own statement, answered on its own. Not awaited by the batch: one that
   * waits for a busy asset's lock must not hold a batch slot.
   */
  const alone = (batch: ReadonlyArray<Queued>): void => {
    for (const q of batch) writeAlone(db, q.rows).then(q.resolve, q.reject)
  }

  /** The batch statement: which bookings it wrote, and which assets it locked. */
  const write = async (rows: ReadonlyArray<CreateRows>): Promise<BatchAnswer> => {
    const [answer] = await clientOf(db).unsafe<[BatchAnswer]>(
      BATCH_STATEMENT,
      [
        rows.map((r) => r.assetId),
        BOOKINGS.json(rows.map((r) => r.row)),
        SLOTS.json(rows.flatMap((r) => r.slots)),
        HISTORIES.json(rows.map((r) => r.history)),
        EVENTS.json(rows.flatMap((r) => r.events)),
        JSON.stringify(rows.flatMap((r) => r.ticks)),
      ],
      { prepare: true },
    )
    return answer
  }

  /**
   * PostgreSQL ended the statement's session (`backendEnded`: a terminated backend, a restart):
   * the statement's transaction is over, committed or not, and a new connection sees which.
   * Bookings that exist were written (answered as such); the others were not and go into a
   * later batch, at most twice, after RETRY_DELAYS_MS. If what was stored cannot be read, every
   * create gets the session's error (503).
   */
  const recover = async (batch: ReadonlyArray<Queued>, e: unknown): Promise<void> => {
    const committed = await committedOf(db, batch.map((q) => q.rows.bookingId)).catch(() => undefined)
    if (committed === undefined) {
      for (const q of batch) q.reject(e)
      return
    }
    const written = batch.filter((q) => committed.has(q.rows.bookingId))
    // Whether an event was queued for a subscriber is unknown: the relay looks (a wake is cheap).
    wakeWorkers(db, written.map((q) => q.rows), true)
    for (const q of written) q.resolve(insertedOf(q.rows))
    const again: Queued[] = []
    for (const q of batch)
      if (committed.has(q.rows.bookingId)) continue
      else if (q.resent >= RETRY_DELAYS_MS.length) q.reject(e)
      else again.push({ ...q, resent: q.resent + 1 })
    if (again.length === 0) return
    // After a pause, as a lost read is retried: a failover ends every session at once.
    setTimeout(() => {
      queue.unshift(...again)
      resume()
    }, RETRY_DELAYS_MS[Math.max(...again.map((q) => q.resent)) - 1])
  }

  const send = async (batch: ReadonlyArray<Queued>): Promise<void> => {
    const rows = batch.map((q) => q.rows)
    const answer = await write(rows).catch(async (e: unknown) => {
      // Refused (a row PostgreSQL rejects): nothing was written, each create alone gets its own
      // answer. The session ended by PostgreSQL: `recover`. Anything else (a broken socket) may
      // have lost the answer of a commit still running: every create gets the error (the edge
      // answers 503), since a retry would meet its own slot and answer 409 for a booking that exists.
      if (refused(e)) alone(batch)
      else if (backendEnded(e)) await recover(batch, e)
      else for (const q of batch) q.reject(e)
      return null
    })
    if (answer === null) return
    const written = new Set(answer.written)
    const locked = new Set(answer.locked)
    wakeWorkers(db, rows.filter((r) => written.has(r.bookingId)), answer.wanted)
    const busy: Queued[] = []
    for (const q of batch)
      if (written.has(q.rows.bookingId)) q.resolve(insertedOf(q.rows))
      else if (locked.has(q.rows.assetId)) q.reject(new SlotTaken({ assetId: q.rows.assetId }))
      else busy.push(q)
    alone(busy)
  }

  /** Queued creates leave now unless a flush is already planned for the end of this turn. */
  const resume = (): void => {
    if (queue.length > 0 && !scheduled) flush()
  }

  const flush = (): void => {
    scheduled = false
    while (inFlight < inFlightLimit && queue.length > 0) {
      const batch = queue.splice(0, maxBatch)
      inFlight++
      // A fault in the bookkeeping after the answer fails the creates it had not answered yet
      // (a 500), rather than leaving them waiting for ever.
      void send(batch)
        .catch((e: unknown) => {
          for (const q of batch) q.reject(e)
        })
        .finally(() => {
          inFlight--
          resume()
        })
    }
  }

  return {
    insert: (created, occurrences, extras, ticks) =>
      new Promise<InsertedBooking>((resolve, reject) => {
        queue.push({ rows: rowsOf(newId, created, occurrences, extras, ticks), resolve, reject, resent: 0 })
        if (scheduled || inFlight >= inFlightLimit) return
        if (inFlight === 0) return flush()
        scheduled = true
        setImmediate(flush)
      }),
  }
}
