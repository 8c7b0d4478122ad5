import { eq, inArray } from "drizzle-orm"
import { Result } from "effect"
import { decodeAssetConfig, type AssetConfig } from "../../core/booking/asset-config.ts"
import type { AssetKind } from "../../core/booking/state.ts"
import { canSeeProject, type Principal } from "../../core/auth/principal.ts"
import { Forbidden, NotFound } from "../../core/shared/errors.ts"
import type { Queryable } from "../postgres/database.ts"
import { desksTable, projectsTable, roomsTable } from "../postgres/schema.ts"
import type { SchedulerDeps } from "../scheduler/scheduler-deps.ts"

/**
 * @deprecated bridge: asset reads of the legacy Promise use cases (booking, payment, tick
 * services) until they move onto AssetStore (core/ports/asset-store.ts). Searches and details
 * are the Assets use case (core/booking/assets.ts).
 */

export type RoomRow = typeof roomsTable.$inferSelect
export type DeskRow = typeof desksTable.$inferSelect
export interface ProjectInfo {
  readonly id: string
  readonly timezone: string
  readonly brandId: string
}

/** The stored config, decoded by the core schema; the manifest validated it on the way in. */
export const assetConfigOf = (raw: unknown): AssetConfig | undefined => {
  const r = decodeAssetConfig(raw ?? {})
  return Result.isSuccess(r) ? r.success : undefined
}

export const projectsById = async (q: Queryable, ids: ReadonlyArray<string>): Promise<Map<string, ProjectInfo>> => {
  if (ids.length === 0) return new Map()
  const rows = await q
    .select({ id: projectsTable.id, timezone: projectsTable.timezone, brandId: projectsTable.brandId })
    .from(projectsTable)
    .where(inArray(projectsTable.id, [...new Set(ids)]))
  return new Map(rows.map((r) => [r.id, r]))
}

/** An explicit projectId outside the caller's projects is refused (403), never searched. */
export const requireProjectScope = (principal: Principal, projectId: string) => {
  if (!canSeeProject(principal, projectId))
    throw new Forbidden({ reason: "the projectId is not one of this app's projects" })
}

/** A room or desk by id, inside the caller's projects; other projects' ids are "not found". */
export const findAsset = async (
  q: Queryable,
  principal: Principal | undefined,
  kind: AssetKind,
  id: string,
): Promise<{ room?: RoomRow; desk?: DeskRow; row: RoomRow | DeskRow; project: ProjectInfo }> => {
  const table = kind === "room" ? roomsTable : desksTable
  const [row] = await q.select().from(table).where(eq(table.id, id)).limit(1)
  if (!row || (principal && !canSeeProject(principal, row.projectId)))
    throw new NotFound({ entity: kind === "room" ? "meetingRoom" : "desk", id })
  const project = (await projectsById(q, [row.projectId])).get(row.projectId)!
  return kind === "room"
    ? { room: row as RoomRow, row, project }
    : { desk: row as DeskRow, row, project }
}

type FoundAsset = Awaited<ReturnType<typeof findAsset>>

/**
 * findAsset through the process's asset cache: rows and projects change only through the
 * manifest, and any change empties the cache on every process before their next request
 * (postgres/cache-epoch.ts). Call after `s.caches.sync()` (the bearer middleware does).
 */
export const findAssetCached = async (
  s: SchedulerDeps,
  principal: Principal | undefined,
  kind: AssetKind,
  id: string,
): Promise<FoundAsset> => {
  const found = await s.caches
    .cache<string, FoundAsset>("assets", { max: 10_000 })
    .getOrLoad(`${kind}:${id}`, () =>
      findAsset(s.database.db, undefined, kind, id).catch((e: unknown) => (e instanceof NotFound ? undefined : Promise.reject(e))),
    )
  if (!found || (principal && !canSeeProject(principal, found.row.projectId)))
    throw new NotFound({ entity: kind === "room" ? "meetingRoom" : "desk", id })
  return found
}
