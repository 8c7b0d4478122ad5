import { Context, Effect, Layer, Result } from "effect"
import { canSeeProject, type Principal } from "../auth/principal.ts"
import { AssetStore, type DeskFilter, type DeskWindows, type RoomFilter } from "../ports/asset-store.ts"
import { Clock } from "../ports/clock.ts"
import { Forbidden, NotFound } from "../shared/errors.ts"
import { assetEntity, kindOfRef, type Asset, type AssetRef, type CalendarSlot } from "./asset.ts"
import type { AssetConfig } from "./asset-config.ts"
import { resolveTimePeriod, searchVerdict, type SearchVerdict, type TimePeriod } from "./asset-rules.ts"
import { priceOf, type ChargeRate } from "./pricing.ts"

/** GET /meeting-rooms, decoded: the store's filters, with the availability window as instants. */
export type RoomSearch = Omit<RoomFilter, "freeDuring"> & {
  readonly window?: { readonly start: number; readonly end: number } | undefined
}

/** One room of a search answer: with a window, its price for it and why it is not bookable then. */
export interface RoomListing {
  readonly asset: Asset
  readonly amount?: number | undefined
  readonly unavailableReason?: string | undefined
}

/** GET /desks, decoded. A window is a span, or a start and a time period of the desk's own day. */
export type DeskSearch = Omit<DeskFilter, "projectIds"> & {
  readonly projectId?: string | undefined
  readonly availability?:
    | { readonly _tag: "Span"; readonly start: number; readonly end: number }
    | { readonly _tag: "Period"; readonly start: number; readonly period: TimePeriod | undefined }
    | undefined
  readonly limit: number
  readonly offset: number
}

export interface AssetDetail {
  readonly asset: Asset
  readonly from: number
  readonly to: number
  readonly calendar: ReadonlyArray<CalendarSlot>
}

const DAY_MS = 86_400_000
const CALENDAR_MAX = 1000
/** The default calendar of an asset detail: now to 30 days ahead. */
const CALENDAR_DAYS = 30

/** An explicit projectId outside the caller's projects is refused (403), never searched. */
const requireScope = (p: Principal, projectId: string): Effect.Effect<void, Forbidden> =>
  canSeeProject(p, projectId)
    ? Effect.void
    : Effect.fail(new Forbidden({ reason: "the projectId is not one of this app's projects" }))

/**
 * Rooms and desks as a caller sees them: searches with availability, detail with the booking
 * calendar. Availability itself is the store's (one indexed query); whether a free asset may be
 * offered for the window, and at what price, is the core's (searchVerdict, priceOf), judged once
 * per distinct config, status and rate (the store shares equal values between assets).
 */
export class Assets extends Context.Service<
  Assets,
  {
    /**
     * With a window: busy rooms are dropped, and so are rooms that cannot be booked for it for
     * a cause the spec has no reason value for; free rooms outside their hours or in a break
     * carry unavailableReason; amount is the window's price.
     */
    readonly searchRooms: (p: Principal, q: RoomSearch) => Effect.Effect<ReadonlyArray<RoomListing>, Forbidden>
    /**
     * With a window: desks with a live booking in it, or that cannot be booked for it, are left
     * out (a time period resolves against each desk's own hours; a desk without that period
     * that day is not free either); the total counts what is left.
     */
    readonly searchDesks: (
      p: Principal,
      q: DeskSearch,
    ) => Effect.Effect<{ readonly desks: ReadonlyArray<Asset>; readonly total: number }, Forbidden>
    /** A room or desk in the caller's projects, with the live slots overlapping [from, to). */
    readonly detail: (
      p: Principal,
      ref: AssetRef,
      range: { readonly from?: number | undefined; readonly to?: number | undefined },
    ) => Effect.Effect<AssetDetail, NotFound>
  }
