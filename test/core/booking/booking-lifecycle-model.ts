import { Result } from "effect"
import fc from "fast-check"
import { expect } from "vitest"
import {
  isLive,
  isTerminal,
  type Booking,
  type BookingStatus,
} from "../../../core/booking/state.ts"
import { SYSTEM_ACTOR, type Actor, type BookingCommand } from "../../../core/booking/transitions.ts"
import * as Interval from "../../../core/shared/interval.ts"
import { InMemoryBookingStore } from "./in-memory-booking-store.ts"

/**
 * Model-based test: random command sequences against the in-memory store built from the
 * pure core, compared with a model that knows only the spec's table in its simplest form.
 */

const MINUTE = 60_000
const SLOT = 15 * MINUTE
const T0 = Date.parse("2025-01-06T08:00:00+07:00")
const ASSETS = ["a00000000000000000000001", "a00000000000000000000002"] as const
const ORGANIZERS = ["u00000000000000000000001", "u00000000000000000000002"] as const

type Who = "organizer" | "pin" | "admin" | "stranger" | "wrongPin"
type Outcome = "Success" | "Forbidden" | "IllegalTransition" | "BookingRuleViolated" | "SlotTaken"

interface ModelBooking {
  readonly id: string
  readonly asset: string
  readonly organizer: string
  readonly pin: string
  start: number
  end: number
  status: BookingStatus
}

interface Model {
  now: number
  readonly bookings: Array<ModelBooking>
}

interface Real {
  readonly store: InMemoryBookingStore
  now: number
}

// --- the model's idea of the rules -------------------------------------------------------

const modelLive = (s: BookingStatus) => s === "unpaid" || s === "active" || s === "checked-in"

const modelSlotFree = (m: Model, asset: string, start: number, end: number, except?: string) =>
  !m.bookings.some(
    (b) =>
      b.asset === asset && b.id !== except && modelLive(b.status) && b.start < end && start < b.end,
  )

const actorFor = (b: ModelBooking, who: Who): Actor => {
  switch (who) {
    case "organizer":
      return { userId: b.organizer, isProjectAdmin: false }
    case "pin":
      return { userId: "u0000000000000000000pin0", isProjectAdmin: false, pinCode: b.pin }
    case "admin":
      return { userId: "u00000000000000000admin0", isProjectAdmin: true }
    case "stranger":
      return { userId: "u0000000000000000strange", isProjectAdmin: false }
    case "wrongPin":
      return { userId: "u0000000000000000strange", isProjectAdmin: false, pinCode: "nope" }
  }
}

const outcomeOf = (r: Result.Result<unknown, { readonly _tag: string }>): Outcome =>
  (Result.isFailure(r) ? r.failure._tag : "Success") as Outcome

// --- invariants checked after every command ----------------------------------------------

const snapshot = (real: Real) =>
  new Map([...real.store.bookings].map(([k, v]) => [k, structuredClone(v)]))

const checkInvariants = (
  model: Model,
  real: Real,
  before: Map<string, Booking>,
  outcome: Outcome,
  touched: string | undefined,
) => {
  const after = [...real.store.bookings.values()]
  // No two live bookings of one asset overlap.
  for (const a of after) {
    for (const b of after) {
      if (a.id < b.id && a.assetId === b.assetId && isLive(a.status) && isLive(b.status)) {
        expect(Interval.overlaps(a, b), `${a.id} overlaps ${b.id}`).toBe(false)
      }
    }
  }
  // Terminal states never change.
  for (const [id, old] of before) {
    if (isTerminal(old.status)) expect(real.store.bookings.get(id)).toEqual(old)
  }
  // A rejected command leaves every booking unchanged.
  if (outcome !== "Success") {
    expect(real.store.bookings.size).toBe(before.size)
    for (const [id, old] of before) expect(real.store.bookings.get(id)).toEqual(old)
  } else if (touched !== undefined) {
    for (const [id, old] of before)
      if (id !== touched) expect(real.store.bookings.get(id)).toEqual(old)
  }
  // The model and the store agree on every booking.
  expect(after.length).toBe(model.bookings.length)
  for (const mb of model.bookings) {
    const rb = real.store.bookings.get(mb.id)!
    expect({ status: rb.status, start: rb.start, end: rb.end }).toEqual({
      status: mb.status,
      start: mb.start,
      end: mb.end,
    })
  }
}

// --- commands ----------------------------------------------------------------------------

type Cmd = fc.Command<Model, Real>

