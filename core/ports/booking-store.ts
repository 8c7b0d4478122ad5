import { Context, type Effect, type Option } from "effect"
import type { SlotTaken } from "../booking/errors.ts"
import type { BookingExtras, HistoryRecord, SlotRecord, StoredBooking } from "../booking/meeting.ts"
import type { Occurrence } from "../booking/recurrence.ts"
import type { Transitioned } from "../booking/transitions.ts"
import type { Interval } from "../shared/interval.ts"
import type { LifecycleSnapshot } from "./lifecycle-scheduler.ts"

/** What a write of one occurrence records besides the core transition. */
export interface SaveOptions {
  readonly historyData?: Record<string, unknown> | undefined
  readonly occurrenceEventId?: string | undefined
  /** A desk's period: set (a name), cleared (null) or kept (undefined). */
  readonly timePeriod?: string | null | undefined
  /** Payment hand-off fields an update may change. */
  readonly rowPatch?: {
    readonly paymentChannel?: string | null
    readonly discountCode?: string | null
    readonly frontendRedirectUrl?: string | null
  }
}

/** A new booking's first lifecycle ticks (TickStore rows), written with it. */
export interface FirstTicks {
  readonly snapshots: ReadonlyArray<LifecycleSnapshot>
  readonly now: number
}

/** A booking just written, with its create history. */
export type InsertedBooking = StoredBooking & { readonly histories: ReadonlyArray<HistoryRecord> }

/** Writing a new booking: the record, its slots, the create history, its events and first ticks. */
export type InsertBooking = (
  created: Transitioned,
  occurrences: ReadonlyArray<Occurrence>,
  extras: BookingExtras,
  ticks?: FirstTicks | undefined,
) => Effect.Effect<InsertedBooking, SlotTaken>

/** A booking under its row lock, with its room's or desk's stored config (undecoded). */
export interface LockedBooking {
  readonly stored: StoredBooking
  readonly assetConfig: unknown
}

/**
 * Where bookings, their slots, histories and booking events are kept. Slot writes are the
 * double-booking guard: two live slots of one asset never overlap (SlotTaken), whatever the
 * use cases read before. Methods marked "in tx" die outside a UnitOfWork transaction.
 */
export class BookingStore extends Context.Service<
  BookingStore,
  {
    readonly load: (id: string) => Effect.Effect<Option.Option<StoredBooking>>
    /**
     * In tx, for a scheduler tick: the booking under a row lock taken with SKIP LOCKED ("busy"
     * when a user transaction holds it: the tick steps aside instead of deadlocking), "gone" when
     * it does not exist; with the stored config of its room or desk (undecoded).
     */
    readonly lockForTick: (
      id: string,
    ) => Effect.Effect<"busy" | "gone" | LockedBooking>
    /**
     * In tx: the booking under a row lock, so concurrent changes of it serialize; with its
     * asset's stored config as read once the lock is held (a manifest that changed it while
     * the lock was waited for is seen: its re-plan of the booking's ticks is not undone).
     */
    readonly loadForUpdate: (id: string) => Effect.Effect<Option.Option<LockedBooking>>
    /**
     * In tx: the bookings of these assets with a live occurrence not yet ended at `now`, each
     * under a row lock (waited for, in id order), with its asset's stored config (undecoded).
     */
    readonly lockLiveOfAssets: (
      assetIds: ReadonlyArray<string>,
      now: number,
    ) => Effect.Effect<ReadonlyArray<LockedBooking>>
    /**
     * In tx: the booking, its slots, the create history and its events; an overlap is SlotTaken.
     * `ticks`: the new booking's first lifecycle ticks (TickStore rows), written with it in the
     * same round trip on PostgreSQL (a free create is then one batch).
     */
    readonly insert: InsertBooking
    /**
     * `insert` as a unit of work of its own (joins an enclosing one): for a create that writes
     * nothing else (a free booking). On PostgreSQL one autocommit statement: no BEGIN and
     * COMMIT round trips; the same lock, constraint and SlotTaken.
     */
    readonly insertAlone: InsertBooking
    /** In tx: one occurrence's transition (slot, booking record, history, events); an overlap is SlotTaken. */
    readonly saveTransition: (
      stored: StoredBooking,
      slot: SlotRecord,
      result: Transitioned,
      options: SaveOptions,
    ) => Effect.Effect<StoredBooking, SlotTaken>
    /** Whether a live slot of the asset (of another booking than `except`) overlaps one of the intervals. */
    readonly anyLiveOverlap: (
      assetId: string,
      intervals: ReadonlyArray<Interval>,
      except?: string | undefined,
    ) => Effect.Effect<boolean>
    /** In tx: the organizer's unpaid bookings, counted under a per-organizer lock (the hold cap cannot be raced). */
    readonly unpaidHoldsOf: (organizerUserId: string) => Effect.Effect<number>
    /** Histories of the bookings, oldest first. */
    readonly histories: (
      ids: ReadonlyArray<string>,
    ) => Effect.Effect<ReadonlyMap<string, ReadonlyArray<HistoryRecord>>>
  }
>()("keyspace/ports/BookingStore") {}
