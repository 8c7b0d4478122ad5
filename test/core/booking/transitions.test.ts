import { Result } from "effect"
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { BOOKING_STATUSES, isTerminal, type BookingStatus } from "../../../core/booking/state.ts"
import {
  ALLOWED_FROM,
  canTransition,
  createBooking,
  SYSTEM_ACTOR,
  transition,
  type BookingCommand,
  type CommandTag,
} from "../../../core/booking/transitions.ts"
import {
  admin,
  END,
  failureTag,
  makeBooking,
  MINUTE,
  ORGANIZER_ID,
  organizer,
  PIN,
  pinHolder,
  START,
  stranger,
  success,
  withStatus,
  wrongPin,
} from "./booking-fixtures.ts"

const createInput = {
  id: "eeeeeeeeeeeeeeeeeeeeeee5",
  projectId: "fffffffffffffffffffffff6",
  assetKind: "room" as const,
  assetId: "999999999999999999999997",
  title: "Planning",
  start: START,
  end: END,
  organizer: { userId: ORGANIZER_ID },
  pinCode: PIN,
}
const NOW = START - 60 * MINUTE

describe("create (status table rows from (none))", () => {
  it("a free asset is created active with a BOOK event", () => {
    const r = success(createBooking({ ...createInput, paid: false }, NOW))
    expect(r.booking.status).toBe("active")
    expect(r.booking.pinCode).toBe(PIN)
    expect(r.events).toEqual([{ kind: "BOOK", bookingId: createInput.id, at: NOW }])
    expect(r.history).toEqual({ action: "create", at: NOW, by: ORGANIZER_ID })
  })

  it("a paid asset is created unpaid and emits no BOOK until payment completes", () => {
    const r = success(createBooking({ ...createInput, paid: true }, NOW))
    expect(r.booking.status).toBe("unpaid")
    expect(r.events).toEqual([])
  })

  it("end must be after start", () => {
    expect(failureTag(createBooking({ ...createInput, end: START, paid: false }, NOW))).toBe(
      "BookingRuleViolated",
    )
  })
})

describe("rule 1: cancel only from active or unpaid", () => {
  it("cancel of an active booking by the organizer -> cancelled with CANCEL (no reason)", () => {
    const r = success(transition(makeBooking(), { _tag: "Cancel" }, NOW, organizer))
    expect(r.booking.status).toBe("cancelled")
    expect(r.events).toEqual([{ kind: "CANCEL", bookingId: makeBooking().id, at: NOW }])
    expect(r.history).toEqual({ action: "cancel", at: NOW, by: ORGANIZER_ID })
  })

  it("cancel of an unpaid booking -> cancelled", () => {
    const r = success(transition(withStatus("unpaid"), { _tag: "Cancel" }, NOW, organizer))
    expect(r.booking.status).toBe("cancelled")
  })

  it("cancel after check-in is rejected with IllegalTransition (409 SV006)", () => {
    const r = transition(withStatus("checked-in"), { _tag: "Cancel" }, START, organizer)
    expect(r).toMatchObject({ failure: { _tag: "IllegalTransition", from: "checked-in" } })
  })

  it("cancel of a done booking is rejected with IllegalTransition (409 SV006)", () => {
    expect(failureTag(transition(withStatus("done"), { _tag: "Cancel" }, END, organizer))).toBe(
      "IllegalTransition",
    )
  })

  it("rule 6: cancel is allowed for the organizer, a pinCode holder or a project admin", () => {
    for (const actor of [organizer, pinHolder, admin]) {
      expect(failureTag(transition(makeBooking(), { _tag: "Cancel" }, NOW, actor))).toBe("Success")
    }
  })

  it("rule 6: cancel by anyone else, or with a wrong pinCode, is Forbidden (403 SV003)", () => {
    expect(failureTag(transition(makeBooking(), { _tag: "Cancel" }, NOW, stranger))).toBe(
      "Forbidden",
    )
    expect(failureTag(transition(makeBooking(), { _tag: "Cancel" }, NOW, wrongPin))).toBe(
      "Forbidden",
    )
  })
})

