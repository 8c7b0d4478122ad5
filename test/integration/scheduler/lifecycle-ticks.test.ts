import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { ENGINES } from "../../support/databases.ts"
import { startHarness, type Harness } from "../../support/harness.ts"
import {
  advanceTo,
  book,
  eventsOf,
  local,
  schedulerManifest,
  setUpSchedulerWorld,
  statusOf,
  ticksOf,
  utc,
  type SchedulerWorld,
} from "./scheduler-fixtures.ts"

/**
 * Spec "Booking status" (automatic transitions), "Scheduler ticks", AssetConfig.meetingConfig
 * and the operator contract's clock advance, through the real app on the manual clock.
 *
 * The clock only moves forward, so every test books on a day of its own (`day`) and advances
 * through that day: earlier tests' bookings are long over by then.
 */
describe.each(ENGINES)("lifecycle ticks on %s", (engine) => {
  let h: Harness
  let w: SchedulerWorld
  let nextDay = 0
  beforeAll(async () => {
    h = await startHarness(engine)
    w = await setUpSchedulerWorld(h)
  })
  afterAll(async () => h?.close())

  /** Tick events of a booking (BOOK and MODIFY are the actions' own): "TYPE@utc". */
  const ticked = async (id: string) =>
    (await eventsOf(h, id)).filter((e) => !/_(BOOK|MODIFY)$/.test(e.type)).map((e) => `${e.type}@${e.at}`)
  const act = async (id: string, action: string) => {
    const res = await h.request("POST", `/meetings/${id}/${action}`, { token: await w.token() })
    expect(res.status, JSON.stringify(res.body)).toBe(202)
  }
  const patch = async (id: string, body: unknown) => {
    const res = await h.request("PATCH", `/meetings/${id}`, { token: await w.token(), body })
    expect(res.status, JSON.stringify(res.body)).toBe(200)
  }

  it("an active booking nobody checks in: reminder 15 min before, warning 10 after, auto-cancel 15 after start with reason no-show", async () => {
    const d = ++nextDay
    const m = await book(h, w, { room: "std" }, "10:00", "11:00", d)
    expect(m.status).toBe("active")
    await advanceTo(h, "09:44", d)
    expect(await ticked(m._id)).toEqual([])
    await advanceTo(h, "09:45", d)
    expect(await ticked(m._id)).toEqual([`ROOM_REMINDER@${utc("09:45", d)}`])
    await advanceTo(h, "10:10", d)
    expect(await statusOf(h, w, m._id)).toBe("active")
    await advanceTo(h, "10:14", d)
    expect(await statusOf(h, w, m._id)).toBe("active")
    await advanceTo(h, "10:15", d)
    expect(await statusOf(h, w, m._id)).toBe("cancelled")
    const events = await eventsOf(h, m._id)
    expect(events.filter((e) => !e.type.endsWith("_BOOK")).map((e) => `${e.type}@${e.at}`)).toEqual([
      `ROOM_REMINDER@${utc("09:45", d)}`,
      `ROOM_NO_SHOW_WARNING@${utc("10:10", d)}`,
      `ROOM_CANCEL@${utc("10:15", d)}`,
    ])
    expect(events.find((e) => e.type === "ROOM_REMINDER")!.event.minutesUntilStart).toBe(15)
    expect(events.find((e) => e.type === "ROOM_NO_SHOW_WARNING")!.event.minutesUntilAutoCancel).toBe(5)
    expect(events.find((e) => e.type === "ROOM_CANCEL")!.event.reason).toBe("no-show")
    const res = await h.request("GET", `/meetings/${m._id}`, { token: await w.token() })
    expect(res.body.data.histories.map((x: any) => x.action)).toContain("no-show")
    // Nothing left to fire; later advances add nothing.
    await advanceTo(h, "12:00", d)
    expect(await ticked(m._id)).toHaveLength(3)
    expect((await ticksOf(h, m._id)).filter((t) => t.state === "pending")).toEqual([])
  })

  it("a checked-in booking: no no-show ticks, ending soon 15 min before end, done at the end", async () => {
    const d = ++nextDay
    const m = await book(h, w, { room: "std" }, "10:00", "11:00", d)
    await advanceTo(h, "09:50", d)
    await act(m._id, "check-in")
    await advanceTo(h, "10:59", d)
    expect(await statusOf(h, w, m._id)).toBe("checked-in")
    await advanceTo(h, "11:00", d)
    expect(await statusOf(h, w, m._id)).toBe("done")
    expect(await ticked(m._id)).toEqual([`ROOM_REMINDER@${utc("09:45", d)}`, `ROOM_ENDING_SOON@${utc("10:45", d)}`])
    const ending = (await eventsOf(h, m._id)).find((e) => e.type === "ROOM_ENDING_SOON")!
    expect(ending.event.minutesUntilEnd).toBe(15)
  })

  it("an active booking with no-show auto-cancel disabled (-1): no warning, ending soon, done at the end", async () => {
    const d = ++nextDay
    const m = await book(h, w, { room: "no-expire" }, "10:00", "11:00", d)
    await advanceTo(h, "11:00", d)
    expect(await statusOf(h, w, m._id)).toBe("done")
    expect(await ticked(m._id)).toEqual([`ROOM_REMINDER@${utc("09:45", d)}`, `ROOM_ENDING_SOON@${utc("10:45", d)}`])
  })

  it("a meetingConfig the manifest changes holds for the next tick at once: no-show disabled after the reminder, no warning and no cancel", async () => {
    const d = ++nextDay
    await h.applyManifest(schedulerManifest({ rooms: 1 }))
    const roomId = (await h.admin("GET", "/manifest/ids")).body.data.projects.hq.rooms.r0
    const res = await h.request("POST", "/meetings", {
      token: await w.token(),
      body: { meetingRoomId: roomId, title: "Lifecycle", startDateTime: local("10:00", d), endDateTime: local("11:00", d) },
    })
    expect(res.status).toBe(201)
    const id = res.body.data._id
    await advanceTo(h, "09:45", d)
    expect(await ticked(id)).toEqual([`ROOM_REMINDER@${utc("09:45", d)}`])
    // Straight after the reminder (the config was just read for it): warning and auto-cancel off.
    await h.applyManifest(schedulerManifest({ rooms: 1, meetingConfig: { postStartWarnMinutes: -1, postStartExpireMinutes: -1 } }))
    await advanceTo(h, "10:30", d)
    expect(await statusOf(h, w, id)).toBe("active")
    expect(await ticked(id)).toEqual([`ROOM_REMINDER@${utc("09:45", d)}`])
  })

  it("preStartMinutes -1 disables the reminder", async () => {
    const d = ++nextDay
    const m = await book(h, w, { room: "no-pre" }, "10:00", "11:00", d)
    await advanceTo(h, "10:15", d)
    expect(await ticked(m._id)).toEqual([`ROOM_NO_SHOW_WARNING@${utc("10:10", d)}`, `ROOM_CANCEL@${utc("10:15", d)}`])
  })

  it("postStartWarnMinutes -1 disables the no-show warning, not the auto-cancel", async () => {
    const d = ++nextDay
    const m = await book(h, w, { room: "no-warn" }, "10:00", "11:00", d)
    await advanceTo(h, "10:15", d)
    expect(await ticked(m._id)).toEqual([`ROOM_REMINDER@${utc("09:45", d)}`, `ROOM_CANCEL@${utc("10:15", d)}`])
    expect(await statusOf(h, w, m._id)).toBe("cancelled")
  })

  it("preEndMinutes -1 disables ending soon; the end still closes the booking", async () => {
    const d = ++nextDay
    const m = await book(h, w, { room: "no-pre-end" }, "10:00", "11:00", d)
    await advanceTo(h, "09:55", d)
    await act(m._id, "check-in")
    await advanceTo(h, "11:00", d)
    expect(await ticked(m._id)).toEqual([`ROOM_REMINDER@${utc("09:45", d)}`])
    expect(await statusOf(h, w, m._id)).toBe("done")
  })

  it("custom meetingConfig timings are used (30 before, 5 and 20 after start, 5 before end)", async () => {
    const d = ++nextDay
    const m = await book(h, w, { room: "custom" }, "10:00", "11:00", d)
    await advanceTo(h, "10:20", d)
    const events = await eventsOf(h, m._id)
    expect(await ticked(m._id)).toEqual([
      `ROOM_REMINDER@${utc("09:30", d)}`,
      `ROOM_NO_SHOW_WARNING@${utc("10:05", d)}`,
      `ROOM_CANCEL@${utc("10:20", d)}`,
    ])
    expect(events.find((e) => e.type === "ROOM_REMINDER")!.event.minutesUntilStart).toBe(30)
    expect(events.find((e) => e.type === "ROOM_NO_SHOW_WARNING")!.event.minutesUntilAutoCancel).toBe(15)
  })

  it("desk bookings emit DESK_ events", async () => {
    const d = ++nextDay
    const m = await book(h, w, { desk: "d1" }, "10:00", "11:00", d)
    await advanceTo(h, "10:15", d)
    expect(await ticked(m._id)).toEqual([
      `DESK_REMINDER@${utc("09:45", d)}`,
      `DESK_NO_SHOW_WARNING@${utc("10:10", d)}`,
      `DESK_CANCEL@${utc("10:15", d)}`,
    ])
  })

  it("an unpaid booking is cancelled when the payment window (5 min) lapses, with reason payment-lapsed", async () => {
    const d = ++nextDay
    await advanceTo(h, "08:00", d)
    const m = await book(h, w, { room: "paid" }, "10:00", "11:00", d)
    expect(m.status).toBe("unpaid")
    await advanceTo(h, "08:04", d)
    expect(await statusOf(h, w, m._id)).toBe("unpaid")
    await advanceTo(h, "08:05", d)
    expect(await statusOf(h, w, m._id)).toBe("cancelled")
    const events = await eventsOf(h, m._id)
    expect(events.map((e) => `${e.type}@${e.at}`)).toEqual([`ROOM_CANCEL@${utc("08:05", d)}`])
    expect(events[0]!.event.reason).toBe("payment-lapsed")
    // An unpaid booking is not confirmed: no reminders for it, before or after the lapse.
    await advanceTo(h, "11:00", d)
    expect(await eventsOf(h, m._id)).toHaveLength(1)
  })

  it("a cancelled booking fires no tick", async () => {
    const d = ++nextDay
    const m = await book(h, w, { room: "std" }, "10:00", "11:00", d)
    await act(m._id, "cancel")
    expect((await ticksOf(h, m._id)).filter((t) => t.state === "pending")).toEqual([])
    await advanceTo(h, "12:00", d)
    expect(await ticked(m._id)).toEqual([`ROOM_CANCEL@${(await eventsOf(h, m._id))[1]!.at}`])
    expect(await statusOf(h, w, m._id)).toBe("cancelled")
  })

  it("a checked-out booking fires no ending soon and no end", async () => {
    const d = ++nextDay
    const m = await book(h, w, { room: "std" }, "10:00", "11:00", d)
    await advanceTo(h, "09:50", d)
    await act(m._id, "check-in")
    await advanceTo(h, "10:20", d)
    await act(m._id, "check-out")
    await advanceTo(h, "12:00", d)
    expect(await ticked(m._id)).toEqual([`ROOM_REMINDER@${utc("09:45", d)}`])
    const res = await h.request("GET", `/meetings/${m._id}`, { token: await w.token() })
    expect(res.body.data.histories.map((x: any) => x.action)).toEqual(["create", "check-in", "check-out"])
  })

  it("a rescheduled booking fires at its new times only", async () => {
    const d = ++nextDay
    const m = await book(h, w, { room: "std" }, "10:00", "11:00", d)
    await patch(m._id, { startDateTime: local("14:00", d), endDateTime: local("15:00", d) })
    await advanceTo(h, "11:00", d)
    expect(await ticked(m._id)).toEqual([])
    expect(await statusOf(h, w, m._id)).toBe("active")
    await advanceTo(h, "14:15", d)
    expect(await ticked(m._id)).toEqual([
      `ROOM_REMINDER@${utc("13:45", d)}`,
      `ROOM_NO_SHOW_WARNING@${utc("14:10", d)}`,
      `ROOM_CANCEL@${utc("14:15", d)}`,
    ])
  })

  it("an extended checked-in booking ends at its new end", async () => {
    const d = ++nextDay
    const m = await book(h, w, { room: "std" }, "10:00", "11:00", d)
    await advanceTo(h, "09:50", d)
    await act(m._id, "check-in")
    await advanceTo(h, "10:30", d)
    await patch(m._id, { endDateTime: local("12:00", d) })
    await advanceTo(h, "11:30", d)
    expect(await statusOf(h, w, m._id)).toBe("checked-in")
    await advanceTo(h, "12:00", d)
    expect(await statusOf(h, w, m._id)).toBe("done")
    expect(await ticked(m._id)).toEqual([`ROOM_REMINDER@${utc("09:45", d)}`, `ROOM_ENDING_SOON@${utc("11:45", d)}`])
  })

  it("a reminder already sent is not sent again after an update that keeps the times", async () => {
    const d = ++nextDay
    const m = await book(h, w, { room: "std" }, "10:00", "11:00", d)
    await advanceTo(h, "09:50", d)
    await patch(m._id, { title: "Renamed" })
    await advanceTo(h, "10:05", d)
    expect(await ticked(m._id)).toEqual([`ROOM_REMINDER@${utc("09:45", d)}`])
  })

  it("one advance over many ticks applies them all, in due order, before it answers", async () => {
    const d = ++nextDay
    const a = await book(h, w, { room: "std" }, "10:00", "10:30", d)
    const b = await book(h, w, { room: "no-expire" }, "09:30", "10:20", d)
    await advanceTo(h, "23:00", d)
    expect(await statusOf(h, w, a._id)).toBe("cancelled")
    expect(await statusOf(h, w, b._id)).toBe("done")
    const all = [...(await eventsOf(h, a._id)), ...(await eventsOf(h, b._id))]
      .filter((e) => !e.type.endsWith("_BOOK"))
      .sort((x, y) => x.at.localeCompare(y.at))
      .map((e) => `${e.type}@${e.at}`)
    expect(all).toEqual([
      `ROOM_REMINDER@${utc("09:15", d)}`,
      `ROOM_REMINDER@${utc("09:45", d)}`,
      `ROOM_ENDING_SOON@${utc("10:05", d)}`,
      `ROOM_NO_SHOW_WARNING@${utc("10:10", d)}`,
      `ROOM_CANCEL@${utc("10:15", d)}`,
    ])
    const res = await h.request("GET", `/meetings/${b._id}`, { token: await w.token() })
    const end = res.body.data.histories.find((x: any) => x.action === "end")
    expect(end).toBeDefined()
  })
})
