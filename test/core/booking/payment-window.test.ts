import { describe, expect, it } from "vitest"
import { createWindow, MIN_PAYMENT_WINDOW_MS } from "../../../core/booking/payment-window.ts"
import { defaultMeetingConfig, type MeetingConfig } from "../../../core/booking/timeline.ts"

const MINUTE = 60_000
const NOW = Date.UTC(2030, 0, 7, 2, 0)
const WINDOW = 30 * MINUTE
const config = (over: Partial<MeetingConfig> = {}): MeetingConfig => ({ ...defaultMeetingConfig, ...over })

/** Paying after a booking can no longer be used buys nothing: the window stops there. */
describe("a paid create's payment window", () => {
  it("is KEYSPACE_PAYMENT_WINDOW when the booking stays usable past it", () => {
    const w = createWindow({ start: NOW + 60 * MINUTE, end: NOW + 120 * MINUTE, config: config(), now: NOW, windowMs: WINDOW })
    expect(w).toEqual({ _tag: "Window", windowMs: WINDOW })
  })

  it("ends at the no-show deadline (postStartExpireMinutes after the start) when that comes first", () => {
    const c = config({ postStartExpireMinutes: 2 })
    const w = createWindow({ start: NOW + MINUTE, end: NOW + 60 * MINUTE, config: c, now: NOW, windowMs: WINDOW })
    expect(w).toEqual({ _tag: "Window", windowMs: 3 * MINUTE })
  })

  it("ends at the booking's end when the asset cancels no no-shows, or its deadline is past the end", () => {
    const off = createWindow({ start: NOW + MINUTE, end: NOW + 10 * MINUTE, config: config({ postStartExpireMinutes: -1 }), now: NOW, windowMs: WINDOW })
    expect(off).toEqual({ _tag: "Window", windowMs: 10 * MINUTE })
    const short = createWindow({ start: NOW + MINUTE, end: NOW + 3 * MINUTE, config: config({ postStartExpireMinutes: 15 }), now: NOW, windowMs: WINDOW })
    expect(short).toEqual({ _tag: "Window", windowMs: 3 * MINUTE })
  })

  it("is refused with less than a minute left, naming the field whose time is too close", () => {
    const atEnd = createWindow({ start: NOW - 30_000, end: NOW + 30_000, config: config({ postStartExpireMinutes: -1 }), now: NOW, windowMs: WINDOW })
    expect(atEnd._tag === "Refused" && atEnd.reason).toMatch(/^endDateTime: .*before it ends/)
    const atDeadline = createWindow({ start: NOW - 30_000, end: NOW + 60 * MINUTE, config: config({ postStartExpireMinutes: 1 }), now: NOW, windowMs: WINDOW })
    expect(atDeadline._tag === "Refused" && atDeadline.reason).toMatch(/^startDateTime: .*no-show deadline \(1 minutes/)
    const justEnough = createWindow({ start: NOW, end: NOW + MIN_PAYMENT_WINDOW_MS, config: config({ postStartExpireMinutes: -1 }), now: NOW, windowMs: WINDOW })
    expect(justEnough).toEqual({ _tag: "Window", windowMs: MIN_PAYMENT_WINDOW_MS })
  })
})
