import type { Asset, AssetRecord, Project } from "../../../core/booking/asset.ts"
import type { AssetDetail, RoomListing } from "../../../core/booking/assets.ts"
import { formatOffsetDateTime } from "../../../core/shared/local-time.ts"
import { repeatedAnswers, sameEach, type PageMeta } from "../envelope.ts"

/**
 * MeetingRoom and Desk JSON. A 2,000-room answer is assembled from each record's static JSON,
 * prepared once per record: records are immutable and replaced when the manifest changes them
 * (the store's epoch-invalidated cache), so a fragment is valid while its record is the one held.
 */

const base = (r: AssetRecord, project: Project) => ({
  _id: r.id,
  name: r.name,
  email: r.email ?? "",
  capacity: r.capacity,
  status: r.status,
  brandId: project.brandId,
  projectId: r.projectId,
  zoneId: r.zoneId,
  floorId: r.floorId,
  isPublic: r.isPublic,
  facilities: r.facilities,
  pictureUrls: r.pictureUrls,
})

const iso = (ms: number) => new Date(ms).toISOString()

/** A room as an object (detail); the same fields in the same order as the assembled listing. */
export const roomView = (a: Asset, extra: { amount?: number | undefined; unavailableReason?: string | undefined } = {}) => {
  const r = a.record as Extract<AssetRecord, { kind: "room" }>
  return {
    ...base(r, a.project),
    type: r.type,
    equipmentsAvailability: r.equipmentsAvailability,
    chargeRate: { ...r.chargeRate, ...(extra.amount === undefined ? {} : { amount: extra.amount }) },
    config: r.rawConfig,
    ...(extra.unavailableReason === undefined ? {} : { unavailableReason: extra.unavailableReason }),
    createdAt: iso(r.createdAt),
    updatedAt: iso(r.updatedAt),
  }
}

export const deskView = (a: Asset) => {
  const r = a.record as Extract<AssetRecord, { kind: "desk" }>
  return {
    ...base(r, a.project),
    index: r.index,
    chargeRate: r.chargeRate,
    config: r.rawConfig,
    createdAt: iso(r.createdAt),
    updatedAt: iso(r.updatedAt),
  }
}

/** A room's JSON around its chargeRate and unavailableReason, the only per-window parts. */
interface RoomFragments {
  readonly record: AssetRecord
  readonly project: Project
  /** `{..."equipmentsAvailability":{...},"chargeRate":` */
  readonly head: string
  /** `,"config":{...}` */
  readonly config: string
  /** `,"createdAt":"...","updatedAt":"..."}` */
  readonly tail: string
  /** The whole JSON without a window (no amount, no reason). */
  readonly plain: string
}

const FRAGMENTS_MAX = 50_000
const roomFragments = new Map<string, RoomFragments>()
const deskJson = new Map<string, { readonly record: AssetRecord; readonly project: Project; readonly json: string }>()

const fragmentsOf = (a: Asset): RoomFragments => {
  const held = roomFragments.get(a.id)
  if (held !== undefined && held.record === a.record && held.project === a.project) return held
  const plain = JSON.stringify(roomView(a))
  const r = a.record as Extract<AssetRecord, { kind: "room" }>
  const head = JSON.stringify({ ...base(r, a.project), type: r.type, equipmentsAvailability: r.equipmentsAvailability })
  const made: RoomFragments = {
    record: a.record,
    project: a.project,
    head: `${head.slice(0, -1)},"chargeRate":`,
    config: `,"config":${JSON.stringify(r.rawConfig)}`,
    tail: `,"createdAt":${JSON.stringify(iso(r.createdAt))},"updatedAt":${JSON.stringify(iso(r.updatedAt))}}`,
    plain,
  }
  if (roomFragments.size >= FRAGMENTS_MAX) roomFragments.clear()
  roomFragments.set(a.id, made)
  return made
}

const deskJsonOf = (a: Asset): string => {
  const held = deskJson.get(a.id)
  if (held !== undefined && held.record === a.record && held.project === a.project) return held.json
  const json = JSON.stringify(deskView(a))
  if (deskJson.size >= FRAGMENTS_MAX) deskJson.clear()
  deskJson.set(a.id, { record: a.record, project: a.project, json })
  return json
}

/** Repeated searches (same key, the very same records, amounts and reasons) resend their bytes. */
const lastRooms = repeatedAnswers(
  sameEach<RoomListing>((x, y) => x.asset === y.asset && x.amount === y.amount && x.unavailableReason === y.unavailableReason),
)
const lastDesks = repeatedAnswers(sameEach<Asset>((x, y) => x === y))

/** A room search's whole envelope as bytes, reused while the same key lists the same rooms. */
export const roomListingBytes = (key: string, rooms: ReadonlyArray<RoomListing>): Uint8Array =>
  lastRooms.bytes(key, rooms, roomListingJson)

/** A desk page's whole envelope as bytes, reused while the same key lists the same page. */
export const deskListingBytes = (key: string, desks: ReadonlyArray<Asset>, meta: PageMeta): Uint8Array =>
  lastDesks.bytes(key, desks, deskListingJson, meta)

/** The rooms of a search as a JSON array text; per room only the rate (with amount) and reason are written. */
export const roomListingJson = (rooms: ReadonlyArray<RoomListing>): string => {
  const rates = new Map<unknown, Map<number | undefined, string>>()
  const parts: string[] = new Array<string>(rooms.length)
  for (let i = 0; i < rooms.length; i++) {
    const { asset, amount, unavailableReason } = rooms[i]!
    const f = fragmentsOf(asset)
    if (amount === undefined && unavailableReason === undefined) {
      parts[i] = f.plain
      continue
    }
    let byAmount = rates.get(asset.chargeRate)
    if (byAmount === undefined) rates.set(asset.chargeRate, (byAmount = new Map()))
    let rate = byAmount.get(amount)
    if (rate === undefined)
      byAmount.set(amount, (rate = JSON.stringify({ ...asset.chargeRate, ...(amount === undefined ? {} : { amount }) })))
    parts[i] =
      f.head + rate + f.config + (unavailableReason === undefined ? "" : `,"unavailableReason":${JSON.stringify(unavailableReason)}`) + f.tail
  }
  return `[${parts.join(",")}]`
}

export const deskListingJson = (desks: ReadonlyArray<Asset>): string => `[${desks.map(deskJsonOf).join(",")}]`

/** The detail of GET /meeting-rooms/{id} and GET /desks/{id}: the asset with its booking calendar. */
export const assetDetailView = (d: AssetDetail) => {
  const tz = d.asset.timeZone
  return {
    ...(d.asset.kind === "room" ? roomView(d.asset) : deskView(d.asset)),
    calendar: {
      from: formatOffsetDateTime(d.from, tz),
      to: formatOffsetDateTime(Math.max(d.from, d.to), tz),
      bookings: d.calendar.map((s) => ({
        meetingId: s.bookingId,
        startDateTime: formatOffsetDateTime(s.start, tz),
        endDateTime: formatOffsetDateTime(s.end, tz),
        status: s.status,
      })),
    },
  }
}
