import { Effect, Layer, Option } from "effect"
import { SlotTaken } from "../../core/booking/errors.ts"
import {
  newBookingRecord,
  newSlotRecords,
  transitionedRowFields,
  transitionedSlotFields,
  type BookingRecord,
  type HistoryRecord,
  type SlotRecord,
  type StoredBooking,
} from "../../core/booking/meeting.ts"
import { isLive, type BookingStatus } from "../../core/booking/state.ts"
import type { HistoryEntry } from "../../core/booking/transitions.ts"
import type { BookingDomainEvent } from "../../core/events/domain-events.ts"
import { BookingStore, type InsertBooking } from "../../core/ports/booking-store.ts"
import { Ids } from "../../core/ports/ids.ts"
import { TickStore } from "../../core/ports/tick-store.ts"
import * as Interval from "../../core/shared/interval.ts"
import { ASSETS_TABLE, emptyAssetTables, SLOTS_TABLE, type AssetTables, type MemorySlot } from "./asset-store.ts"
import { MEETINGS_TABLE, type MeetingsTable } from "./meeting-read-store.ts"
import { MemoryDb, memoryTransaction, requireTx, type MemoryDbShape } from "./memory-db.ts"

/** A booking event as the memory profile records it (the outbox of the PostgreSQL profile). */
export interface MemoryBookingEvent {
  readonly bookingId: string
  readonly projectId: string
  readonly occurrenceEventId?: string | undefined
  readonly event: BookingDomainEvent
}

export interface BookingTables {
  readonly bookings: ReadonlyMap<string, StoredBooking>
  readonly histories: ReadonlyMap<string, ReadonlyArray<HistoryRecord>>
}

/** The memory profile's booking events, oldest first (read by the memory outbox and tests). */
export const MEMORY_BOOKING_EVENTS = "booking-events"

/** The memory profile's bookings and histories (the store's own table; tests read it directly). */
export const bookingTables = (db: MemoryDbShape) =>
  db.table<BookingTables>("bookings", () => ({ bookings: new Map(), histories: new Map() }))

const slotInterval = (s: SlotRecord) => Interval.make(s.startAt.getTime(), s.endAt.getTime())

/**
 * BookingStore in memory, with the constraints PostgreSQL enforces: two live slots of one
 * asset never overlap (SlotTaken), writes need a unit of work. Tables are immutable values.
 */