describe("rule 2: check-in only from active, inside the window", () => {
  const checkIn: BookingCommand = { _tag: "CheckIn" }

  it("check-in 15 minutes before start (default window) -> checked-in with per-person time", () => {
    const at = START - 15 * MINUTE
    const r = success(transition(makeBooking(), checkIn, at, pinHolder))
    expect(r.booking.status).toBe("checked-in")
    expect(r.booking.checkIns).toEqual([{ userId: pinHolder.userId, at }])
    expect(r.events).toEqual([])
  })

  it("check-in before the window opens is a BookingRuleViolated", () => {
    const r = transition(makeBooking(), checkIn, START - 16 * MINUTE, organizer)
    expect(r).toMatchObject({
      failure: {
        _tag: "BookingRuleViolated",
        messages: ["check-in opens 15 minutes before the start"],
      },
    })
  })

  it("the window follows the room's preStartMinutes", () => {
    const cmd: BookingCommand = { _tag: "CheckIn", preStartMinutes: 5 }
    expect(failureTag(transition(makeBooking(), cmd, START - 6 * MINUTE, organizer))).toBe(
      "BookingRuleViolated",
    )
    expect(failureTag(transition(makeBooking(), cmd, START - 5 * MINUTE, organizer))).toBe(
      "Success",
    )
  })

  it("preStartMinutes -1 disables the reminder only; check-in still opens 15 minutes before", () => {
    const cmd: BookingCommand = { _tag: "CheckIn", preStartMinutes: -1 }
    expect(failureTag(transition(makeBooking(), cmd, START - 15 * MINUTE, organizer))).toBe(
      "Success",
    )
  })

  it("check-in at or after the end is a BookingRuleViolated", () => {
    expect(failureTag(transition(makeBooking(), checkIn, END, organizer))).toBe(
      "BookingRuleViolated",
    )
  })

  it("a second check-in on a checked-in booking is an IllegalTransition (409 SV006)", () => {
    expect(failureTag(transition(withStatus("checked-in"), checkIn, START, pinHolder))).toBe(
      "IllegalTransition",
    )
  })

  it("check-in of an unpaid booking is an IllegalTransition", () => {
    expect(failureTag(transition(withStatus("unpaid"), checkIn, START, organizer))).toBe(
      "IllegalTransition",
    )
  })

  it("rule 6: check-in needs the organizer or the pinCode; admin alone is not enough", () => {
    expect(failureTag(transition(makeBooking(), checkIn, START, admin))).toBe("Forbidden")
    expect(failureTag(transition(makeBooking(), checkIn, START, wrongPin))).toBe("Forbidden")
  })
})

describe("rule 2: check-out only from checked-in", () => {
  it("check-out by the pinCode holder -> done with checkOutAt", () => {
    const at = START + 30 * MINUTE
    const r = success(transition(withStatus("checked-in"), { _tag: "CheckOut" }, at, pinHolder))
    expect(r.booking.status).toBe("done")
    expect(r.booking.checkOutAt).toBe(at)
    expect(r.history.action).toBe("check-out")
  })

  it("check-out of an active booking is an IllegalTransition (409 SV006)", () => {
    expect(failureTag(transition(makeBooking(), { _tag: "CheckOut" }, START, organizer))).toBe(
      "IllegalTransition",
    )
  })

  it("check-out by a stranger is Forbidden", () => {
    expect(
      failureTag(transition(withStatus("checked-in"), { _tag: "CheckOut" }, START, stranger)),
    ).toBe("Forbidden")
  })
})

