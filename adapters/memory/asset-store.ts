import { Effect, Layer, Result } from "effect"
import { decodeAssetConfig, resolveMeetingConfig } from "../../core/booking/asset-config.ts"
import { assetEntity, kindOfRef, type Asset, type AssetRecord, type CalendarSlot, type Project } from "../../core/booking/asset.ts"
import { isLive, type BookingStatus } from "../../core/booking/state.ts"
import { AssetStore, type DeskFilter, type DeskGroup, type RoomFilter } from "../../core/ports/asset-store.ts"
import { NotFound } from "../../core/shared/errors.ts"
import { MemoryDb } from "./memory-db.ts"

/** What the memory manifest writes: projects and asset records by id. */
export interface AssetTables {
  readonly projects: ReadonlyMap<string, Project>
  readonly assets: ReadonlyMap<string, AssetRecord>
}
export const ASSETS_TABLE = "assets"
export const emptyAssetTables = (): AssetTables => ({ projects: new Map(), assets: new Map() })

/** Booking slots as the memory booking store keeps them (read here for availability and calendars). */
export interface MemorySlot extends CalendarSlot {
  readonly assetId: string
}
export const SLOTS_TABLE = "slots"

const assetOf = (record: AssetRecord, project: Project | undefined): Asset => {
  const r = decodeAssetConfig(record.rawConfig ?? {})
  const config = Result.isSuccess(r) ? r.success : undefined
  const p = project ?? { id: record.projectId, timezone: "UTC", brandId: "" }
  return {
    kind: record.kind,
    id: record.id,
    projectId: record.projectId,
    name: record.name,
    status: record.status,
    chargeRate: record.chargeRate,
    timeZone: p.timezone,
    project: p,
    config,
    meetingConfig: resolveMeetingConfig(config),
    record,
  }
}

// As the PostgreSQL store: any case, either Unicode form.
const contains = (text: string | null, part: string) =>
  (text ?? "").normalize("NFC").toLowerCase().includes(part.normalize("NFC").toLowerCase())
const inLocation = (r: AssetRecord, id: string | undefined) => id === undefined || r.zoneId === id || r.floorId === id
const byText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0)

/** The memory profile's assets: linear scans (model tests hold a handful of assets). */
export const AssetStoreMemory = Layer.effect(
  AssetStore,
  Effect.gen(function* () {
    const db = yield* MemoryDb
    const tables = db.table<AssetTables>(ASSETS_TABLE, emptyAssetTables)
    const slots = db.table<ReadonlyArray<MemorySlot>>(SLOTS_TABLE, () => [])
    const busy = (assetId: string, start: number, end: number) =>
      slots.get().some((s) => s.assetId === assetId && isLive(s.status as BookingStatus) && s.start < end && s.end > start)
    const all = () => [...tables.get().assets.values()].map((r) => assetOf(r, tables.get().projects.get(r.projectId)))

    const deskMatches = (f: DeskFilter) => (a: Asset) => {
      const r = a.record
      const brandOk = f.brandId === undefined || tables.get().projects.get(r.projectId)?.brandId === f.brandId
      return (
        r.kind === "desk" &&
        f.projectIds.includes(r.projectId) &&
        brandOk &&
        (f.zoneId === undefined || r.zoneId === f.zoneId) &&
        (f.floorId === undefined || r.floorId === f.floorId) &&
        inLocation(r, f.locationId) &&
        (f.ids === undefined || f.ids.includes(r.id)) &&
        (f.name === undefined || contains(r.name, f.name)) &&
        (f.email === undefined || (r.email ?? "").toLowerCase() === f.email.toLowerCase()) &&
        (f.statuses === undefined || f.statuses.length === 0 || f.statuses.includes(r.status))
      )
    }

    return AssetStore.of({
      find: (ref) =>
        Effect.suspend(() => {
          const record = tables.get().assets.get(ref.id)
          return record === undefined || record.kind !== kindOfRef(ref)
            ? Effect.fail(new NotFound({ entity: assetEntity(kindOfRef(ref)), id: ref.id }))
            : Effect.succeed(assetOf(record, tables.get().projects.get(record.projectId)))
        }),
      projects: (ids) =>
        Effect.sync(() => {
          const { projects } = tables.get()
          return new Map(ids.flatMap((id) => (projects.has(id) ? [[id, projects.get(id)!] as const] : [])))
        }),
      roomNames: (ids) =>
        Effect.sync(() => {
          const { assets } = tables.get()
          return new Map(
            ids.flatMap((id) => {
              const r = assets.get(id)
              return r?.kind === "room" ? [[id, r.name] as const] : []
            }),
          )
        }),
      searchRooms: (f: RoomFilter) =>
        Effect.sync(() =>
          all()
            .filter((a) => {
              const r = a.record
              return (
                r.kind === "room" &&
                r.projectId === f.projectId &&
                (f.zoneId === undefined || r.zoneId === f.zoneId) &&
                (f.floorId === undefined || r.floorId === f.floorId) &&
                inLocation(r, f.locationId) &&
                (f.ids === undefined || f.ids.includes(r.id)) &&
                (f.name === undefined || contains(r.name, f.name)) &&
                (f.status === undefined || f.status.length === 0 || f.status.includes(r.status)) &&
                (f.type === undefined || r.type === f.type) &&
                (f.minCapacity === undefined || r.capacity >= f.minCapacity) &&
                (f.freeDuring === undefined || !busy(r.id, f.freeDuring.start, f.freeDuring.end))
              )
            })
            .sort((a, b) => byText(a.name, b.name) || byText(a.id, b.id)),
        ),
      deskGroups: (f) =>
        Effect.sync(() => {
          const seen = new Map<string, DeskGroup>()
          for (const a of all().filter(deskMatches(f))) {
            const key = JSON.stringify([a.projectId, a.record.rawConfig, a.status])
            if (!seen.has(key))
              seen.set(key, { projectId: a.projectId, timeZone: a.timeZone, rawConfig: a.record.rawConfig, config: a.config, status: a.status })
          }
          return [...seen.values()]
        }),
      searchDesks: (f, windows, page) =>
        Effect.sync(() => {
          const windowOf = (a: Asset) =>
            windows._tag === "All"
              ? undefined
              : windows.windows.find(
                  (w) =>
                    w.group.projectId === a.projectId &&
                    JSON.stringify(w.group.rawConfig) === JSON.stringify(a.record.rawConfig) &&
                    w.group.status === a.status,
                )
          const matching = all()
            .filter(deskMatches(f))
            .filter((a) => {
              if (windows._tag === "All") return true
              const w = windowOf(a)
              return w !== undefined && (w.end <= w.start || !busy(a.id, w.start, w.end))
            })
            .sort((a, b) => {
              const ia = a.record.kind === "desk" ? a.record.index : 0
              const ib = b.record.kind === "desk" ? b.record.index : 0
              return ia - ib || byText(a.name, b.name) || byText(a.id, b.id)
            })
          return { desks: matching.slice(page.offset, page.offset + page.limit), total: matching.length }
        }),
      calendar: (assetId, from, to, limit) =>
        Effect.sync(() =>
          slots
            .get()
            .filter((s) => s.assetId === assetId && isLive(s.status as BookingStatus) && s.start < to && s.end > from)
            .sort((a, b) => a.start - b.start)
            .slice(0, limit)
            .map(({ bookingId, start, end, status }) => ({ bookingId, start, end, status })),
        ),
    })
  }),
)
