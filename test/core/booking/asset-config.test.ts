import { Result } from "effect"
import { describe, expect, it } from "vitest"
import {
  decodeAssetConfig,
  leadTimeMs,
  resolveMeetingConfig,
} from "../../../core/booking/asset-config.ts"

const ok = (input: unknown) => Result.isSuccess(decodeAssetConfig(input))
const failureMessage = (input: unknown): string => {
  const r = decodeAssetConfig(input)
  return Result.isFailure(r) ? r.failure.message : ""
}

describe("AssetConfig schema", () => {
  it("accepts the full spec shape", () => {
    expect(
      ok({
        dayConfig: {
          Mon: {
            availableTime: { start: "08:00:00", end: "18:00:00" },
            breakTimes: [{ start: "12:00:00", end: "13:00:00" }],
          },
          Sat: { availableTime: { start: "09:00:00", end: "12:00:00" } },
        },
        start: "08:00:00",
        end: "20:00:00",
        minimumLeadTime: { minutes: 30, hours: 1, days: 0 },
        maxAdvanceBookingDays: 30,
        maxDurationMinutes: 240,
        bookMultipleDayRoom: false,
        meetingConfig: {
          preStartMinutes: 15,
          postStartWarnMinutes: -1,
          postStartExpireMinutes: 15,
          preEndMinutes: 15,
        },
      }),
    ).toBe(true)
  })

  it("accepts an empty config (always open, no limits)", () => {
    expect(ok({})).toBe(true)
  })

  it("times must be HH:mm:ss (spec convention 4)", () => {
    expect(ok({ start: "08:00" })).toBe(false)
    expect(
      ok({ dayConfig: { Mon: { availableTime: { start: "8:00:00", end: "18:00:00" } } } }),
    ).toBe(false)
    expect(failureMessage({ end: "25:00:00" })).toContain("HH:mm:ss")
  })

  it("a range must end after it starts (no overnight ranges)", () => {
    expect(
      ok({ dayConfig: { Mon: { availableTime: { start: "18:00:00", end: "08:00:00" } } } }),
    ).toBe(false)
    expect(ok({ start: "18:00:00", end: "18:00:00" })).toBe(false)
  })

  it("meetingConfig ticks are integers >= -1 (-1 disables)", () => {
    expect(ok({ meetingConfig: { preStartMinutes: -1 } })).toBe(true)
    expect(ok({ meetingConfig: { preStartMinutes: -2 } })).toBe(false)
    expect(ok({ meetingConfig: { preStartMinutes: 1.5 } })).toBe(false)
  })

  it("unknown weekday keys are not weekdays", () => {
    const r = decodeAssetConfig({
      dayConfig: { Monday: { availableTime: { start: "08:00:00", end: "18:00:00" } } },
    })
    // Excess keys are dropped, so "Monday" configures nothing (the week stays closed).
    expect(Result.isSuccess(r) && r.success.dayConfig?.Mon).toBe(undefined)
  })
})

describe("meetingConfig defaults (15, 10, 15, 15)", () => {
  it("absent config resolves to the spec defaults", () => {
    expect(resolveMeetingConfig(undefined)).toEqual({
      preStartMinutes: 15,
      postStartWarnMinutes: 10,
      postStartExpireMinutes: 15,
      preEndMinutes: 15,
    })
  })

  it("each tick falls back independently; -1 is kept (disabled)", () => {
    expect(
      resolveMeetingConfig({ meetingConfig: { postStartExpireMinutes: -1, preEndMinutes: 5 } }),
    ).toEqual({
      preStartMinutes: 15,
      postStartWarnMinutes: 10,
      postStartExpireMinutes: -1,
      preEndMinutes: 5,
    })
  })

  it("minimumLeadTime sums days, hours and minutes; missing parts count 0", () => {
    expect(leadTimeMs({ minimumLeadTime: { days: 1, hours: 2, minutes: 3 } })).toBe(
      ((24 + 2) * 60 + 3) * 60_000,
    )
    expect(leadTimeMs({ minimumLeadTime: { hours: 1 } })).toBe(3_600_000)
    expect(leadTimeMs(undefined)).toBe(0)
  })
})
