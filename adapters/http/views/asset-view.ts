import type { Context } from "hono"
import type { ContentfulStatusCode } from "hono/utils/http-status"
import type { Asset, AssetRecord, Project } from "../../../core/booking/asset.ts"
import type { AssetDetail, RoomListing } from "../../../core/booking/assets.ts"
import { formatOffsetDateTime } from "../../../core/shared/local-time.ts"
import { SUCCESS_CODE, type PageMeta } from "../envelope.ts"

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

/**
 * The last answers of repeated searches: when a search (same key) lists the very same records
 * with the same amounts and reasons, its bytes are sent again instead of assembled and encoded
 * (the bench's and a booking screen's polling case). Compared element by element, so always exact.
 */
const LAST_MAX = 16
const lastRooms = new Map<string, { readonly rooms: ReadonlyArray<RoomListing>; readonly bytes: Uint8Array }>()
const sameRooms = (a: ReadonlyArray<RoomListing>, b: ReadonlyArray<RoomListing>) => {
  if (a.length !== b.length) return false
  for (let i = 0; i < a.length; i++) {
    const x = a[i]!
    const y = b[i]!
    if (x.asset !== y.asset || x.amount !== y.amount || x.unavailableReason !== y.unavailableReason) return false
  }
  return true
}
const encoder = new TextEncoder()

/** A room search's whole envelope as bytes, reused while the same key lists the same rooms. */
export const roomListingBytes = (key: string, rooms: ReadonlyArray<RoomListing>): Uint8Array => {
  const held = lastRooms.get(key)
  if (held !== undefined && sameRooms(held.rooms, rooms)) return held.bytes
  const bytes = encoder.encode(envelopeText(roomListingJson(rooms)))
  if (lastRooms.size >= LAST_MAX) lastRooms.delete(lastRooms.keys().next().value!)
  lastRooms.set(key, { rooms, bytes })
  return bytes
}

/** The same for a desk page: the same desk records in the same order, and the same meta. */
const lastDesks = new Map<string, { readonly desks: ReadonlyArray<Asset>; readonly meta: PageMeta; readonly bytes: Uint8Array }>()
const sameMeta = (a: PageMeta, b: PageMeta) => a.limit === b.limit && a.offset === b.offset && a.total === b.total
const sameDesks = (a: ReadonlyArray<Asset>, b: ReadonlyArray<Asset>) => {
  if (a.length !== b.length) return false
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false
  return true
}

/** A desk page's whole envelope as bytes, reused while the same key lists the same page. */
export const deskListingBytes = (key: string, desks: ReadonlyArray<Asset>, meta: PageMeta): Uint8Array => {
  const held = lastDesks.get(key)
  if (held !== undefined && sameMeta(held.meta, meta) && sameDesks(held.desks, desks)) return held.bytes
  const bytes = encoder.encode(envelopeText(deskListingJson(desks), meta))
  if (lastDesks.size >= LAST_MAX) lastDesks.delete(lastDesks.keys().next().value!)
  lastDesks.set(key, { desks, meta, bytes })
  return bytes
}

const envelopeText = (dataJson: string, meta?: PageMeta) =>
  `{"code":"${SUCCESS_CODE}","success":true,"message":"OK","data":${dataJson}${meta ? `,"meta":${JSON.stringify(meta)}` : ""}}`

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

/**
 * The success envelope around data that is already JSON text: the bytes `ok()` would send for
 * the parsed value, without building and serialising the objects again.
 */
export const okJsonText = (
  c: Context,
  dataJson: string,
  options: { status?: ContentfulStatusCode; meta?: PageMeta } = {},
): Response => c.body(envelopeText(dataJson, options.meta), options.status ?? 200, { "Content-Type": "application/json" })

/** A whole success envelope already encoded (roomListingBytes). */
export const okJsonBytes = (c: Context, bytes: Uint8Array): Response =>
  c.body(bytes as Uint8Array<ArrayBuffer>, 200, { "Content-Type": "application/json" })
