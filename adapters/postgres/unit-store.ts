import { and, eq, inArray, notInArray, or, sql } from "drizzle-orm"
import { Effect, Layer } from "effect"
import type { UnitBinding, UnitOccupancy, UnitRequest, UnitRole, UnitRoom } from "../../core/member/unit-binding.ts"
import { Clock } from "../../core/ports/clock.ts"
import { Ids } from "../../core/ports/ids.ts"
import { UnitStore } from "../../core/ports/unit-store.ts"
import { execute, type Queryable } from "./database.ts"
import { memberWrite } from "./member-races.ts"
import { unitReservationGroupsTable, unitResidentsTable, unitsTable } from "./schema.ts"
import { read, SqlDatabase } from "./unit-of-work.ts"

/**
 * Units of the project a request may name: by addressNo (trimmed, case-insensitive, as the
 * core compares), or by unitId, which matches the unit's own unitId or its id. The core takes
 * unitId as the room id, so a match on the unit's unitId is handed over as that id.
 */
const findUnitCandidates = async (
  q: Queryable,
  projectId: string,
  request: UnitRequest,
): Promise<{ rooms: UnitRoom[]; request: UnitRequest }> => {
  const byAddress = sql`lower(btrim(${unitsTable.addressNo})) = ${request.addressNo.trim().toLowerCase()}`
  const rows = await q
    .select()
    .from(unitsTable)
    .where(
      and(
        eq(unitsTable.projectId, projectId),
        request.unitId === undefined
          ? byAddress
          : or(byAddress, eq(unitsTable.unitId, request.unitId), eq(unitsTable.id, request.unitId)),
      ),
    )
  const rooms = rows.map((r) => ({ roomId: r.id, addressNo: r.addressNo, zoneId: r.zoneId ?? "", groupId: "" }))
  const named = request.unitId === undefined ? undefined : rows.find((r) => r.unitId === request.unitId)
  return { rooms, request: named ? { ...request, unitId: named.id } : request }
}

const loadOccupancy = async (q: Queryable, unitId: string, groupId: string): Promise<UnitOccupancy> => {
  const [unit] = await q.select().from(unitsTable).where(eq(unitsTable.id, unitId))
  const residents = await q.select().from(unitResidentsTable).where(eq(unitResidentsTable.unitId, unitId))
  return {
    room: { roomId: unit!.id, addressNo: unit!.addressNo, zoneId: unit!.zoneId ?? "", groupId },
    residents: residents.map((r) => ({
      memberId: r.userId,
      role: (r.role === "owner" ? "owner" : "participant") satisfies UnitRole,
      boundAt: r.boundAt.getTime(),
    })),
  }
}

const unitBindingOf = async (q: Queryable, projectId: string, userId: string): Promise<UnitBinding | null> => {
  const [row] = await q
    .select({
      roomId: unitsTable.id,
      addressNo: unitsTable.addressNo,
      groupId: unitReservationGroupsTable.groupId,
      role: unitResidentsTable.role,
    })
    .from(unitResidentsTable)
    .innerJoin(unitsTable, eq(unitsTable.id, unitResidentsTable.unitId))
    .innerJoin(unitReservationGroupsTable, eq(unitReservationGroupsTable.unitId, unitResidentsTable.unitId))
    .where(and(eq(unitResidentsTable.projectId, projectId), eq(unitResidentsTable.userId, userId)))
  if (!row) return null
  return { ...row, role: row.role === "owner" ? "owner" : "participant" }
}

/** Units and residents on PostgreSQL / PGlite. */
export const UnitStorePostgres = Layer.effect(
  UnitStore,
  Effect.gen(function* () {
    const database = yield* SqlDatabase
    const clock = yield* Clock
    const ids = yield* Ids
    const r = <A>(f: (q: Queryable) => Promise<A>) => read(f).pipe(Effect.provideService(SqlDatabase, database))
    return UnitStore.of({
      candidates: (projectId, request) => r((q) => findUnitCandidates(q, projectId, request)),
      current: (projectId, userId) =>
        r(async (q) => {
          const [row] = await q
            .select({ unitId: unitResidentsTable.unitId })
            .from(unitResidentsTable)
            .where(and(eq(unitResidentsTable.projectId, projectId), eq(unitResidentsTable.userId, userId)))
          return row?.unitId
        }),
      // Row locks in id order, so role derivation is serialized.
      lock: (unitIds) => {
        const sorted = [...new Set(unitIds)].sort()
        if (sorted.length === 0) return Effect.void
        return memberWrite("UnitStore.lock", async (tx) => {
          await execute(tx, sql`select id from ${unitsTable} where ${inArray(unitsTable.id, sorted)} order by id for update`)
        })
      },
      ensureGroup: (unitId) =>
        memberWrite("UnitStore.ensureGroup", async (tx) => {
          await tx
            .insert(unitReservationGroupsTable)
            .values({ unitId, groupId: ids.newId(), createdAt: new Date(clock.now()) })
            .onConflictDoNothing()
          const [row] = await tx.select().from(unitReservationGroupsTable).where(eq(unitReservationGroupsTable.unitId, unitId))
          return row!.groupId
        }),
      occupancy: (unitId, groupId) => r((q) => loadOccupancy(q, unitId, groupId)),
      saveOccupancy: (projectId, occupancy) =>
        memberWrite("UnitStore.saveOccupancy", async (tx) => {
          const unitId = occupancy.room.roomId
          const keep = occupancy.residents.map((x) => x.memberId)
          await tx
            .delete(unitResidentsTable)
            .where(
              keep.length > 0
                ? and(eq(unitResidentsTable.unitId, unitId), notInArray(unitResidentsTable.userId, keep))
                : eq(unitResidentsTable.unitId, unitId),
            )
          for (const x of occupancy.residents)
            await tx
              .insert(unitResidentsTable)
              .values({ unitId, userId: x.memberId, projectId, role: x.role, boundAt: new Date(x.boundAt) })
              .onConflictDoUpdate({
                target: [unitResidentsTable.unitId, unitResidentsTable.userId],
                set: { role: x.role },
              })
        }),
      bindingOf: (projectId, userId) => r((q) => unitBindingOf(q, projectId, userId)),
    })
  }),
)
