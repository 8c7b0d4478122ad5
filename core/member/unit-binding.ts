import { Result } from "effect"
import { NotFound } from "../shared/errors.ts"
import { IdentityConflict } from "./errors.ts"

/**
 * Unit binding (PUT member rule 4). A unit is a room of the project that residents are bound
 * to; binding is never an identity. Roles are derived after every write: a unit with
 * residents has exactly one owner. The first resident becomes owner; when the owner leaves,
 * the earliest-bound remaining resident is promoted, so a unit with residents is never left
 * without a reservation owner.
 */

/** `unit` of the PUT body when it is an object (null unbinds, omitted leaves it). */
export interface UnitRequest {
  readonly addressNo: string
  readonly zoneId?: string
  /** Alternate lookup key: the room's id. */
  readonly unitId?: string
}

export interface UnitRoom {
  readonly roomId: string
  readonly addressNo: string
  readonly zoneId: string
  /** The room's reservation group, returned as unit.groupId. */
  readonly groupId: string
}

export type UnitRole = "owner" | "participant"

export interface UnitResident {
  readonly memberId: string
  readonly role: UnitRole
  /** Epoch ms of the binding; orders promotion. */
  readonly boundAt: number
}

export interface UnitOccupancy {
  readonly room: UnitRoom
  readonly residents: ReadonlyArray<UnitResident>
}

/** PartnerMember.unit. */
export interface UnitBinding {
  readonly roomId: string
  readonly addressNo: string
  readonly groupId: string
  readonly role: UnitRole
}

/** Address numbers compare trimmed and case-insensitively ("12/3a" names "12/3A"). */
export const addressKey = (addressNo: string): string => addressNo.trim().toLowerCase()
const sameAddress = (a: string, b: string) => addressKey(a) === addressKey(b)

/**
 * Finds the room a unit names among the candidates the repository loaded (rooms of the
 * project matching addressNo or unitId). unitId wins as lookup key but addressNo and zoneId,
 * when sent, must agree with it; a disagreement names no room (404). addressNo in several
 * zones needs zoneId (409 conflictKey unit.addressNo).
 */
export const resolveUnitRoom = (
  request: UnitRequest,
  rooms: ReadonlyArray<UnitRoom>,
): Result.Result<UnitRoom, NotFound | IdentityConflict> => {
  const notFound = () =>
    Result.fail(new NotFound({ entity: "unit", id: request.unitId ?? request.addressNo }))
  const inZone = (r: UnitRoom) => request.zoneId === undefined || r.zoneId === request.zoneId
  if (request.unitId !== undefined) {
    const room = rooms.find((r) => r.roomId === request.unitId)
    return room !== undefined && sameAddress(room.addressNo, request.addressNo) && inZone(room)
      ? Result.succeed(room)
      : notFound()
  }
  const matches = rooms.filter((r) => sameAddress(r.addressNo, request.addressNo) && inZone(r))
  if (matches.length === 0) return notFound()
  if (matches.length > 1) {
    return Result.fail(new IdentityConflict({ conflictKey: "unit.addressNo" }))
  }
  return Result.succeed(matches[0]!)
}

const byBinding = (a: UnitResident, b: UnitResident) =>
  a.boundAt - b.boundAt || (a.memberId < b.memberId ? -1 : a.memberId > b.memberId ? 1 : 0)

/**
 * Derives roles: an existing owner stays owner (an owner set elsewhere, e.g. by staff, is
 * respected); otherwise the earliest-bound resident (ties by memberId) becomes owner. Extra
 * owners from bad data are demoted so exactly one remains.
 */
export const deriveRoles = (residents: ReadonlyArray<UnitResident>): Array<UnitResident> => {
  const ordered = [...residents].sort(byBinding)
  const owner = ordered.find((r) => r.role === "owner") ?? ordered[0]
  return ordered.map((r) => {
    const role: UnitRole = r === owner ? "owner" : "participant"
    return r.role === role ? r : { ...r, role }
  })
}

export interface Rebinding {
  /** The unit left, with its residents after the leave (absent when nothing was left). */
  readonly left?: UnitOccupancy
  /** The unit joined, with its residents after the join (absent when nothing was joined). */
  readonly joined?: UnitOccupancy
  /** The member's binding after the write, for the response. */
  readonly binding: UnitBinding | null
}

/**
 * Moves `memberId` from its current unit to `target` (null unbinds). Binding to the unit the
 * member already holds changes nothing and keeps its role.
 */
export const rebindUnit = (input: {
  readonly memberId: string
  readonly current: UnitOccupancy | null
  readonly target: UnitOccupancy | null
  readonly now: number
}): Rebinding => {
  const { memberId, current, target, now } = input
  const view = (occ: UnitOccupancy): UnitBinding | null => {
    const me = occ.residents.find((r) => r.memberId === memberId)
    const { roomId, addressNo, groupId } = occ.room
    return me === undefined ? null : { roomId, addressNo, groupId, role: me.role }
  }
  if (current !== null && target !== null && current.room.roomId === target.room.roomId) {
    return { binding: view(current) }
  }
  const left =
    current === null
      ? undefined
      : {
          room: current.room,
          residents: deriveRoles(current.residents.filter((r) => r.memberId !== memberId)),
        }
  const joined =
    target === null
      ? undefined
      : {
          room: target.room,
          residents: deriveRoles([
            ...target.residents.filter((r) => r.memberId !== memberId),
            { memberId, role: "participant", boundAt: now },
          ]),
        }
  return {
    ...(left !== undefined ? { left } : {}),
    ...(joined !== undefined ? { joined } : {}),
    binding: joined === undefined ? null : view(joined),
  }
}
