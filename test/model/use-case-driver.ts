import { Cause, type Effect, Exit, Option } from "effect"
import { expect } from "vitest"
import type { Principal } from "../../core/auth/principal.ts"
import type { Bookings } from "../../core/booking/bookings.ts"
import type { BookingLifecycle } from "../../core/booking/lifecycle.ts"
import type { UnitOfWork } from "../../core/ports/unit-of-work.ts"
import type { Action, BookingDriver, Outcome, RealBooking, SystemTick, Who } from "./booking-model.ts"

/** The ids of the model's world on some storage profile. */
export interface ModelWorld {
  readonly project: string
  readonly app: string
  /** [free room, paid room] */
  readonly rooms: ReadonlyArray<string>
  /** Two organizers, a member who only knows PINs, a project admin, a stranger. */
  readonly organizers: ReadonlyArray<string>
  readonly pinHolder: string
  readonly admin: string
  readonly stranger: string
}

/** Outcome of a use-case exit: "Success" or the failure's tag (a defect fails the test). */
export const outcomeOf = <A>(exit: Exit.Exit<A, { readonly _tag: string }>): Outcome => {
  if (Exit.isSuccess(exit)) return "Success"
  const failure = Cause.findErrorOption(exit.cause)
  if (Option.isSome(failure)) return failure.value._tag
  throw new Error(`defect: ${Cause.pretty(exit.cause)}`)
}

/**
 * The model's driver over the real Bookings use case, whatever the stores: principals are
 * built directly (members acting through the world's app); PINs come from the organizer's view
 * of the created meeting.
 */
export const driverOver = (o: {
  readonly bookings: Bookings["Service"]
  readonly lifecycle: BookingLifecycle["Service"]
  readonly uow: UnitOfWork["Service"]
  readonly run: <A, E>(e: Effect.Effect<A, E>) => Promise<Exit.Exit<A, E>>
  readonly world: ModelWorld
  readonly now: () => number
  readonly advance: (minutes: number) => void
  readonly read: () => Promise<ReadonlyMap<string, RealBooking>>
  readonly dispose: () => Promise<void>
}): BookingDriver => {
  const { bookings, world } = o
  const member = (userId: string): Principal => ({
    appId: world.app,
    appKey: "model",
    grant: "act_as",
    projectIds: [world.project],
    subjectUserId: userId,
  })
  const pins = new Map<string, string>()
  const organizerOf = new Map<string, string>()
  const actorOf = (id: string, who: Who): { principal: Principal; pinCode?: string | undefined } => {
    switch (who) {
      case "organizer":
        return { principal: member(organizerOf.get(id)!) }
      case "pin":
        return { principal: member(world.pinHolder), pinCode: pins.get(id) }
      case "admin":
        return { principal: member(world.admin) }
      case "stranger":
        return { principal: member(world.stranger) }
      case "wrongPin":
        return { principal: member(world.stranger), pinCode: "nope" }
    }
  }
  return {
    now: o.now,
    create: async (organizer, room, start, end) => {
      const exit = await o.run(
        bookings.create(member(world.organizers[organizer]!), {
          asset: { _tag: "Room", id: world.rooms[room]! },
          when: { _tag: "Span", start, end },
          title: "model",
          attendees: [],
          payment: {},
          draft: Option.none(),
        }),
      )
      const outcome = outcomeOf(exit)
      if (Exit.isSuccess(exit) && exit.value._tag === "Created") {
        const m = exit.value.meeting
        // The organizer's view shows the PIN.
        expect(m.showPin).toBe(true)
        pins.set(m.row.id, m.row.pinCode)
        organizerOf.set(m.row.id, world.organizers[organizer]!)
        return { outcome, id: m.row.id }
      }
      return { outcome }
    },
    act: async (id, action: Action, who) => {
      if (action === "Reject") return outcomeOf(await o.run(bookings.act("operator", id, { _tag: "Reject" })))
      const { principal, pinCode } = actorOf(id, who)
      return outcomeOf(await o.run(bookings.act(principal, id, { _tag: action, pinCode })))
    },
    update: async (id, start, end, who) => {
      const { principal, pinCode } = actorOf(id, who)
      return outcomeOf(
        await o.run(
          bookings.update(principal, id, {
            start,
            end,
            pinCode,
            payment: {},
            fields: ["endDateTime", "startDateTime"],
            draft: Option.none(),
          }),
        ),
      )
    },
    advance: async (minutes) => o.advance(minutes),
    tick: async (id, kind: SystemTick, dueAt) => {
      // The scheduler's unit of work (the fired ledger is the worker's, not the use case's).
      const exit = await o.run(o.uow.transaction(o.lifecycle.applyTick({ bookingId: id, occurrenceIndex: 0, kind, dueAt }, o.now())))
      if (Exit.isFailure(exit)) throw new Error(`defect: ${Cause.pretty(exit.cause)}`)
      return exit.value._tag === "Transitioned" ? "Success" : exit.value._tag
    },
    bookings: o.read,
    dispose: o.dispose,
  }
}