describe("rule 2: update only from active or checked-in", () => {
  it("moving the times emits MODIFY with old and new times", () => {
    const cmd: BookingCommand = {
      _tag: "Update",
      changes: { start: START + 30 * MINUTE, end: END + 30 * MINUTE },
    }
    const r = success(transition(makeBooking(), cmd, NOW, organizer))
    expect(r.booking).toMatchObject({ start: START + 30 * MINUTE, end: END + 30 * MINUTE })
    expect(r.events).toEqual([
      {
        kind: "MODIFY",
        bookingId: makeBooking().id,
        at: NOW,
        oldStart: START,
        oldEnd: END,
        newStart: START + 30 * MINUTE,
        newEnd: END + 30 * MINUTE,
      },
    ])
  })

  it("changing only the title is a change: MODIFY with the same old and new times; resending the same values is none", () => {
    const cmd: BookingCommand = { _tag: "Update", changes: { title: "Renamed", start: START } }
    const r = success(transition(makeBooking(), cmd, NOW, pinHolder))
    expect(r.booking.title).toBe("Renamed")
    expect(r.events).toEqual([
      { kind: "MODIFY", bookingId: makeBooking().id, at: NOW, oldStart: START, oldEnd: END, newStart: START, newEnd: END },
    ])
    const same: BookingCommand = { _tag: "Update", changes: { title: makeBooking().title, start: START, end: END } }
    expect(success(transition(makeBooking(), same, NOW, pinHolder)).events).toEqual([])
  })

  it("extending a checked-in booking's end is allowed", () => {
    const cmd: BookingCommand = { _tag: "Update", changes: { end: END + 30 * MINUTE } }
    const r = success(transition(withStatus("checked-in"), cmd, START + 10 * MINUTE, organizer))
    expect(r.booking.status).toBe("checked-in")
    expect(r.booking.end).toBe(END + 30 * MINUTE)
  })

  it("startDateTime cannot change after check-in: IllegalTransition (409 SV006)", () => {
    const cmd: BookingCommand = { _tag: "Update", changes: { start: START + MINUTE } }
    expect(transition(withStatus("checked-in"), cmd, START, organizer)).toMatchObject({
      failure: { _tag: "IllegalTransition", command: "Update(startDateTime)" },
    })
  })

  it("an update leaving end <= start, or moving the end into the past, is BookingRuleViolated", () => {
    const inverted: BookingCommand = { _tag: "Update", changes: { end: START } }
    expect(failureTag(transition(makeBooking(), inverted, NOW, organizer))).toBe(
      "BookingRuleViolated",
    )
    const past: BookingCommand = { _tag: "Update", changes: { end: START + 5 * MINUTE } }
    expect(
      failureTag(transition(withStatus("checked-in"), past, START + 10 * MINUTE, organizer)),
    ).toBe("BookingRuleViolated")
  })

  it("update of a cancelled or unpaid booking is an IllegalTransition", () => {
    const cmd: BookingCommand = { _tag: "Update", changes: { title: "x" } }
    expect(failureTag(transition(withStatus("cancelled"), cmd, NOW, organizer))).toBe(
      "IllegalTransition",
    )
    expect(failureTag(transition(withStatus("unpaid"), cmd, NOW, organizer))).toBe(
      "IllegalTransition",
    )
  })

  it("update by a non-organizer without the pinCode is Forbidden, even for an admin", () => {
    const cmd: BookingCommand = { _tag: "Update", changes: { title: "x" } }
    expect(failureTag(transition(makeBooking(), cmd, NOW, admin))).toBe("Forbidden")
  })
})

describe("automatic transitions", () => {
  it("payment completed: unpaid -> active with BOOK, no actor in history", () => {
    const r = success(
      transition(withStatus("unpaid"), { _tag: "PaymentCompleted" }, NOW, SYSTEM_ACTOR),
    )
    expect(r.booking.status).toBe("active")
    expect(r.events).toEqual([{ kind: "BOOK", bookingId: makeBooking().id, at: NOW }])
    expect(r.history).toEqual({ action: "payment", at: NOW })
  })

  it("payment window lapses: unpaid -> cancelled with CANCEL reason payment-lapsed", () => {
    const r = success(
      transition(withStatus("unpaid"), { _tag: "PaymentLapsed" }, NOW, SYSTEM_ACTOR),
    )
    expect(r.booking.status).toBe("cancelled")
    expect(r.events).toEqual([
      { kind: "CANCEL", bookingId: makeBooking().id, at: NOW, reason: "payment-lapsed" },
    ])
  })

  it("a payment arriving after the lapse is an IllegalTransition", () => {
    expect(
      failureTag(
        transition(withStatus("cancelled"), { _tag: "PaymentCompleted" }, NOW, SYSTEM_ACTOR),
      ),
    ).toBe("IllegalTransition")
  })

  it("no-show: active and nobody checked in by postStartExpireMinutes -> cancelled (no-show)", () => {
    const at = START + 15 * MINUTE
    const r = success(transition(makeBooking(), { _tag: "NoShowExpire" }, at, SYSTEM_ACTOR))
    expect(r.booking.status).toBe("cancelled")
    expect(r.events).toEqual([
      { kind: "CANCEL", bookingId: makeBooking().id, at, reason: "no-show" },
    ])
  })

  it("no-show before the deadline, or with -1 (disabled), is BookingRuleViolated", () => {
    const early = transition(
      makeBooking(),
      { _tag: "NoShowExpire" },
      START + 14 * MINUTE,
      SYSTEM_ACTOR,
    )
    expect(failureTag(early)).toBe("BookingRuleViolated")
    const disabled = transition(
      makeBooking(),
      { _tag: "NoShowExpire", postStartExpireMinutes: -1 },
      END,
      SYSTEM_ACTOR,
    )
    expect(failureTag(disabled)).toBe("BookingRuleViolated")
  })

  it("check-in stops the no-show timer: no-show of a checked-in booking is IllegalTransition", () => {
    expect(
      failureTag(transition(withStatus("checked-in"), { _tag: "NoShowExpire" }, END, SYSTEM_ACTOR)),
    ).toBe("IllegalTransition")
  })

  it("end time reached: active or checked-in -> done, no notification", () => {
    for (const status of ["active", "checked-in"] as const) {
      const r = success(transition(withStatus(status), { _tag: "End" }, END, SYSTEM_ACTOR))
      expect(r.booking.status).toBe("done")
      expect(r.events).toEqual([])
    }
  })

  it("an End fired before the (possibly extended) end is BookingRuleViolated", () => {
    expect(failureTag(transition(makeBooking(), { _tag: "End" }, END - 1, SYSTEM_ACTOR))).toBe(
      "BookingRuleViolated",
    )
  })

  it("reject: any non-terminal status -> rejected (terminal), CANCEL without reason", () => {
    for (const status of ["unpaid", "active", "checked-in"] as const) {
      const r = success(transition(withStatus(status), { _tag: "Reject" }, NOW, SYSTEM_ACTOR))
      expect(r.booking.status).toBe("rejected")
      expect(r.events).toEqual([{ kind: "CANCEL", bookingId: makeBooking().id, at: NOW }])
    }
  })

  it("reject of a terminal booking is an IllegalTransition: terminal stays terminal", () => {
    for (const status of ["done", "cancelled", "rejected"] as const) {
      expect(failureTag(transition(withStatus(status), { _tag: "Reject" }, NOW, admin))).toBe(
        "IllegalTransition",
      )
    }
  })

  it("reject needs an administrator (or the system actor)", () => {
    expect(failureTag(transition(makeBooking(), { _tag: "Reject" }, NOW, organizer))).toBe(
      "Forbidden",
    )
  })
})