>()("keyspace/core/Assets") {
  static readonly layer = Layer.effect(
    Assets,
    Effect.gen(function* () {
      const store = yield* AssetStore
      const clock = yield* Clock

      const searchRooms = Effect.fn("Assets.searchRooms")(function* (p: Principal, q: RoomSearch) {
        yield* requireScope(p, q.projectId)
        const { window, ...filter } = q
        const rooms = yield* store.searchRooms({ ...filter, freeDuring: window })
        if (window === undefined) return rooms.map((asset): RoomListing => ({ asset }))
        const { start, end } = window
        const now = clock.now()
        const prices = new Map<ChargeRate, number>()
        const verdicts = new Map<AssetConfig | undefined, Map<string, SearchVerdict>>()
        const out: RoomListing[] = []
        for (const asset of rooms) {
          let byStatus = verdicts.get(asset.config)
          if (byStatus === undefined) verdicts.set(asset.config, (byStatus = new Map()))
          let verdict = byStatus.get(asset.status)
          if (verdict === undefined)
            byStatus.set(
              asset.status,
              (verdict = searchVerdict(asset.config, asset.timeZone, start, end, now, "room", asset.status)),
            )
          if (verdict._tag === "LeftOut") continue
          let amount = prices.get(asset.chargeRate)
          if (amount === undefined) prices.set(asset.chargeRate, (amount = priceOf(asset.chargeRate, start, end, asset.timeZone).total))
          out.push({ asset, amount, unavailableReason: verdict.reason })
        }
        return out
      })

      const searchDesks = Effect.fn("Assets.searchDesks")(function* (p: Principal, q: DeskSearch) {
        if (q.projectId !== undefined) yield* requireScope(p, q.projectId)
        const { projectId, availability, limit, offset, ...rest } = q
        const filter: DeskFilter = { ...rest, projectIds: projectId !== undefined ? [projectId] : p.projectIds }
        if (filter.projectIds.length === 0) return { desks: [], total: 0 }
        let windows: DeskWindows = { _tag: "All" }
        if (availability !== undefined) {
          // Neither an end nor a period: no desk has a window to be free in.
          if (availability._tag === "Period" && availability.period === undefined) return { desks: [], total: 0 }
          const groups = yield* store.deskGroups(filter)
          const now = clock.now()
          const judged: Array<Extract<DeskWindows, { _tag: "FreeIn" }>["windows"][number]> = []
          for (const group of groups) {
            let start = availability.start
            let end = availability._tag === "Span" ? availability.end : availability.start
            if (availability._tag === "Period" && availability.period !== undefined) {
              const r = resolveTimePeriod(group.config, group.timeZone, availability.start, availability.period)
              if (Result.isFailure(r)) continue
              ;({ start, end } = r.success)
            }
            if (searchVerdict(group.config, group.timeZone, start, end, now, "desk", group.status)._tag === "LeftOut") continue
            judged.push({ group, start, end })
          }
          // No desk can be booked for the window (or has that period on the day): none is offered.
          if (judged.length === 0) return { desks: [], total: 0 }
          windows = { _tag: "FreeIn", windows: judged, everyGroup: judged.length === groups.length }
        }
        return yield* store.searchDesks(filter, windows, { limit, offset })
      })

      const detail = Effect.fn("Assets.detail")(function* (
        p: Principal,
        ref: AssetRef,
        range: { readonly from?: number | undefined; readonly to?: number | undefined },
      ) {
        const asset = yield* store.find(ref)
        // Other projects' assets are "not found" (no existence leak).
        if (!canSeeProject(p, asset.projectId)) return yield* new NotFound({ entity: assetEntity(kindOfRef(ref)), id: ref.id })
        const from = range.from ?? clock.now()
        const to = range.to ?? from + CALENDAR_DAYS * DAY_MS
        const calendar = to > from ? yield* store.calendar(asset.id, from, to, CALENDAR_MAX) : []
        return { asset, from, to, calendar }
      })

      return Assets.of({ searchRooms, searchDesks, detail })
    }),
  )
}