class CreateCommand implements Cmd {
  constructor(
    readonly asset: number,
    readonly organizer: number,
    readonly offsetSlots: number,
    readonly lengthSlots: number,
    readonly paid: boolean,
  ) {}
  check = () => true
  run(m: Model, r: Real) {
    const id = `b${String(m.bookings.length + 1).padStart(23, "0")}`
    const start = m.now + this.offsetSlots * SLOT
    const end = start + this.lengthSlots * SLOT
    const asset = ASSETS[this.asset]!
    const expected: Outcome =
      start < m.now
        ? "BookingRuleViolated"
        : modelSlotFree(m, asset, start, end)
          ? "Success"
          : "SlotTaken"
    const before = snapshot(r)
    const pin = `p${m.bookings.length}`
    const result = r.store.create(
      {
        id,
        projectId: "f00000000000000000000001",
        assetKind: "room",
        assetId: asset,
        title: "t",
        start,
        end,
        organizer: { userId: ORGANIZERS[this.organizer]! },
        pinCode: pin,
        paid: this.paid,
      },
      r.now,
    )
    expect(outcomeOf(result), this.toString()).toBe(expected)
    if (expected === "Success") {
      m.bookings.push({
        id,
        asset,
        organizer: ORGANIZERS[this.organizer]!,
        pin,
        start,
        end,
        status: this.paid ? "unpaid" : "active",
      })
    }
    checkInvariants(m, r, before, expected, id)
  }
  toString = () =>
    `Create(asset${this.asset}, +${this.offsetSlots}x15m, ${this.lengthSlots}x15m` +
    `${this.paid ? ", paid" : ""})`
}

class AdvanceClockCommand implements Cmd {
  constructor(readonly minutes: number) {}
  check = () => true
  run(m: Model, r: Real) {
    m.now += this.minutes * MINUTE
    r.now += this.minutes * MINUTE
  }
  toString = () => `AdvanceClock(${this.minutes}m)`
}

/** A command on an existing booking, picked by index modulo the number of bookings. */
abstract class BookingCommandBase implements Cmd {
  constructor(
    readonly ref: number,
    readonly who: Who,
  ) {}
  check = (m: Readonly<Model>) => m.bookings.length > 0
  abstract command(b: ModelBooking, m: Model): BookingCommand
  /** The outcome the model expects, and the model booking after success. */
  abstract expect(b: ModelBooking, m: Model): Outcome
  abstract next(b: ModelBooking, m: Model): void
  readonly system: boolean = false

  run(m: Model, r: Real) {
    const b = m.bookings[this.ref % m.bookings.length]!
    const before = snapshot(r)
    const expected = this.expect(b, m)
    const actor = this.system ? SYSTEM_ACTOR : actorFor(b, this.who)
    const result = r.store.apply(b.id, this.command(b, m), r.now, actor)
    expect(outcomeOf(result), `${this.toString()} on ${b.status}`).toBe(expected)
    if (expected === "Success") this.next(b, m)
    checkInvariants(m, r, before, expected, b.id)
  }
  abstract readonly name: string
  toString = () => `${this.name}(b#${this.ref}${this.system ? "" : `, ${this.who}`})`
}

const organizerOrPin = (who: Who) => who === "organizer" || who === "pin"

class CancelCommand extends BookingCommandBase {
  readonly name = "Cancel"
  command = (): BookingCommand => ({ _tag: "Cancel" })
  expect(b: ModelBooking): Outcome {
    if (!(organizerOrPin(this.who) || this.who === "admin")) return "Forbidden"
    return b.status === "active" || b.status === "unpaid" ? "Success" : "IllegalTransition"
  }
  next = (b: ModelBooking) => void (b.status = "cancelled")
}

class CheckInCommand extends BookingCommandBase {
  readonly name = "CheckIn"
  command = (): BookingCommand => ({ _tag: "CheckIn" })
  expect(b: ModelBooking, m: Model): Outcome {
    if (!organizerOrPin(this.who)) return "Forbidden"
    if (b.status !== "active") return "IllegalTransition"
    return m.now >= b.start - 15 * MINUTE && m.now < b.end ? "Success" : "BookingRuleViolated"
  }
  next = (b: ModelBooking) => void (b.status = "checked-in")
}

class CheckOutCommand extends BookingCommandBase {
  readonly name = "CheckOut"
  command = (): BookingCommand => ({ _tag: "CheckOut" })
  expect(b: ModelBooking): Outcome {
    if (!organizerOrPin(this.who)) return "Forbidden"
    return b.status === "checked-in" ? "Success" : "IllegalTransition"
  }
  next = (b: ModelBooking) => void (b.status = "done")
}

class UpdateCommand extends BookingCommandBase {
  readonly name: string
  constructor(
    ref: number,
    who: Who,
    readonly startDelta: number,
    readonly endDelta: number,
  ) {
    super(ref, who)
    this.name = `Update[${startDelta},${endDelta}]`
  }
  private times = (b: ModelBooking) => ({
    start: b.start + this.startDelta * SLOT,
    end: b.end + this.endDelta * SLOT,
  })
  command = (b: ModelBooking): BookingCommand => ({ _tag: "Update", changes: this.times(b) })
  expect(b: ModelBooking, m: Model): Outcome {
    const { start, end } = this.times(b)
    if (!organizerOrPin(this.who)) return "Forbidden"
    if (b.status !== "active" && b.status !== "checked-in") return "IllegalTransition"
    if (b.status === "checked-in" && start !== b.start) return "IllegalTransition"
    if (end <= start) return "BookingRuleViolated"
    if (end !== b.end && end <= m.now) return "BookingRuleViolated"
    if (start === b.start && end === b.end) return "Success"
    if (start !== b.start && start < m.now) return "BookingRuleViolated"
    return modelSlotFree(m, b.asset, start, end, b.id) ? "Success" : "SlotTaken"
  }
  next = (b: ModelBooking) => {
    const { start, end } = this.times(b)
    b.start = start
    b.end = end
  }
}