export const BookingStoreMemory = Layer.effect(
  BookingStore,
  Effect.gen(function* () {
    const db = yield* MemoryDb
    const ids = yield* Ids
    const ticks = yield* TickStore
    const tables = bookingTables(db)
    const events = db.table<ReadonlyArray<MemoryBookingEvent>>(MEMORY_BOOKING_EVENTS, () => [])

    const history = (bookingId: string, h: HistoryEntry, data: Record<string, unknown> | undefined): HistoryRecord => ({
      id: ids.newId(),
      bookingId,
      action: h.action,
      at: new Date(h.at),
      by: h.by ?? null,
      data: data ?? null,
      createdAt: new Date(h.at),
    })
    const overlapsLive = (assetId: string, intervals: ReadonlyArray<Interval.Interval>, except: ReadonlySet<string>) => {
      for (const stored of tables.get().bookings.values()) {
        if (stored.row.assetId !== assetId) continue
        for (const s of stored.slots)
          if (!except.has(s.id) && isLive(s.status as BookingStatus) && intervals.some((i) => Interval.overlaps(i, slotInterval(s))))
            return true
      }
      return false
    }
    const record = (source: Omit<MemoryBookingEvent, "event">, list: ReadonlyArray<BookingDomainEvent>) => {
      if (list.length > 0) events.update((all) => [...all, ...list.map((event) => ({ ...source, event }))])
    }
    // The read side's tables (adapters/memory/{meeting-read-store,asset-store}.ts) follow every write.
    const meetings = db.table<MeetingsTable>(MEETINGS_TABLE, () => new Map())
    const calendar = db.table<ReadonlyArray<MemorySlot>>(SLOTS_TABLE, () => [])
    const mirror = (stored: StoredBooking) => {
      const id = stored.row.id
      const previous = meetings.get().get(id)
      meetings.update((all) =>
        new Map(all).set(id, {
          stored,
          histories: tables.get().histories.get(id) ?? [],
          payments: previous?.payments ?? [],
        }),
      )
      calendar.update((all) => [
        ...all.filter((x) => x.bookingId !== id),
        ...stored.slots.map((x) => ({
          bookingId: id,
          assetId: x.assetId,
          start: x.startAt.getTime(),
          end: x.endAt.getTime(),
          status: x.status,
        })),
      ])
    }
    const addHistory = (h: HistoryRecord) =>
      tables.update((t) => ({
        ...t,
        histories: new Map(t.histories).set(h.bookingId, [...(t.histories.get(h.bookingId) ?? []), h]),
      }))

    const insert: InsertBooking = (created, occurrences, extras, schedule) =>
      Effect.gen(function* () {
        yield* requireTx("BookingStore.insert")
        const b = created.booking
        if (isLive(b.status) && overlapsLive(b.assetId, occurrences, new Set()))
          return yield* new SlotTaken({ assetId: b.assetId })
        const row = newBookingRecord(b, extras)
        const slots = newSlotRecords(ids.newId, b, occurrences)
        const stored: StoredBooking = { row, slots }
        const h = history(b.id, created.history, undefined)
        tables.update((t) => ({ ...t, bookings: new Map(t.bookings).set(b.id, stored) }))
        addHistory(h)
        mirror(stored)
        record({ bookingId: b.id, projectId: b.projectId }, created.events)
        if (schedule !== undefined) yield* ticks.replace(b.id, schedule.snapshots, schedule.now, [])
        return { ...stored, histories: [h] }
      })

    return BookingStore.of({
      load: (id) => Effect.sync(() => Option.fromUndefinedOr(tables.get().bookings.get(id))),
      lockForTick: (id) =>
        requireTx("BookingStore.lockForTick").pipe(
          Effect.map(() => {
            const stored = tables.get().bookings.get(id)
            if (stored === undefined) return "gone" as const
            // Units of work run one at a time in memory: nothing else can hold the booking.
            const asset = db.table<AssetTables>(ASSETS_TABLE, emptyAssetTables).get().assets.get(stored.row.assetId)
            return { stored, assetConfig: asset?.rawConfig }
          }),
        ),
      loadForUpdate: (id) =>
        requireTx("BookingStore.loadForUpdate").pipe(
          Effect.map(() =>
            Option.map(Option.fromUndefinedOr(tables.get().bookings.get(id)), (stored) => ({
              stored,
              assetConfig: db.table<AssetTables>(ASSETS_TABLE, emptyAssetTables).get().assets.get(stored.row.assetId)?.rawConfig,
            })),
          ),
        ),
      lockLiveOfAssets: (assetIds, now) =>
        requireTx("BookingStore.lockLiveOfAssets").pipe(
          Effect.map(() => {
            const wanted = new Set(assetIds)
            const assets = db.table<AssetTables>(ASSETS_TABLE, emptyAssetTables).get().assets
            return [...tables.get().bookings.values()]
              .filter(
                (stored) =>
                  wanted.has(stored.row.assetId) &&
                  stored.slots.some((slot) => isLive(slot.status as BookingStatus) && slot.endAt.getTime() > now),
              )
              .sort((a, b) => (a.row.id < b.row.id ? -1 : 1))
              .map((stored) => ({ stored, assetConfig: assets.get(stored.row.assetId)?.rawConfig }))
          }),
        ),
      insert,
      insertAlone: (created, occurrences, extras, schedule) =>
        memoryTransaction(db, insert(created, occurrences, extras, schedule)),
      saveTransition: (stored, slot, result, options) =>
        Effect.gen(function* () {
          yield* requireTx("BookingStore.saveTransition")
          const b = result.booking
          if (isLive(b.status) && overlapsLive(b.assetId, [Interval.make(b.start, b.end)], new Set([slot.id])))
            return yield* new SlotTaken({ assetId: b.assetId })
          const nextSlot: SlotRecord = { ...slot, ...transitionedSlotFields(b) }
          const current = tables.get().bookings.get(stored.row.id)?.row ?? stored.row
          const row: BookingRecord = {
            ...current,
            ...transitionedRowFields(b),
            ...(options.timePeriod === undefined ? {} : { timePeriod: options.timePeriod }),
            ...options.rowPatch,
          }
          const next: StoredBooking = { row, slots: stored.slots.map((s) => (s.id === slot.id ? nextSlot : s)) }
          const data = {
            ...(options.occurrenceEventId === undefined ? {} : { occurrenceEventId: options.occurrenceEventId }),
            ...options.historyData,
          }
          tables.update((t) => ({ ...t, bookings: new Map(t.bookings).set(row.id, next) }))
          addHistory(history(b.id, result.history, Object.keys(data).length > 0 ? data : undefined))
          mirror(next)
          record({ bookingId: b.id, projectId: b.projectId, occurrenceEventId: options.occurrenceEventId }, result.events)
          return next
        }),
      anyLiveOverlap: (assetId, intervals, except) =>
        Effect.sync(() => {
          const skip = new Set<string>()
          if (except !== undefined) for (const s of tables.get().bookings.get(except)?.slots ?? []) skip.add(s.id)
          return overlapsLive(assetId, intervals, skip)
        }),
      unpaidHoldsOf: (organizerUserId) =>
        requireTx("BookingStore.unpaidHoldsOf").pipe(
          Effect.map(() => {
            let n = 0
            for (const { row } of tables.get().bookings.values())
              if (row.organizerUserId === organizerUserId && row.status === "unpaid") n++
            return n
          }),
        ),
      histories: (bookingIds) =>
        Effect.sync(() => {
          const all = tables.get().histories
          return new Map(bookingIds.flatMap((id) => (all.has(id) ? [[id, all.get(id)!] as const] : [])))
        }),
    })
  }),
)
