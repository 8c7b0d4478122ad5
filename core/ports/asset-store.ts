import { Context, type Effect } from "effect"
import type { Asset, AssetRef, CalendarSlot, Project } from "../booking/asset.ts"
import type { NotFound } from "../shared/errors.ts"

/** Filters of GET /meeting-rooms, all applied by the store. */
export interface RoomFilter {
  readonly projectId: string
  readonly zoneId?: string | undefined
  readonly floorId?: string | undefined
  /** Spec locationId has no model of its own: it matches the zone or the floor. */
  readonly locationId?: string | undefined
  readonly ids?: ReadonlyArray<string> | undefined
  /** Case-insensitive substring of the name. */
  readonly name?: string | undefined
  readonly status?: ReadonlyArray<string> | undefined
  readonly type?: string | undefined
  readonly minCapacity?: number | undefined
  /** Only rooms with no live booking overlapping [start, end). */
  readonly freeDuring?: { readonly start: number; readonly end: number } | undefined
}

/** Filters of GET /desks (the availability window is judged by the use case, see DeskWindows). */
export interface DeskFilter {
  readonly projectIds: ReadonlyArray<string>
  readonly brandId?: string | undefined
  readonly zoneId?: string | undefined
  readonly floorId?: string | undefined
  readonly locationId?: string | undefined
  readonly ids?: ReadonlyArray<string> | undefined
  readonly name?: string | undefined
  /** Case-insensitive whole email. */
  readonly email?: string | undefined
  readonly statuses?: ReadonlyArray<string> | undefined
}

/**
 * Desks sharing (project, stored config, status) share their bookable window: the use case
 * judges each group once. `config` is the group's representative (decoded) config.
 */
export interface DeskGroup {
  readonly projectId: string
  readonly timeZone: string
  readonly rawConfig: unknown
  readonly config: Asset["config"]
  readonly status: string
}

/** Which desks a page may hold: all, or only those free in their group's window. */
export type DeskWindows =
  | { readonly _tag: "All" }
  | {
      readonly _tag: "FreeIn"
      readonly windows: ReadonlyArray<{ readonly group: DeskGroup; readonly start: number; readonly end: number }>
      /** Every group of the filter got a window (none was left out by the rules). */
      readonly everyGroup: boolean
    }

/**
 * Rooms and desks with their projects. Records are cached by the adapter and invalidated by
 * any committed manifest change on any process (cache epoch), so `find` on the create path
 * costs no round trip when warm.
 */
export class AssetStore extends Context.Service<
  AssetStore,
  {
    /** A room or desk with its project, decoded config and resolved meeting config. */
    readonly find: (ref: AssetRef) => Effect.Effect<Asset, NotFound>
    readonly projects: (ids: ReadonlyArray<string>) => Effect.Effect<ReadonlyMap<string, Project>>
    /** Names of rooms (meetingRoomName of a Meeting); unknown ids are left out. */
    readonly roomNames: (ids: ReadonlyArray<string>) => Effect.Effect<ReadonlyMap<string, string>>
    /** Rooms matching the filter, ordered by name then id. */
    readonly searchRooms: (filter: RoomFilter) => Effect.Effect<ReadonlyArray<Asset>>
    readonly deskGroups: (filter: DeskFilter) => Effect.Effect<ReadonlyArray<DeskGroup>>
    /** One page of desks ordered by index, name, id, and how many match in all. */
    readonly searchDesks: (
      filter: DeskFilter,
      windows: DeskWindows,
      page: { readonly limit: number; readonly offset: number },
    ) => Effect.Effect<{ readonly desks: ReadonlyArray<Asset>; readonly total: number }>
    /** Live slots of the asset overlapping [from, to), in start order, at most `limit`. */
    readonly calendar: (
      assetId: string,
      from: number,
      to: number,
      limit: number,
    ) => Effect.Effect<ReadonlyArray<CalendarSlot>>
  }
>()("keyspace/ports/AssetStore") {}
