import { Result } from "effect"
import { describe, expect, it } from "vitest"
import {
  deriveRoles,
  rebindUnit,
  resolveUnitRoom,
  type UnitOccupancy,
  type UnitResident,
  type UnitRoom,
} from "../../../core/member/unit-binding.ts"

const room = (roomId: string, addressNo: string, zoneId = "z1"): UnitRoom => ({
  roomId,
  addressNo,
  zoneId,
  groupId: `g-${roomId}`,
})
const R1 = room("r1", "12/3A", "z1")
const R2 = room("r2", "12/3A", "z2")
const R3 = room("r3", "99", "z1")
const resident = (memberId: string, boundAt: number, role: UnitResident["role"] = "participant") =>
  ({ memberId, boundAt, role }) satisfies UnitResident
const occ = (r: UnitRoom, residents: Array<UnitResident> = []): UnitOccupancy => ({
  room: r,
  residents,
})
const roles = (o: UnitOccupancy | undefined) =>
  Object.fromEntries((o?.residents ?? []).map((r) => [r.memberId, r.role]))

describe("unit lookup (PUT member rule 4, 404 SV005, 409 unit.addressNo)", () => {
  it("addressNo names an existing room of the project", () => {
    expect(Result.getOrThrow(resolveUnitRoom({ addressNo: "99" }, [R1, R3]))).toBe(R3)
  })

  it("addressNo matches trimmed and case-insensitively", () => {
    expect(Result.getOrThrow(resolveUnitRoom({ addressNo: " 12/3a " }, [R1, R3]))).toBe(R1)
  })

  it("unknown addressNo gives NotFound (404 SV005); rooms are never created", () => {
    const r = resolveUnitRoom({ addressNo: "404" }, [R1, R3])
    expect(Result.isFailure(r) && r.failure._tag).toBe("NotFound")
  })

  it("addressNo in several zones without zoneId is an identity conflict on unit.addressNo", () => {
    const r = resolveUnitRoom({ addressNo: "12/3A" }, [R1, R2])
    expect(Result.isFailure(r) && r.failure).toMatchObject({
      _tag: "IdentityConflict",
      conflictKey: "unit.addressNo",
    })
  })

  it("zoneId disambiguates an addressNo present in several zones", () => {
    expect(Result.getOrThrow(resolveUnitRoom({ addressNo: "12/3A", zoneId: "z2" }, [R1, R2])))
      .toBe(R2)
  })

  it("unitId is an alternate lookup key (the room id)", () => {
    expect(Result.getOrThrow(resolveUnitRoom({ addressNo: "12/3A", unitId: "r2" }, [R1, R2])))
      .toBe(R2)
  })

  it("unitId that names no room, or a room with another addressNo or zone, is NotFound", () => {
    for (const req of [
      { addressNo: "12/3A", unitId: "nope" },
      { addressNo: "99", unitId: "r2" },
      { addressNo: "12/3A", unitId: "r2", zoneId: "z1" },
    ]) {
      const r = resolveUnitRoom(req, [R1, R2, R3])
      expect(Result.isFailure(r) && r.failure._tag).toBe("NotFound")
    }
  })
})

describe("unit binding and roles (PUT member rule 4)", () => {
  it("the first resident bound to a unit becomes owner; later ones are participants", () => {
    const first = rebindUnit({ memberId: "a", current: null, target: occ(R1), now: 1 })
    expect(first.binding).toEqual({
      roomId: "r1",
      addressNo: "12/3A",
      groupId: "g-r1",
      role: "owner",
    })
    const second = rebindUnit({ memberId: "b", current: null, target: first.joined!, now: 2 })
    expect(second.binding?.role).toBe("participant")
    expect(roles(second.joined)).toEqual({ a: "owner", b: "participant" })
  })

  it("moving to another unit removes the member from the old unit", () => {
    const r1 = occ(R1, [resident("a", 1, "owner"), resident("b", 2)])
    const moved = rebindUnit({ memberId: "b", current: r1, target: occ(R3), now: 3 })
    expect(roles(moved.left)).toEqual({ a: "owner" })
    expect(roles(moved.joined)).toEqual({ b: "owner" })
    expect(moved.binding).toMatchObject({ roomId: "r3", role: "owner" })
  })

  it("unit null unbinds", () => {
    const r1 = occ(R1, [resident("a", 1, "owner"), resident("b", 2)])
    const out = rebindUnit({ memberId: "b", current: r1, target: null, now: 3 })
    expect(out.binding).toBeNull()
    expect(out.joined).toBeUndefined()
    expect(roles(out.left)).toEqual({ a: "owner" })
  })

  it("when the owner leaves, the earliest-bound remaining resident becomes owner", () => {
    const r1 = occ(R1, [resident("a", 1, "owner"), resident("c", 3), resident("b", 2)])
    const out = rebindUnit({ memberId: "a", current: r1, target: null, now: 4 })
    expect(roles(out.left)).toEqual({ b: "owner", c: "participant" })
  })

  it("the last resident leaving leaves the unit empty", () => {
    const current = occ(R1, [resident("a", 1, "owner")])
    const out = rebindUnit({ memberId: "a", current, target: null, now: 2 })
    expect(out.left?.residents).toEqual([])
  })

  it("re-binding to the unit already held changes nothing and keeps the role", () => {
    const r1 = occ(R1, [resident("a", 1, "owner"), resident("b", 2)])
    const out = rebindUnit({ memberId: "b", current: r1, target: r1, now: 9 })
    expect(out).toEqual({
      binding: { roomId: "r1", addressNo: "12/3A", groupId: "g-r1", role: "participant" },
    })
  })

  it("an owner set elsewhere is kept; bad data with two owners keeps the earliest", () => {
    expect(deriveRoles([resident("a", 1), resident("b", 2, "owner")]).map((r) => r.role)).toEqual([
      "participant",
      "owner",
    ])
    const fixed = deriveRoles([resident("a", 1, "owner"), resident("b", 2, "owner")])
    expect(fixed.map((r) => r.role)).toEqual(["owner", "participant"])
  })
})
