import { and, gt, inArray } from "drizzle-orm"
import { Effect, Layer, Option } from "effect"
import { LIVE_STATUSES } from "../../core/booking/state.ts"
import { SlotTaken } from "../../core/booking/errors.ts"
import { BookingStore, type FirstTicks, type InsertedBooking, type LockedBooking } from "../../core/ports/booking-store.ts"
import type { StoredBooking } from "../../core/booking/meeting.ts"
import { Ids } from "../../core/ports/ids.ts"
import * as Interval from "../../core/shared/interval.ts"
import {
  assetConfigRaw,
  historiesOf,
  insertBooking,
  liveSlotsOverlapping,
  loadBooking,
  loadLockedBooking,
  saveTransition,
  unpaidHoldsOf,
} from "./booking-repo.ts"
import { lockBookingForTick } from "./tick-queries.ts"
import { bookingSlotsTable } from "./tables/bookings.ts"
import { ticksInsert } from "./tick-store.ts"
import { pgErrorOf, PG_DEADLOCK_DETECTED, PG_EXCLUSION_VIOLATION } from "./database.ts"
import { CurrentTx, DatabaseError, inTx, read, SqlDatabase, write } from "./unit-of-work.ts"
import { insertBookingAlone } from "./booking-create.ts"
import { makeCreateBatcher } from "./create-batcher.ts"
import type { Tx } from "./database.ts"
import type { BookingExtras } from "../../core/booking/meeting.ts"
import type { Occurrence } from "../../core/booking/recurrence.ts"
import type { Transitioned } from "../../core/booking/transitions.ts"

/**
 * BookingStore over PostgreSQL/PGlite. The SQL is booking-repo.ts's (still shared with the
 * scheduler and payments until they move onto this port); this layer adds the transaction
 * rules: slot writes queue on the asset's advisory lock, and an exclusion violation (23P01) or
 * a deadlock against an overlapping writer (40P01) is SlotTaken; any other driver error dies.
 */
const slotWrite =
  (assetId: string) =>
  <A>(self: Effect.Effect<A, DatabaseError>): Effect.Effect<A, SlotTaken> =>
    self.pipe(
      Effect.catchTag("DatabaseError", (e) => {
        if (e.cause instanceof SlotTaken) return Effect.fail(e.cause)
        const code = pgErrorOf(e.cause)?.code
        return code === PG_EXCLUSION_VIOLATION || code === PG_DEADLOCK_DETECTED
          ? Effect.fail(new SlotTaken({ assetId }))
          : Effect.die(e.cause)
      }),
    )

export const BookingStorePostgres = Layer.effect(
  BookingStore,
  Effect.gen(function* () {
    const ids = yield* Ids
    const database = yield* SqlDatabase
    // Concurrent free single-slot creates share one statement and one commit (create-batcher.ts).
    const batcher = database.engine === "postgres" ? makeCreateBatcher(database.db, ids.newId) : undefined
    const run = <A, E>(self: Effect.Effect<A, E, SqlDatabase>) => Effect.provideService(self, SqlDatabase, database)
    const insertIn = (
      tx: Tx,
      created: Transitioned,
      occurrences: ReadonlyArray<Occurrence>,
      extras: BookingExtras,
      ticks: FirstTicks | undefined,
    ): Promise<InsertedBooking> =>
      insertBooking(
        tx,
        ids.newId,
        created,
        occurrences,
        extras,
        ticks === undefined ? undefined : ticksInsert(tx, created.booking.id, ticks.snapshots, ticks.now),
      )
    return BookingStore.of({
      load: (id) => run(read((q) => loadBooking(q, id))).pipe(Effect.map(Option.fromUndefinedOr)),
      lockForTick: (id) =>
        write("BookingStore.lockForTick", async (tx) => {
          const locked = await lockBookingForTick(tx, id)
          if (typeof locked === "string") return locked
          return { stored: locked, assetConfig: await assetConfigRaw(tx, locked.row) }
        }),
      loadForUpdate: (id) =>
        write("BookingStore.loadForUpdate", (tx) => loadLockedBooking(tx, id)).pipe(Effect.map(Option.fromUndefinedOr)),
      lockLiveOfAssets: (assetIds, now) =>
        write("BookingStore.lockLiveOfAssets", async (tx) => {
          if (assetIds.length === 0) return []
          const live = await tx
            .selectDistinct({ id: bookingSlotsTable.bookingId })
            .from(bookingSlotsTable)
            .where(
              and(
                inArray(bookingSlotsTable.assetId, [...assetIds]),
                inArray(bookingSlotsTable.status, [...LIVE_STATUSES]),
                gt(bookingSlotsTable.endAt, new Date(now)),
              ),
            )
            .orderBy(bookingSlotsTable.bookingId)
          const locked: LockedBooking[] = []
          // One config read per asset, not per booking.
          const configs = new Map<string, unknown>()
          for (const { id } of live) {
            const stored = await loadBooking(tx, id, { lock: true })
            if (stored === undefined) continue
            if (!configs.has(stored.row.assetId)) configs.set(stored.row.assetId, await assetConfigRaw(tx, stored.row))
            locked.push({ stored, assetConfig: configs.get(stored.row.assetId) })
          }
          return locked
        }),
      insert: (created, occurrences, extras, ticks) =>
        inTx("BookingStore.insert", (tx) => insertIn(tx, created, occurrences, extras, ticks)).pipe(
          slotWrite(created.booking.assetId),
        ),
      insertAlone: (created, occurrences, extras, ticks) =>
        Effect.gen(function* () {
          const tx = yield* CurrentTx
          const written = (): Promise<InsertedBooking> =>
            // Inside a unit of work: its transaction. On PGlite (one in-process connection, no
            // round trips to save): a transaction of its own, as `insert` sends it.
            tx !== undefined
              ? insertIn(tx, created, occurrences, extras, ticks)
              : database.engine !== "postgres"
                ? database.db.transaction((t) => insertIn(t, created, occurrences, extras, ticks))
                : batcher !== undefined && occurrences.length === 1
                  ? batcher.insert(created, occurrences, extras, ticks)
                  : insertBookingAlone(database.db, ids.newId, created, occurrences, extras, ticks)
          return yield* Effect.tryPromise({ try: written, catch: (cause) => new DatabaseError({ cause }) })
        }).pipe(slotWrite(created.booking.assetId)),
      saveTransition: (stored, slot, result, options) =>
        inTx("BookingStore.saveTransition", (tx) => saveTransition(tx, ids.newId, stored, slot, result, options)).pipe(
          slotWrite(result.booking.assetId),
        ),
      anyLiveOverlap: (assetId, intervals, except) =>
        intervals.length === 0
          ? Effect.succeed(false)
          : run(
              read(async (q) => {
                const lo = Math.min(...intervals.map((i) => i.start))
                const hi = Math.max(...intervals.map((i) => i.end))
                const slots = await liveSlotsOverlapping(q, [assetId], lo, hi)
                return slots.some(
                  (x) =>
                    x.bookingId !== except &&
                    intervals.some((i) => Interval.overlaps(i, Interval.make(x.startAt.getTime(), x.endAt.getTime()))),
                )
              }),
            ),
      unpaidHoldsOf: (organizerUserId) => write("BookingStore.unpaidHoldsOf", (tx) => unpaidHoldsOf(tx, organizerUserId)),
      histories: (bookingIds) => run(read((q) => historiesOf(q, bookingIds))),
    })
  }),
)
