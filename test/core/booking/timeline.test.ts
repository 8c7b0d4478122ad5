import fc from "fast-check"
import { describe, expect, it } from "vitest"
import {
  applicableTick,
  type BookingStatus,
  compareTicks,
  defaultMeetingConfig,
  type MeetingConfig,
  type Tick,
  type TickEffect,
  tickKey,
  timeline,
  type TimelineBooking,
} from "../../../core/booking/timeline.ts"

const MIN = 60_000
const T0 = Date.UTC(2025, 2, 3, 2, 0) // 09:00 in Bangkok

const booking = (over: Partial<TimelineBooking> = {}): TimelineBooking => ({
  id: "b1",
  status: "active",
  start: T0,
  end: T0 + 60 * MIN,
  createdAt: T0 - 24 * 60 * MIN,
  checkedIn: false,
  ...over,
})

const kinds = (ticks: ReadonlyArray<Tick>) => ticks.map((t) => t.kind)
const find = (ticks: ReadonlyArray<Tick>, kind: Tick["kind"]): Tick => {
  const t = ticks.find((x) => x.kind === kind)
  if (t === undefined) throw new Error(`no ${kind} tick`)
  return t
}

const nextStatus = { NoShowExpire: "cancelled", End: "done", PaymentLapsed: "cancelled" } as const

/** What the scheduler does with an effect: transition the status or record the fired reminder. */
const applyEffect = (b: TimelineBooking, tick: Tick, effect: TickEffect): TimelineBooking => {
  switch (effect.kind) {
    case "transition":
      return { ...b, status: nextStatus[effect.command] }
    case "emit":
      return { ...b, firedTicks: [...(b.firedTicks ?? []), tickKey(tick)] }
    case "none":
      return b
  }
}

describe("scheduler ticks (spec: Scheduler ticks)", () => {
  it("an active booking gets pre-start, post-start-warn, post-start-expire, pre-end, end", () => {
    const ticks = timeline(booking(), defaultMeetingConfig)
    expect(ticks).toEqual([
      { kind: "pre-start", dueAt: T0 - 15 * MIN },
      { kind: "post-start-warn", dueAt: T0 + 10 * MIN },
      { kind: "post-start-expire", dueAt: T0 + 15 * MIN },
      { kind: "pre-end", dueAt: T0 + 45 * MIN },
      { kind: "end", dueAt: T0 + 60 * MIN },
    ])
  })

  it("an unpaid booking gets only the unpaid timeout, at the end of its payment window", () => {
    const unpaid = booking({ status: "unpaid", paymentExpiresAt: T0 - 100 * MIN })
    expect(timeline(unpaid, defaultMeetingConfig)).toEqual([
      { kind: "unpaid-timeout", dueAt: T0 - 100 * MIN },
    ])
  })

  it("the unpaid timeout defaults to about 5 minutes after create", () => {
    const unpaid = booking({ status: "unpaid", createdAt: T0 - 60 * MIN })
    expect(timeline(unpaid, defaultMeetingConfig)).toEqual([
      { kind: "unpaid-timeout", dueAt: T0 - 55 * MIN },
    ])
  })

  it("a checked-in booking gets only pre-end and end (no reminder, no no-show)", () => {
    const ticks = timeline(booking({ status: "checked-in", checkedIn: true }), defaultMeetingConfig)
    expect(kinds(ticks)).toEqual(["pre-end", "end"])
  })

  it("done, cancelled and rejected are terminal: no ticks", () => {
    for (const status of ["done", "cancelled", "rejected"] as const) {
      expect(timeline(booking({ status }), defaultMeetingConfig)).toEqual([])
    }
  })

  it("-1 disables that tick", () => {
    const config: MeetingConfig = {
      ...defaultMeetingConfig,
      preStartMinutes: -1,
      preEndMinutes: -1,
    }
    expect(kinds(timeline(booking(), config))).toEqual([
      "post-start-warn",
      "post-start-expire",
      "end",
    ])
  })

  it("with the no-show auto-cancel disabled there is no no-show warning either", () => {
    const config = { ...defaultMeetingConfig, postStartExpireMinutes: -1 }
    expect(kinds(timeline(booking(), config))).toEqual(["pre-start", "pre-end", "end"])
  })

  it("equal due times run the no-show cancel before the end", () => {
    const short = booking({ end: T0 + 15 * MIN })
    const ticks = timeline(short, { ...defaultMeetingConfig, preEndMinutes: 0 })
    expect(kinds(ticks).slice(-3)).toEqual(["post-start-expire", "end", "pre-end"])
  })

  it("ticks after the end are dropped: the end closes the booking first", () => {
    const short = booking({ end: T0 + 12 * MIN })
    expect(kinds(timeline(short, defaultMeetingConfig))).toEqual([
      "pre-start",
      "post-start-warn",
      "end",
    ])
  })

  it("a reminder due before the booking was created is skipped", () => {
    const late = booking({ createdAt: T0 - 5 * MIN })
    expect(kinds(timeline(late, defaultMeetingConfig))).not.toContain("pre-start")
  })
})

