import { Context, type Effect } from "effect"
import type { UnitBinding, UnitOccupancy, UnitRequest, UnitRoom } from "../member/unit-binding.ts"
import type { MemberWriteFailure } from "./member-store.ts"

/** Units (apartments) and their residents. */
export class UnitStore extends Context.Service<
  UnitStore,
  {
    /** Units of the project a request may name; the request with a unitId match resolved to the unit's id. */
    readonly candidates: (
      projectId: string,
      request: UnitRequest,
    ) => Effect.Effect<{ readonly rooms: ReadonlyArray<UnitRoom>; readonly request: UnitRequest }>
    readonly current: (projectId: string, userId: string) => Effect.Effect<string | undefined>
    /** Row locks on the units being changed, in id order (in tx). */
    readonly lock: (unitIds: ReadonlyArray<string>) => Effect.Effect<void, MemberWriteFailure>
    /** The unit's reservation group, minted on first use (in tx). */
    readonly ensureGroup: (unitId: string) => Effect.Effect<string, MemberWriteFailure>
    readonly occupancy: (unitId: string, groupId: string) => Effect.Effect<UnitOccupancy>
    /** Makes the unit's residents exactly `occupancy.residents` (in tx). */
    readonly saveOccupancy: (projectId: string, occupancy: UnitOccupancy) => Effect.Effect<void, MemberWriteFailure>
    /** PartnerMember.unit as stored. */
    readonly bindingOf: (projectId: string, userId: string) => Effect.Effect<UnitBinding | null>
  }
>()("keyspace/ports/UnitStore") {}
