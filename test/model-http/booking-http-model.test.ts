import fc from "fast-check"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { ADMIN_TOKEN, CLOCK_START, startHarness, type Harness } from "../support/harness.ts"
import { formatAt } from "../fuzz/request-arbitraries.ts"
import { setUpFuzzWorld, type FuzzWorld } from "../fuzz/fuzz-world.ts"

/**
 * The bookings model of the use cases (test/model/booking-model.ts, in its
 * simplest form) driven through the real HTTP API on PostgreSQL with the manual clock. Every
 * response (status, code, booking status) is compared with the model, and after every command
 * the stored statuses of all bookings too. KEYSPACE_MODEL_RUNS sets the number of sequences.
 */
const RUNS = Number(process.env.KEYSPACE_MODEL_RUNS ?? 25)
const MIN = 60_000
const SLOT = 15 * MIN
const DAY = 24 * 60 * MIN

type Who = "organizer" | "pin" | "admin" | "stranger"
type Status = "active" | "checked-in" | "done" | "cancelled"

interface ModelBooking {
  readonly id: string
  readonly asset: number
  readonly start: number
  readonly end: number
  readonly pin: string
  status: Status
}
interface Model {
  now: number
  readonly dayStart: number
  readonly bookings: ModelBooking[]
}
interface Real {
  readonly h: Harness
  readonly w: FuzzWorld
}

const live = (s: Status) => s === "active" || s === "checked-in"

/** The scheduler's effect of moving the clock (defaults: no-show at +15 min, done at end). */
const applyTime = (m: Model) => {
  for (const b of m.bookings) {
    if (b.status === "active" && m.now >= b.start + 15 * MIN) b.status = "cancelled"
    else if (b.status === "checked-in" && m.now >= b.end) b.status = "done"
  }
}

const checkAll = async (m: Model, r: Real) => {
  for (const b of m.bookings) {
    const res = await r.h.request("GET", `/meetings/${b.id}`, { token: r.w.tokens.app })
    expect(res.body.data?.status, `stored status of ${b.id}`).toBe(b.status)
  }
}

type Cmd = fc.AsyncCommand<Model, Real>

class CreateCommand implements Cmd {
  constructor(readonly asset: number, readonly offset: number, readonly length: number) {}
  check = () => true
  async run(m: Model, r: Real) {
    const start = m.dayStart + this.offset * SLOT
    const end = start + this.length * SLOT
    const room = [r.w.hq.rooms.r1, r.w.hq.rooms.r2][this.asset]!
    const res = await r.h.request("POST", "/meetings", {
      token: r.w.tokens.app,
      body: { meetingRoomId: room, title: "model", startDateTime: formatAt(start, 420), endDateTime: formatAt(end, 420) },
    })
    const taken = m.bookings.some((b) => b.asset === this.asset && live(b.status) && b.start < end && start < b.end)
    const expected = start < m.now ? [400, "SV001"] : taken ? [409, "SV012"] : [201, "SV000"]
    expect([res.status, res.body.code], `${this}: ${JSON.stringify(res.body)}`).toEqual(expected)
    if (res.status === 201) {
      expect(res.body.data.status).toBe("active")
      m.bookings.push({ id: res.body.data._id, asset: this.asset, start, end, pin: res.body.data.pinCode, status: "active" })
    }
    await checkAll(m, r)
  }
  toString = () => `Create(room${this.asset}, +${this.offset * 15}m, ${this.length * 15}m)`
}