describe("applying a tick", () => {
  const ticks = timeline(booking(), defaultMeetingConfig)

  it("pre-start emits REMINDER with the configured minutesUntilStart, even when late", () => {
    const tick = find(ticks, "pre-start")
    const effect = applicableTick(booking(), defaultMeetingConfig, tick, tick.dueAt + 7 * MIN)
    expect(effect).toEqual({
      kind: "emit",
      event: { kind: "REMINDER", bookingId: "b1", at: tick.dueAt + 7 * MIN, minutesUntilStart: 15 },
    })
  })

  it("a stale reminder (the start it announces has passed) is skipped", () => {
    const tick = find(ticks, "pre-start")
    expect(applicableTick(booking(), defaultMeetingConfig, tick, T0)).toEqual({ kind: "none" })
  })

  it("preStartMinutes 0 is a reminder at the start (only -1 disables it): it fires within the start's minute", () => {
    const config = { ...defaultMeetingConfig, preStartMinutes: 0 }
    const tick = find(timeline(booking(), config), "pre-start")
    expect(tick.dueAt).toBe(booking().start)
    expect(applicableTick(booking(), config, tick, tick.dueAt)).toMatchObject({ kind: "emit", event: { kind: "REMINDER", minutesUntilStart: 0 } })
    expect(applicableTick(booking(), config, tick, tick.dueAt + MIN)).toEqual({ kind: "none" })
  })

  it("post-start-warn emits NO_SHOW_WARNING with minutes until the auto-cancel", () => {
    const tick = find(ticks, "post-start-warn")
    const effect = applicableTick(booking(), defaultMeetingConfig, tick, tick.dueAt)
    expect(effect).toMatchObject({
      kind: "emit",
      event: { kind: "NO_SHOW_WARNING", minutesUntilAutoCancel: 5 },
    })
  })

  it("pre-end emits ENDING_SOON with the configured minutesUntilEnd", () => {
    const tick = find(ticks, "pre-end")
    const effect = applicableTick(booking(), defaultMeetingConfig, tick, tick.dueAt)
    expect(effect).toMatchObject({
      kind: "emit",
      event: { kind: "ENDING_SOON", minutesUntilEnd: 15 },
    })
  })

  it("post-start-expire auto-cancels an active, un-checked-in booking (NoShowExpire)", () => {
    const tick = find(ticks, "post-start-expire")
    expect(applicableTick(booking(), defaultMeetingConfig, tick, tick.dueAt)).toEqual({
      kind: "transition",
      command: "NoShowExpire",
    })
  })

  it("check-in stops the no-show timer", () => {
    const tick = find(ticks, "post-start-expire")
    const checkedIn = booking({ status: "checked-in", checkedIn: true })
    const effect = applicableTick(checkedIn, defaultMeetingConfig, tick, tick.dueAt)
    expect(effect).toEqual({ kind: "none" })
  })

  it("end time reached moves active or checked-in to done (End), also when late", () => {
    const tick = find(ticks, "end")
    for (const b of [booking(), booking({ status: "checked-in", checkedIn: true })]) {
      expect(applicableTick(b, defaultMeetingConfig, tick, tick.dueAt + 60 * MIN)).toEqual({
        kind: "transition",
        command: "End",
      })
    }
  })

  it("payment window lapse cancels an unpaid booking (PaymentLapsed)", () => {
    const unpaid = booking({ status: "unpaid", paymentExpiresAt: T0 - 100 * MIN })
    const [tick] = timeline(unpaid, defaultMeetingConfig)
    expect(tick && applicableTick(unpaid, defaultMeetingConfig, tick, T0)).toEqual({
      kind: "transition",
      command: "PaymentLapsed",
    })
    const paid = { ...unpaid, status: "active" as const }
    expect(tick && applicableTick(paid, defaultMeetingConfig, tick, T0)).toEqual({ kind: "none" })
  })

  it("a tick fired early does nothing", () => {
    const tick = find(ticks, "end")
    const effect = applicableTick(booking(), defaultMeetingConfig, tick, tick.dueAt - 1)
    expect(effect).toEqual({ kind: "none" })
  })

  it("a tick of a booking that has since moved does nothing", () => {
    const tick = find(ticks, "end")
    const moved = booking({ end: T0 + 90 * MIN })
    expect(applicableTick(moved, defaultMeetingConfig, tick, tick.dueAt)).toEqual({ kind: "none" })
  })

  it("a reminder already fired does not fire again", () => {
    const tick = find(ticks, "pre-start")
    const fired = booking({ firedTicks: [tickKey(tick)] })
    expect(applicableTick(fired, defaultMeetingConfig, tick, tick.dueAt)).toEqual({ kind: "none" })
  })
})

