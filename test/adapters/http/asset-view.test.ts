import { describe, expect, it } from "vitest"
import type { Asset, AssetRecord } from "../../../core/booking/asset.ts"
import { resolveMeetingConfig } from "../../../core/booking/asset-config.ts"
import { deskListingJson, deskView, roomListingBytes, roomListingJson, roomView } from "../../../adapters/http/views/asset-view.ts"

const project = { id: "p1", timezone: "Asia/Bangkok", brandId: "b1" }
const rate = { perHour: 100, perDay: 500 }
const asset = (record: AssetRecord): Asset => ({
  kind: record.kind,
  id: record.id,
  projectId: record.projectId,
  name: record.name,
  status: record.status,
  chargeRate: record.chargeRate,
  timeZone: project.timezone,
  project,
  config: undefined,
  meetingConfig: resolveMeetingConfig(undefined),
  record,
})
const common = {
  projectId: "p1", zoneId: "z1", floorId: "f1", email: null, capacity: 4, status: "active", isPublic: true,
  facilities: ["wifi"], pictureUrls: [], chargeRate: rate, rawConfig: { start: "08:00:00", end: "18:00:00" },
  createdAt: Date.UTC(2030, 0, 1), updatedAt: Date.UTC(2030, 0, 2, 3, 4, 5, 6),
}
const room = (id: string, name: string) =>
  asset({ ...common, kind: "room", id, name: `${name} "quoted" ไทย`, type: "normal", equipmentsAvailability: { camera: true, display: false, mic: true, projector: false, speaker: true } })

describe("assembled asset listings", () => {
  it("a room listing is byte-for-byte the JSON of the room objects, with and without a window", () => {
    const rooms = [room("r1", "A"), room("r2", "B"), room("r3", "C")]
    const plain = rooms.map((a) => ({ asset: a }))
    expect(roomListingJson(plain)).toBe(JSON.stringify(plain.map((l) => roomView(l.asset))))
    const windowed = [
      { asset: rooms[0]!, amount: 150.5 },
      { asset: rooms[1]!, amount: 150.5, unavailableReason: "BREAK_TIME" },
      { asset: rooms[2]!, amount: 0, unavailableReason: "OPERATING_HOURS" },
    ]
    expect(roomListingJson(windowed)).toBe(JSON.stringify(windowed.map((l) => roomView(l.asset, l))))
    // Twice: the second answer comes from the prepared fragments.
    expect(roomListingJson(windowed)).toBe(JSON.stringify(windowed.map((l) => roomView(l.asset, l))))
  })
  it("a repeated search's bytes are the envelope ok() sends, and change when a listed value changes", () => {
    const rooms = [room("r1", "A"), room("r2", "B")]
    const listing = rooms.map((asset) => ({ asset, amount: 100 }))
    const envelope = (data: unknown) => JSON.stringify({ code: "SV000", success: true, message: "OK", data })
    const first = roomListingBytes("k", listing)
    expect(new TextDecoder().decode(first)).toBe(envelope(listing.map((l) => roomView(l.asset, l))))
    expect(roomListingBytes("k", rooms.map((asset) => ({ asset, amount: 100 })))).toBe(first)
    const changed = [listing[0]!, { asset: rooms[1]!, amount: 100, unavailableReason: "BREAK_TIME" }]
    expect(new TextDecoder().decode(roomListingBytes("k", changed))).toBe(envelope(changed.map((l) => roomView(l.asset, l))))
  })
  it("a record replaced by the manifest is rendered anew, not from its old fragments", () => {
    const before = room("r9", "Old")
    roomListingJson([{ asset: before }])
    const after = asset({ ...before.record, name: "New" } as AssetRecord)
    expect(JSON.parse(roomListingJson([{ asset: after }]))[0].name).toBe("New")
  })
  it("a desk listing is the JSON of the desk objects", () => {
    const desks = [asset({ ...common, kind: "desk", id: "d1", name: "Desk 1", index: 3 })]
    expect(deskListingJson(desks)).toBe(JSON.stringify(desks.map(deskView)))
  })
})