class ActionCommand implements Cmd {
  constructor(readonly action: "cancel" | "check-in" | "check-out", readonly index: number, readonly who: Who) {}
  check = (m: Readonly<Model>) => m.bookings.length > 0
  async run(m: Model, r: Real) {
    const b = m.bookings[this.index % m.bookings.length]!
    const token = this.who === "organizer" ? r.w.tokens.app : this.who === "admin" ? r.w.tokens.carol : r.w.tokens.alice
    const body = this.who === "pin" ? { pinCode: b.pin } : {}
    const res = await r.h.request("POST", `/meetings/${b.id}/${this.action}`, { token, body })
    const from = b.status
    const legal =
      this.action === "cancel" ? from === "active" : this.action === "check-in" ? from === "active" : from === "checked-in"
    const allowed = this.who === "organizer" || this.who === "pin" || (this.who === "admin" && this.action === "cancel")
    const what = `${this} on ${from} at +${(m.now - m.dayStart) / MIN}m (start +${(b.start - m.dayStart) / MIN}m): ${JSON.stringify(res.body)}`
    if (!allowed) {
      // A stranger is refused; whether the state or the rights are reported first is open.
      expect(legal ? [[403, "SV003"]] : [[403, "SV003"], [409, "SV006"], [410, "SV006"]], what).toContainEqual([res.status, res.body.code])
      expect(res.status).not.toBe(202)
    } else if (!legal) {
      expect([[409, "SV006"], [410, "SV006"]], what).toContainEqual([res.status, res.body.code])
    } else if (this.action === "check-in" && m.now < b.start - 15 * MIN) {
      expect([res.status, res.body.code], what).toEqual([400, "SV001"])
    } else {
      expect([res.status, res.body.code], what).toEqual([202, "SV000"])
      b.status = this.action === "cancel" ? "cancelled" : this.action === "check-in" ? "checked-in" : "done"
      expect(res.body.data.status, what).toBe(b.status)
    }
    await checkAll(m, r)
  }
  toString = () => `${this.action}(b${this.index}, ${this.who})`
}

class AdvanceCommand implements Cmd {
  constructor(readonly minutes: number) {}
  // Stays inside the local day, where the rooms are open.
  check = (m: Readonly<Model>) => m.now + this.minutes * MIN <= m.dayStart + 6 * 60 * MIN
  async run(m: Model, r: Real) {
    await r.h.advance(this.minutes)
    m.now += this.minutes * MIN
    applyTime(m)
    await checkAll(m, r)
  }
  toString = () => `Advance(${this.minutes}m)`
}

const commands = [
  fc.tuple(fc.nat(1), fc.nat(16), fc.integer({ min: 2, max: 8 })).map(([a, o, l]) => new CreateCommand(a, o, l)),
  fc.tuple(fc.constantFrom("cancel", "check-in", "check-out") as fc.Arbitrary<"cancel" | "check-in" | "check-out">, fc.nat(20), fc.constantFrom<Who>("organizer", "pin", "admin", "stranger"))
    .map(([a, i, w]) => new ActionCommand(a, i, w)),
  fc.integer({ min: 5, max: 45 }).map((m) => new AdvanceCommand(m)),
]

describe("bookings model over HTTP on PostgreSQL", () => {
  let h: Harness
  let w: FuzzWorld
  let day = 0
  beforeAll(async () => {
    h = await startHarness("postgres", { KEYSPACE_ACCESS_TOKEN_TTL: "604800", KEYSPACE_ACT_AS_TOKEN_TTL: "86400" })
  })
  afterAll(async () => h?.close())

  it("every response and every stored status matches the model", { timeout: 300_000 }, async () => {
    await fc.assert(
      fc.asyncProperty(fc.commands(commands, { maxCommands: 20 }), async (cmds) => {
        // Each sequence gets a fresh local day (09:00 +07:00), so earlier runs never overlap.
        day++
        const dayStart = Date.parse(CLOCK_START) + day * DAY
        const now = Date.parse((await h.admin("GET", "/clock")).body.data.now)
        await h.advance((dayStart - now) / MIN)
        // Tokens expire as days pass: a fresh set per sequence (the manifest is idempotent).
        w = await setUpFuzzWorld(h.request, ADMIN_TOKEN)
        await fc.asyncModelRun(() => ({ model: { now: dayStart, dayStart, bookings: [] }, real: { h, w } }), cmds)
      }),
      { numRuns: RUNS, endOnFailure: true },
    )
  })
})
