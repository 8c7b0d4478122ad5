import { Effect, Layer, Result } from "effect"
import { actingUserId } from "../../core/auth/principal.ts"
import { resolveAttendees } from "../../core/booking/attendees.ts"
import { emailLookupKey } from "../../core/member/identity.ts"
import { Directory } from "../../core/ports/directory.ts"
import { ValidationFailed } from "../../core/shared/errors.ts"
import { MemoryDb, type MemoryDbShape } from "./memory-db.ts"

/** People as the memory profile knows them (the members stream's memory stores may fill these). */
export interface DirectoryTables {
  readonly users: ReadonlyMap<string, { readonly email?: string | undefined; readonly name: string; readonly displayName: string }>
  /** App id -> the app's key (its service identity's name). */
  readonly apps: ReadonlyMap<string, string>
  /** `${projectId}:${userId}` -> role of an active membership. */
  readonly memberships: ReadonlyMap<string, string>
}

export const directoryTable = (db: MemoryDbShape) =>
  db.table<DirectoryTables>("directory", () => ({ users: new Map(), apps: new Map(), memberships: new Map() }))

export const DirectoryMemory = Layer.effect(
  Directory,
  Effect.gen(function* () {
    const table = directoryTable(yield* MemoryDb)
    return Directory.of({
      organizerOf: (p) =>
        Effect.sync(() => {
          const t = table.get()
          const u = p.subjectUserId === undefined ? undefined : t.users.get(p.subjectUserId)
          if (u !== undefined && p.subjectUserId !== undefined)
            return { userId: p.subjectUserId, ...(u.email ? { email: u.email } : {}), name: u.name, displayName: u.displayName }
          const name = t.apps.get(p.appId) ?? "app"
          return { userId: actingUserId(p), name, displayName: name }
        }),
      isProjectAdmin: (p, projectId) =>
        Effect.sync(() => p.subjectUserId !== undefined && table.get().memberships.get(`${projectId}:${p.subjectUserId}`) === "admin"),
      resolveAttendees: (projectId, inputs) =>
        Effect.gen(function* () {
          const { users, memberships } = table.get()
          const people = [...users]
            .filter(([id]) => memberships.has(`${projectId}:${id}`))
            .map(([id, u]) => ({ userId: id, emailNorm: u.email === undefined ? undefined : emailLookupKey(u.email), displayName: u.displayName }))
          const resolved = resolveAttendees(inputs, people)
          return Result.isSuccess(resolved) ? resolved.success : yield* new ValidationFailed({ messages: resolved.failure })
        }),
    })
  }),
)
