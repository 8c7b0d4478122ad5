import { meetingTimingsOf, type AssetConfig, type ResolvedMeetingConfig } from "./asset-config.ts"
import type { ChargeRate } from "./pricing.ts"
import type { AssetKind } from "./state.ts"

/** Which asset a request names: decoded once at the edge, carried inward. */
export type AssetRef = { readonly _tag: "Room"; readonly id: string } | { readonly _tag: "Desk"; readonly id: string }

export const roomRef = (id: string): AssetRef => ({ _tag: "Room", id })
export const deskRef = (id: string): AssetRef => ({ _tag: "Desk", id })
export const kindOfRef = (ref: AssetRef): AssetKind => (ref._tag === "Room" ? "room" : "desk")
/** The entity name of a missing asset in a NotFound (spec error data). */
export const assetEntity = (kind: AssetKind): string => (kind === "room" ? "meetingRoom" : "desk")

/** The project an asset belongs to, as far as bookings need it. */
export interface Project {
  readonly id: string
  readonly timezone: string
  readonly brandId: string
}

/** Fields every bookable asset has, as stored (times as epoch ms). */
interface AssetFields {
  readonly id: string
  readonly projectId: string
  readonly zoneId: string
  readonly floorId: string
  readonly name: string
  readonly email: string | null
  readonly capacity: number
  readonly status: string
  readonly isPublic: boolean
  readonly facilities: ReadonlyArray<string>
  readonly pictureUrls: ReadonlyArray<string>
  readonly chargeRate: ChargeRate
  /** The config exactly as the manifest stored it (shown as-is); `Asset.config` is decoded. */
  readonly rawConfig: unknown
  readonly createdAt: number
  readonly updatedAt: number
}

export interface Equipments {
  readonly camera: boolean
  readonly display: boolean
  readonly mic: boolean
  readonly projector: boolean
  readonly speaker: boolean
}

export interface RoomRecord extends AssetFields {
  readonly kind: "room"
  readonly type: string
  readonly equipmentsAvailability: Equipments
}

export interface DeskRecord extends AssetFields {
  readonly kind: "desk"
  readonly index: number
}

export type AssetRecord = RoomRecord | DeskRecord

/**
 * An asset with what a booking of it needs in hand: its project (time zone), its decoded
 * config and the resolved meeting config. Cached by the store and replaced, never changed,
 * when the manifest changes it (records are immutable values).
 */
export interface Asset {
  readonly kind: AssetKind
  readonly id: string
  readonly projectId: string
  readonly name: string
  readonly status: string
  readonly chargeRate: ChargeRate
  readonly timeZone: string
  readonly project: Project
  /** Undefined when the stored config does not decode (the manifest validated it on the way in). */
  readonly config: AssetConfig | undefined
  readonly meetingConfig: ResolvedMeetingConfig
  readonly record: AssetRecord
}

/** One live booking slot of an asset's calendar (no titles or people: any caller may read it). */
export interface CalendarSlot {
  readonly bookingId: string
  readonly start: number
  readonly end: number
  readonly status: string
}

/**
 * The timings a change of a booking plans its ticks with: its asset's as the request found
 * them, unless the config stored when the booking's lock was taken (`lockedConfig`) differs (a
 * manifest committed meanwhile and re-planned the booking): then the stored one's.
 */
export const timingsAsLocked = (asset: Asset, lockedConfig: unknown): ResolvedMeetingConfig =>
  lockedConfig === asset.record.rawConfig || JSON.stringify(lockedConfig ?? {}) === JSON.stringify(asset.record.rawConfig ?? {})
    ? asset.meetingConfig
    : meetingTimingsOf(lockedConfig)