// --- properties over the whole table -----------------------------------------------------

const COMMANDS: ReadonlyArray<BookingCommand> = [
  { _tag: "CheckIn" },
  { _tag: "CheckOut" },
  { _tag: "Cancel" },
  { _tag: "Update", changes: { end: END + 15 * MINUTE } },
  { _tag: "PaymentCompleted" },
  { _tag: "PaymentLapsed" },
  { _tag: "NoShowExpire" },
  { _tag: "End" },
  { _tag: "Reject" },
]
const status = fc.constantFrom<BookingStatus>(...BOOKING_STATUSES)
const command = fc.constantFrom(...COMMANDS)
const actor = fc.constantFrom(organizer, pinHolder, admin, stranger, wrongPin, SYSTEM_ACTOR)
const now = fc.integer({ min: START - 120 * MINUTE, max: END + 120 * MINUTE })

describe("status machine properties", () => {
  it("rule 3: terminal statuses never change, whatever the command, time or actor", () => {
    fc.assert(
      fc.property(status, command, now, actor, (s, cmd, t, who) => {
        fc.pre(isTerminal(s))
        expect(Result.isFailure(transition(withStatus(s), cmd, t, who))).toBe(true)
      }),
    )
  })

  it("rule 4: a command the table forbids is IllegalTransition for an authorized actor", () => {
    fc.assert(
      fc.property(status, command, now, (s, cmd, t) => {
        fc.pre(!canTransition(s, cmd._tag))
        // The organizer holding the pin and admin rights passes every authorization check.
        const all = { userId: ORGANIZER_ID, isProjectAdmin: true, pinCode: PIN }
        expect(failureTag(transition(withStatus(s), cmd, t, all))).toBe("IllegalTransition")
      }),
    )
  })

  it("every success follows the table and lands on a status the command can produce", () => {
    const targets: Record<CommandTag, ReadonlyArray<BookingStatus>> = {
      CheckIn: ["checked-in"],
      CheckOut: ["done"],
      Cancel: ["cancelled"],
      Update: ["active", "checked-in"],
      PaymentCompleted: ["active"],
      PaymentLapsed: ["cancelled"],
      NoShowExpire: ["cancelled"],
      End: ["done"],
      Reject: ["rejected"],
    }
    fc.assert(
      fc.property(status, command, now, actor, (s, cmd, t, who) => {
        const r = transition(withStatus(s), cmd, t, who)
        if (Result.isSuccess(r)) {
          expect(ALLOWED_FROM[cmd._tag]).toContain(s)
          expect(targets[cmd._tag]).toContain(r.success.booking.status)
          expect(r.success.booking.updatedAt).toBe(t)
          expect(r.success.history.at).toBe(t)
        }
      }),
    )
  })

  it("a transition never mutates its input booking", () => {
    fc.assert(
      fc.property(status, command, now, actor, (s, cmd, t, who) => {
        const before = withStatus(s)
        const snapshot = structuredClone(before)
        transition(before, cmd, t, who)
        expect(before).toEqual(snapshot)
      }),
    )
  })
})
