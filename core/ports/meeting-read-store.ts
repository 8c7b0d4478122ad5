import { Context, type Effect, type Option } from "effect"
import type { HistoryRecord, MeetingRecord, PaymentRecord, SlotRecord, StoredMeeting } from "../booking/meeting-records.ts"
import type { AssetKind } from "../booking/state.ts"

/** GET /meetings filters (decoded), all applied by the store. */
export interface MeetingFilter {
  readonly projectIds: ReadonlyArray<string>
  readonly from: number
  readonly to: number
  /** Asset filters are a union: a row matches when its asset is any of the given ones. */
  readonly roomIds?: ReadonlyArray<string> | undefined
  readonly deskIds?: ReadonlyArray<string> | undefined
  readonly organizerId?: string | undefined
  readonly organizerEmails?: ReadonlyArray<string> | undefined
  readonly attendeeEmails?: ReadonlyArray<string> | undefined
  readonly statuses?: ReadonlyArray<string> | undefined
  readonly assetType?: AssetKind | undefined
  readonly limit: number
  readonly offset: number
}

/** A booking with what its Meeting shows: its histories and payments, oldest first. */
export interface MeetingWithRecords {
  readonly stored: StoredMeeting
  readonly histories: ReadonlyArray<HistoryRecord>
  readonly payments: ReadonlyArray<PaymentRecord>
}

/** One row of a listing: a booking and one of its occurrences overlapping the window. */
export interface MeetingListRow {
  readonly booking: MeetingRecord
  readonly slot: SlotRecord
  readonly histories: ReadonlyArray<HistoryRecord>
  readonly payments: ReadonlyArray<PaymentRecord>
}

/**
 * The read side of bookings: what GET /meetings and GET /meetings/{id} show, each read in as
 * few round trips as the store can (histories and payments come with the rows).
 */
export class MeetingReadStore extends Context.Service<
  MeetingReadStore,
  {
    readonly get: (id: string) => Effect.Effect<Option.Option<MeetingWithRecords>>
    /** One row per occupied interval overlapping [from, to), in start order, with the total. */
    readonly list: (
      filter: MeetingFilter,
    ) => Effect.Effect<{ readonly rows: ReadonlyArray<MeetingListRow>; readonly total: number }>
  }
>()("keyspace/ports/MeetingReadStore") {}
