import { Effect, Layer } from "effect"
import { actingUserId } from "../../core/auth/principal.ts"
import type { Attendee } from "../../core/booking/state.ts"
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
      resolveAttendees: (inputs) =>
        Effect.gen(function* () {
          const { users } = table.get()
          const unknown = inputs.flatMap((a, i) => (a.id && !users.has(a.id) ? [`attendees.${i}.id: no user has this id`] : []))
          if (unknown.length > 0) return yield* new ValidationFailed({ messages: unknown })
          const byEmail = new Map([...users].flatMap(([id, u]) => (u.email ? [[u.email.toLowerCase(), { id, ...u }] as const] : [])))
          return inputs.map((a): Attendee => {
            const user = a.id ? { id: a.id, ...users.get(a.id)! } : byEmail.get(a.email.toLowerCase())
            return {
              ...(user ? { userId: user.id, name: user.displayName } : {}),
              email: a.email,
              type: a.type ?? "required",
              responseStatus: "needsAction",
            }
          })
        }),
    })
  }),
)
