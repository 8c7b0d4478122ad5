import { Result } from "effect"
import type { AttendeeRequest } from "./commands.ts"
import type { Attendee } from "./state.ts"
import { emailLookupKey } from "../member/identity.ts"

/** One of the booking project's people, as an attendee is resolved to. */
export interface ProjectPerson {
  readonly userId: string
  /** Lower-case; absent for a member without a login (employeeId only). */
  readonly emailNorm?: string | undefined
  readonly displayName: string
}

/**
 * The attendees of a request resolved to the project's people (`people`: those whose id or email
 * the request names, read by the adapter). An id that names nobody among them is refused as
 * unknown, whoever it may name in another project, so another project's people are never
 * disclosed. An email of nobody in the project stays unresolved. The email given beside an id
 * is kept as given: a client echoing a booking's attendees back (an email changed since) must
 * not be refused.
 */
export const resolveAttendees = (
  inputs: ReadonlyArray<AttendeeRequest>,
  people: ReadonlyArray<ProjectPerson>,
): Result.Result<ReadonlyArray<Attendee>, ReadonlyArray<string>> => {
  const byId = new Map(people.map((u) => [u.userId, u]))
  const byEmail = new Map(people.flatMap((u) => (u.emailNorm ? [[u.emailNorm, u] as const] : [])))
  const faults: string[] = []
  const attendees = inputs.map((a, i): Attendee => {
    const user = a.id ? byId.get(a.id) : byEmail.get(emailLookupKey(a.email))
    if (a.id && user === undefined) faults.push(`attendees.${i}.id: no user has this id`)
    return {
      ...(user ? { userId: user.userId, name: user.displayName } : {}),
      email: a.email,
      type: a.type ?? "required",
      responseStatus: "needsAction",
    }
  })
  return faults.length > 0 ? Result.fail(faults) : Result.succeed(attendees)
}
