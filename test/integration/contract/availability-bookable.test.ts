import { describe, expect, it } from "vitest"
import { at, qs, bookingWorldOn } from "../bookings/booking-fixtures.ts"

// The harness clock is Monday 2030-01-07 09:00 +07:00; at(day, "HH:mm") is local to that week.
const WINDOWS: Array<[string, string, string]> = [
  ["in the past", at(0, "07:00"), at(0, "08:00")],
  ["inside Rules Room's 2 h lead time", at(0, "10:00"), at(0, "10:30")],
  ["an ordinary hour tomorrow", at(1, "09:00"), at(1, "10:00")],
  ["beyond Rules Room's 7 advance days", at(10, "10:00"), at(10, "11:00")],
  ["longer than Rules Room's 120 minutes", at(1, "09:00"), at(1, "12:00")],
  ["across two days", at(1, "10:00"), at(2, "10:00")],
  ["after Lotus's hours", at(1, "19:00"), at(1, "20:00")],
  ["over Lotus's lunch break", at(1, "12:00"), at(1, "12:30")],
]

describe("availability search offers only what can be booked", () => {
  const world = bookingWorldOn("pglite")

  const draft = (body: Record<string, unknown>) =>
    world.h.request("POST", "/meetings", { token: world.w.alice, body: { title: "probe", draft: true, ...body } })

  it("a room offered without unavailableReason can be booked for the window; every room left out cannot", async () => {
    const all = (await world.h.request("GET", `/meeting-rooms?${qs({ projectId: world.w.hq.id })}`, { token: world.w.app })).body.data
    expect(all.map((r: any) => r.name)).toContain("Closed Room")
    for (const [label, startDateTime, endDateTime] of WINDOWS) {
      const res = await world.h.request("GET", `/meeting-rooms?${qs({ projectId: world.w.hq.id, startDateTime, endDateTime })}`, { token: world.w.app })
      expect(res.status, label).toBe(200)
      const offered = new Map<string, any>(res.body.data.map((r: any) => [r._id, r]))
      for (const room of all) {
        const create = await draft({ meetingRoomId: room._id, startDateTime, endDateTime })
        const shown = offered.get(room._id)
        if (shown === undefined) expect(create.status, `${label}: ${room.name} left out but bookable`).toBe(400)
        else if (shown.unavailableReason === undefined) expect(create.status, `${label}: ${room.name} offered but ${JSON.stringify(create.body.message)}`).toBe(200)
        else {
          expect(["OPERATING_HOURS", "BREAK_TIME"]).toContain(shown.unavailableReason)
          expect(create.status, `${label}: ${room.name} has a reason but is bookable`).toBe(400)
        }
      }
    }
  })

  it("inactive rooms, windows in the past and windows across days are left out entirely", async () => {
    const names = async (startDateTime: string, endDateTime: string) =>
      (await world.h.request("GET", `/meeting-rooms?${qs({ projectId: world.w.hq.id, startDateTime, endDateTime })}`, { token: world.w.app })).body.data.map((r: any) => r.name)
    expect(await names(at(1, "09:00"), at(1, "10:00"))).not.toContain("Closed Room")
    expect(await names(at(0, "07:00"), at(0, "08:00"))).toEqual([])
    expect(await names(at(1, "10:00"), at(2, "10:00"))).toEqual([])
    expect(await names(at(0, "10:00"), at(0, "10:30"))).not.toContain("Rules Room")
    // Hours and breaks keep the spec's reason: still listed, marked not bookable.
    const evening = await world.h.request("GET", `/meeting-rooms?${qs({ projectId: world.w.hq.id, startDateTime: at(1, "19:00"), endDateTime: at(1, "20:00") })}`, { token: world.w.app })
    expect(evening.body.data.find((r: any) => r.name === "Lotus").unavailableReason).toBe("OPERATING_HOURS")
  })

  it("a desk offered can be booked for the window; suspended desks and broken windows are left out, meta.total agrees", async () => {
    const all = (await world.h.request("GET", `/desks?${qs({ projectId: world.w.hq.id })}`, { token: world.w.app })).body.data
    expect(all.map((d: any) => d.name)).toContain("Desk 4")
    const windows = [...WINDOWS, ["before the desks open", at(1, "07:00"), at(1, "08:00")] as [string, string, string]]
    for (const [label, startDateTime, endDateTime] of windows) {
      const res = await world.h.request("GET", `/desks?${qs({ projectId: world.w.hq.id, startDateTime, endDateTime, limit: 1 })}`, { token: world.w.app })
      expect(res.status, label).toBe(200)
      const full = await world.h.request("GET", `/desks?${qs({ projectId: world.w.hq.id, startDateTime, endDateTime })}`, { token: world.w.app })
      expect(res.body.meta.total, label).toBe(full.body.data.length)
      const offered = new Set(full.body.data.map((d: any) => d._id))
      for (const desk of all) {
        const create = await draft({ deskId: desk._id, startDateTime, endDateTime })
        expect(create.status, `${label}: ${desk.name} ${offered.has(desk._id) ? "offered" : "left out"}: ${JSON.stringify(create.body.message)}`).toBe(offered.has(desk._id) ? 200 : 400)
      }
    }
    // The timePeriod form too: a period already over today is left out, tomorrow's is offered.
    const morningToday = await world.h.request("GET", `/desks?${qs({ projectId: world.w.hq.id, startDateTime: at(0, "13:00"), timePeriod: "morning" })}`, { token: world.w.app })
    expect(morningToday.body).toMatchObject({ data: [], meta: { total: 0 } })
    const tomorrow = await world.h.request("GET", `/desks?${qs({ projectId: world.w.hq.id, startDateTime: at(1, "00:00"), timePeriod: "allDay" })}`, { token: world.w.app })
    expect(tomorrow.body.data.map((d: any) => d.name)).toEqual(["Desk 1", "Desk 2", "Desk 3"])
  })
})
