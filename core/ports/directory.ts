import { Context, type Effect } from "effect"
import type { Principal } from "../auth/principal.ts"
import type { AttendeeRequest } from "../booking/commands.ts"
import type { Attendee, Organizer } from "../booking/state.ts"
import type { ValidationFailed } from "../shared/errors.ts"

/** Who people are, as the booking use cases need them. */
export class Directory extends Context.Service<
  Directory,
  {
    /** The organizer a principal books as: the delegated member, or the app's service identity. */
    readonly organizerOf: (p: Principal) => Effect.Effect<Organizer>
    /** Spec rule 6: a delegated member whose membership in the project is an active admin one. */
    readonly isProjectAdmin: (p: Principal, projectId: string) => Effect.Effect<boolean>
    /**
     * Attendees resolved to the project's people (a membership of any status) by id or
     * (case-insensitive) email. An id that names nobody in the project is refused as unknown,
     * whoever it names elsewhere (another project's people are never disclosed). An email of
     * nobody in the project stays unresolved (core/booking/attendees.ts).
     */
    readonly resolveAttendees: (
      projectId: string,
      inputs: ReadonlyArray<AttendeeRequest>,
    ) => Effect.Effect<ReadonlyArray<Attendee>, ValidationFailed>
  }
>()("keyspace/ports/Directory") {}
