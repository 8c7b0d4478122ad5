import { and, eq, inArray, or } from "drizzle-orm"
import { Effect, Layer, Result } from "effect"
import { actingUserId, type Principal } from "../../core/auth/principal.ts"
import { resolveAttendees } from "../../core/booking/attendees.ts"
import { emailLookupKey } from "../../core/member/identity.ts"
import type { Organizer } from "../../core/booking/state.ts"
import { Directory } from "../../core/ports/directory.ts"
import { ValidationFailed } from "../../core/shared/errors.ts"
import { EpochCaches } from "./cache-epoch.ts"
import type { Queryable } from "./database.ts"
import { appsTable, projectMembershipsTable, usersTable } from "./schema.ts"
import { read, SqlDatabase } from "./unit-of-work.ts"

export const displayName = (u: { firstName: string; lastName: string; profileName: string | null }) => {
  const full = `${u.firstName} ${u.lastName}`.trim()
  return { name: full, displayName: u.profileName || full }
}

/** The organizer a principal books as: the delegated member, or the app's service identity. */
export const organizerOf = async (q: Queryable, principal: Principal): Promise<Organizer> => {
  if (principal.subjectUserId !== undefined) {
    const [u] = await q.select().from(usersTable).where(eq(usersTable.id, principal.subjectUserId)).limit(1)
    if (u) return { userId: u.id, ...(u.email ? { email: u.email } : {}), ...displayName(u) }
  }
  const [app] = await q
    .select({ key: appsTable.key, appId: appsTable.appId })
    .from(appsTable)
    .where(eq(appsTable.id, principal.appId))
  const name = app?.key ?? app?.appId ?? "app"
  return { userId: actingUserId(principal), name, displayName: name }
}

/** Spec rule 6: a project admin is a delegated member whose membership role is admin. */
export const isProjectAdmin = async (q: Queryable, principal: Principal, projectId: string): Promise<boolean> => {
  if (principal.subjectUserId === undefined) return false
  const [m] = await q
    .select({ role: projectMembershipsTable.role })
    .from(projectMembershipsTable)
    .where(
      and(
        eq(projectMembershipsTable.projectId, projectId),
        eq(projectMembershipsTable.userId, principal.subjectUserId),
        eq(projectMembershipsTable.status, "active"),
      ),
    )
  return m?.role === "admin"
}

/** Directory over the users, apps and memberships tables. */
export const DirectoryPostgres = Layer.effect(
  Directory,
  Effect.gen(function* () {
    const database = yield* SqlDatabase
    // An app's service identity changes only through the manifest: cached per app, emptied when
    // the cache epoch moves (cache-epoch.ts). Members are read each time.
    const appOrganizers = (yield* EpochCaches).cache<string, Organizer>("app-organizers", { max: 1_000 })
    const sqlRead = <A>(f: (q: Queryable) => Promise<A>) => read(f).pipe(Effect.provideService(SqlDatabase, database))
    return Directory.of({
      organizerOf: (p) =>
        p.subjectUserId !== undefined
          ? sqlRead((q) => organizerOf(q, p))
          : Effect.map(
              Effect.promise(() => appOrganizers.getOrLoad(p.appId, () => organizerOf(database.db, p))),
              (o) => o ?? { userId: actingUserId(p), name: "app", displayName: "app" },
            ),
      isProjectAdmin: (p, projectId) =>
        p.subjectUserId === undefined ? Effect.succeed(false) : sqlRead((q) => isProjectAdmin(q, p, projectId)),
      resolveAttendees: (projectId, inputs) =>
        inputs.length === 0
          ? Effect.succeed([])
          : Effect.gen(function* () {
              const ids = inputs.flatMap((a) => (a.id ? [a.id] : []))
              const emails = inputs.map((a) => emailLookupKey(a.email))
              const named = ids.length > 0 ? or(inArray(usersTable.id, ids), inArray(usersTable.emailNorm, emails)) : inArray(usersTable.emailNorm, emails)
              // The project's people only (a membership of any status): see core/booking/attendees.ts.
              const users = yield* sqlRead((q) =>
                q
                  .select({ id: usersTable.id, emailNorm: usersTable.emailNorm, firstName: usersTable.firstName, lastName: usersTable.lastName, profileName: usersTable.profileName })
                  .from(usersTable)
                  .innerJoin(
                    projectMembershipsTable,
                    and(eq(projectMembershipsTable.userId, usersTable.id), eq(projectMembershipsTable.projectId, projectId)),
                  )
                  .where(named),
              )
              const people = users.map((u) => ({ userId: u.id, emailNorm: u.emailNorm ?? undefined, displayName: displayName(u).displayName }))
              const resolved = resolveAttendees(inputs, people)
              return Result.isSuccess(resolved) ? resolved.success : yield* new ValidationFailed({ messages: resolved.failure })
            }),
    })
  }),
)