abstract class SystemCommand extends BookingCommandBase {
  override readonly system = true
  constructor(ref: number) {
    super(ref, "admin")
  }
}

class PaymentCompletedCommand extends SystemCommand {
  readonly name = "PaymentCompleted"
  command = (): BookingCommand => ({ _tag: "PaymentCompleted" })
  expect = (b: ModelBooking): Outcome => (b.status === "unpaid" ? "Success" : "IllegalTransition")
  next = (b: ModelBooking) => void (b.status = "active")
}

class PaymentLapsedCommand extends SystemCommand {
  readonly name = "PaymentLapsed"
  command = (): BookingCommand => ({ _tag: "PaymentLapsed" })
  expect = (b: ModelBooking): Outcome => (b.status === "unpaid" ? "Success" : "IllegalTransition")
  next = (b: ModelBooking) => void (b.status = "cancelled")
}

class NoShowCommand extends SystemCommand {
  readonly name = "NoShowExpire"
  command = (): BookingCommand => ({ _tag: "NoShowExpire" })
  expect(b: ModelBooking, m: Model): Outcome {
    if (b.status !== "active") return "IllegalTransition"
    return m.now >= b.start + 15 * MINUTE ? "Success" : "BookingRuleViolated"
  }
  next = (b: ModelBooking) => void (b.status = "cancelled")
}

class EndCommand extends SystemCommand {
  readonly name = "End"
  command = (): BookingCommand => ({ _tag: "End" })
  expect(b: ModelBooking, m: Model): Outcome {
    if (b.status !== "active" && b.status !== "checked-in") return "IllegalTransition"
    return m.now >= b.end ? "Success" : "BookingRuleViolated"
  }
  next = (b: ModelBooking) => void (b.status = "done")
}

class RejectCommand extends SystemCommand {
  readonly name = "Reject"
  command = (): BookingCommand => ({ _tag: "Reject" })
  expect = (b: ModelBooking): Outcome => (modelLive(b.status) ? "Success" : "IllegalTransition")
  next = (b: ModelBooking) => void (b.status = "rejected")
}

const ref = fc.nat({ max: 50 })
const who = fc.oneof(
  { arbitrary: fc.constant<Who>("organizer"), weight: 4 },
  { arbitrary: fc.constant<Who>("pin"), weight: 3 },
  { arbitrary: fc.constantFrom<Who>("admin", "stranger", "wrongPin"), weight: 2 },
)

const create = fc
  .tuple(
    fc.integer({ min: 0, max: 1 }),
    fc.integer({ min: 0, max: 1 }),
    fc.integer({ min: -1, max: 10 }),
    fc.integer({ min: 1, max: 6 }),
    fc.boolean(),
  )
  .map(([a, o, s, l, p]) => new CreateCommand(a, o, s, l, p))
const clock = fc.integer({ min: 1, max: 90 }).map((n) => new AdvanceClockCommand(n))
const checkIn = fc.tuple(ref, who).map(([r, w]) => new CheckInCommand(r, w))
const checkOut = fc.tuple(ref, who).map(([r, w]) => new CheckOutCommand(r, w))
const update = fc
  .tuple(ref, who, fc.integer({ min: -3, max: 3 }), fc.integer({ min: -3, max: 3 }))
  .map(([r, w, s, e]) => new UpdateCommand(r, w, s, e))

// Listed twice: the frequent actions of real use, so sequences reach deep states.
const commandArbs: Array<fc.Arbitrary<Cmd>> = [
  create,
  create,
  clock,
  clock,
  checkIn,
  checkIn,
  checkOut,
  checkOut,
  update,
  update,
  fc.tuple(ref, who).map(([r, w]) => new CancelCommand(r, w)),
  ref.map((r) => new PaymentCompletedCommand(r)),
  ref.map((r) => new PaymentLapsedCommand(r)),
  ref.map((r) => new NoShowCommand(r)),
  ref.map((r) => new EndCommand(r)),
  ref.map((r) => new RejectCommand(r)),
]

/**
 * The lifecycle property: random command sequences against the store and the model.
 * Shared by the vitest suite and `npm run fuzz` (test/model/fuzz-cli.ts).
 */
export const lifecycleProperty = (maxCommands = 40) =>
  fc.property(fc.commands(commandArbs, { maxCommands, size: "large" }), (cmds) => {
    const setup = () => ({
      model: { now: T0, bookings: [] } satisfies Model,
      real: { store: new InMemoryBookingStore("Asia/Bangkok"), now: T0 } satisfies Real,
    })
    fc.modelRun(setup, cmds)
  })