describe("tick properties", () => {
  const minutesSetting = fc.oneof(fc.constant(-1), fc.integer({ min: 0, max: 180 }))
  const configArb: fc.Arbitrary<MeetingConfig> = fc.record({
    preStartMinutes: minutesSetting,
    postStartWarnMinutes: minutesSetting,
    postStartExpireMinutes: minutesSetting,
    preEndMinutes: minutesSetting,
  })
  const statusArb = fc.constantFrom<BookingStatus>(
    "unpaid",
    "active",
    "checked-in",
    "done",
    "cancelled",
    "rejected",
  )
  const bookingArb: fc.Arbitrary<TimelineBooking> = fc
    .record({
      status: statusArb,
      startMin: fc.integer({ min: 0, max: 60 * 24 * 30 }),
      durationMin: fc.integer({ min: 1, max: 60 * 24 * 2 }),
      leadMin: fc.integer({ min: 0, max: 60 * 24 * 3 }),
      payMin: fc.option(fc.integer({ min: 0, max: 10 }), { nil: undefined }),
      checkedIn: fc.boolean(),
    })
    .map((r) => {
      const start = T0 + r.startMin * MIN
      const createdAt = start - r.leadMin * MIN
      return {
        id: "b",
        status: r.status,
        start,
        end: start + r.durationMin * MIN,
        createdAt,
        paymentExpiresAt: r.payMin === undefined ? undefined : createdAt + r.payMin * MIN,
        checkedIn: r.status === "checked-in" || (r.status === "done" && r.checkedIn),
      }
    })

  it("ticks are sorted by dueAt, with a deterministic order for equal times", () => {
    fc.assert(
      fc.property(bookingArb, configArb, (b, c) => {
        const ticks = timeline(b, c)
        for (let i = 1; i < ticks.length; i++) {
          const prev = ticks[i - 1]
          const cur = ticks[i]
          if (prev && cur) expect(compareTicks(prev, cur)).toBeLessThan(0)
        }
      }),
    )
  })

  it("disabled ticks (-1) are absent", () => {
    fc.assert(
      fc.property(bookingArb, configArb, (b, c) => {
        const ks = kinds(timeline(b, c))
        if (c.preStartMinutes === -1) expect(ks).not.toContain("pre-start")
        if (c.postStartWarnMinutes === -1) expect(ks).not.toContain("post-start-warn")
        if (c.postStartExpireMinutes === -1) {
          expect(ks).not.toContain("post-start-expire")
          expect(ks).not.toContain("post-start-warn")
        }
        if (c.preEndMinutes === -1) expect(ks).not.toContain("pre-end")
      }),
    )
  })

  it("applying ticks twice, late, or after the booking moved on changes nothing", () => {
    fc.assert(
      fc.property(
        bookingArb,
        configArb,
        fc.array(fc.integer({ min: 0, max: 600 }), { minLength: 6, maxLength: 6 }),
        (initial, c, delays) => {
          let b = initial
          const ticks = timeline(initial, c)
          ticks.forEach((tick, i) => {
            const now = tick.dueAt + (delays[i] ?? 0) * MIN
            const effect = applicableTick(b, c, tick, now)
            b = applyEffect(b, tick, effect)
            // Applying the same tick again at once, or much later, does nothing more.
            expect(applicableTick(b, c, tick, now)).toEqual({ kind: "none" })
            expect(applicableTick(b, c, tick, now + 10_000 * MIN)).toEqual({ kind: "none" })
          })
          // The whole timeline replayed after the fact changes nothing either.
          for (const tick of ticks) {
            expect(applicableTick(b, c, tick, tick.dueAt + 10_000 * MIN)).toEqual({ kind: "none" })
          }
          // Every timeline ends in a terminal status when it has any transition at all.
          if (ticks.some((t) => t.kind === "end" || t.kind === "unpaid-timeout")) {
            expect(["done", "cancelled"]).toContain(b.status)
          }
        },
      ),
    )
  })

  it("a reminder never fires at or after the moment it announces", () => {
    fc.assert(
      fc.property(bookingArb, configArb, fc.integer({ min: 0, max: 600 }), (b, c, late) => {
        for (const tick of timeline(b, c)) {
          const now = tick.dueAt + late * MIN
          const effect = applicableTick(b, c, tick, now)
          if (effect.kind !== "emit") continue
          // A reminder at the start itself (preStartMinutes 0) has the start's minute.
          if (tick.kind === "pre-start") expect(now).toBeLessThan(b.start + (c.preStartMinutes === 0 ? MIN : 0))
          if (tick.kind === "pre-end") expect(now).toBeLessThan(b.end)
          if (tick.kind === "post-start-warn") {
            expect(now).toBeLessThan(b.start + c.postStartExpireMinutes * MIN)
          }
        }
      }),
    )
  })
})
