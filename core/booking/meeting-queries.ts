import { Context, Effect, Layer, Option } from "effect"
import { canSeeProject, type Principal } from "../auth/principal.ts"
import { AssetStore } from "../ports/asset-store.ts"
import { Clock } from "../ports/clock.ts"
import { MeetingReadStore, type MeetingFilter } from "../ports/meeting-read-store.ts"
import { Forbidden, NotFound, ValidationFailed } from "../shared/errors.ts"
import {
  currentSlotOf,
  showsPin,
  type HistoryRecord,
  type MeetingRecord,
  type PaymentRecord,
  type SlotRecord,
} from "./meeting-records.ts"

/** Everything a Meeting's JSON is made of, in hand (the view does no I/O). */
export interface MeetingShown {
  readonly booking: MeetingRecord
  /** The occurrence shown: a master's current one, or the listed row's own. */
  readonly slot: SlotRecord
  readonly timeZone: string
  /** meetingRoomName of a room booking. */
  readonly assetName?: string | undefined
  readonly histories: ReadonlyArray<HistoryRecord>
  readonly payments: ReadonlyArray<PaymentRecord>
  readonly showPin: boolean
  /** A listing row of a series: carries seriesMasterId and occurrenceEventId. */
  readonly expanded: boolean
}

/** GET /meetings, decoded. */
export type MeetingQuery = Omit<MeetingFilter, "projectIds"> & { readonly projectId?: string | undefined }

/** The read use cases of bookings: one meeting, and the listing of a window. */
export class Meetings extends Context.Service<
  Meetings,
  {
    /** A booking inside the caller's projects; any other id is "not found" (no existence leak). */
    readonly get: (p: Principal, id: string) => Effect.Effect<MeetingShown, NotFound>
    /** One row per booking or per occurrence overlapping [from, to). */
    readonly list: (
      p: Principal,
      q: MeetingQuery,
    ) => Effect.Effect<{ readonly data: ReadonlyArray<MeetingShown>; readonly total: number }, ValidationFailed | Forbidden>
  }
>()("keyspace/core/Meetings") {
  static readonly layer = Layer.effect(
    Meetings,
    Effect.gen(function* () {
      const store = yield* MeetingReadStore
      const assets = yield* AssetStore
      const clock = yield* Clock

      const get = Effect.fn("Meetings.get")(function* (p: Principal, id: string) {
        const found = yield* store.get(id)
        if (Option.isNone(found) || !canSeeProject(p, found.value.stored.row.projectId))
          return yield* new NotFound({ entity: "meeting", id })
        const { stored, histories, payments } = found.value
        const row = stored.row
        const [projects, names] = yield* Effect.all([
          assets.projects([row.projectId]),
          row.assetKind === "room" ? assets.roomNames([row.assetId]) : Effect.succeed(new Map<string, string>()),
        ])
        const timeZone = projects.get(row.projectId)?.timezone ?? "UTC"
        return {
          booking: row,
          slot: currentSlotOf(stored, timeZone, clock.now()),
          timeZone,
          assetName: names.get(row.assetId),
          histories,
          payments,
          showPin: showsPin(p, row),
          expanded: false,
        } satisfies MeetingShown
      })

      const list = Effect.fn("Meetings.list")(function* (p: Principal, q: MeetingQuery) {
        if (q.to < q.from) return yield* new ValidationFailed({ messages: ["to: must not be before from"] })
        if (q.projectId !== undefined && !canSeeProject(p, q.projectId))
          return yield* new Forbidden({ reason: "the projectId is not one of this app's projects" })
        const { projectId, ...filter } = q
        const { rows, total } = yield* store.list({ ...filter, projectIds: projectId !== undefined ? [projectId] : p.projectIds })
        const [projects, names] = yield* Effect.all([
          assets.projects(rows.map((r) => r.booking.projectId)),
          assets.roomNames(rows.filter((r) => r.booking.assetKind === "room").map((r) => r.booking.assetId)),
        ])
        const data = rows.map(
          ({ booking, slot, histories, payments }): MeetingShown => ({
            booking,
            slot,
            timeZone: projects.get(booking.projectId)?.timezone ?? "UTC",
            assetName: names.get(booking.assetId),
            histories,
            payments,
            showPin: showsPin(p, booking),
            expanded: true,
          }),
        )
        return { data, total }
      })

      return Meetings.of({ get, list })
    }),
  )
}
