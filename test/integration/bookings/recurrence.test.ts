import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { ENGINES } from "../../support/databases.ts"
import { startHarness, type Harness } from "../../support/harness.ts"
import { actAsToken, at, bookRoom, qs, setUpWorld, type BookingWorld } from "./booking-fixtures.ts"

describe.each(ENGINES)("recurring series (spec Meetings rules 7-8) on %s", (engine) => {
  let h: Harness
  let w: BookingWorld
  let master: any
  beforeAll(async () => {
    h = await startHarness(engine)
    w = await setUpWorld(h)
  })
  afterAll(async () => h?.close())

  const list = async (from: string, to: string, extra: Record<string, any> = {}) => {
    const res = await h.request("GET", `/meetings?${qs({ from, to, meetingRoomId: w.hq.rooms.series, ...extra })}`, { token: w.alice })
    expect(res.status).toBe(200)
    return res.body
  }
  const series = (token: string, day: number, from: string, to: string, rrule: string, room = w.hq.rooms.series) =>
    bookRoom(h, token, room, day, from, to, { recurrence: rrule, title: "Standup" })

  it("a room booking with a recurrence RRULE creates a series master", async () => {
    const res = await series(w.alice, 1, "10:00", "11:00", "RRULE:FREQ=DAILY;COUNT=5")
    expect(res.status).toBe(201)
    master = res.body.data
    expect(master).toMatchObject({ status: "active", startDateTime: at(1, "10:00"), endDateTime: at(1, "11:00"), recurrence: "FREQ=DAILY;COUNT=5" })
    expect(master.seriesMasterId).toBeUndefined()
  })

  it("GET /meetings expands one row per occurrence overlapping the window, with seriesMasterId and occurrenceEventId", async () => {
    const body = await list(at(1, "00:00"), at(4, "00:00"))
    expect(body.meta.total).toBe(3)
    expect(body.data.map((m: any) => m.startDateTime)).toEqual([at(1, "10:00"), at(2, "10:00"), at(3, "10:00")])
    for (const row of body.data) {
      expect(row._id).toBe(master._id)
      expect(row.seriesMasterId).toBe(master._id)
      expect(row.status).toBe("active")
    }
    const occurrenceIds = body.data.map((m: any) => m.occurrenceEventId)
    expect(new Set(occurrenceIds).size).toBe(3)
    // Stable: the same occurrence has the same id in another window.
    const again = await list(at(2, "00:00"), at(3, "00:00"))
    expect(again.data[0].occurrenceEventId).toBe(occurrenceIds[1])
  })

  it("occurrence rows keep their real start and end, never truncated to the window", async () => {
    const body = await list(at(2, "10:15"), at(2, "10:30"))
    expect(body.data).toHaveLength(1)
    expect(body.data[0]).toMatchObject({ startDateTime: at(2, "10:00"), endDateTime: at(2, "11:00") })
  })

  it("every occurrence is protected from overlap like a single booking (409 SV012)", async () => {
    const single = await bookRoom(h, w.bob, w.hq.rooms.series, 4, "10:30", "11:30")
    expect(single.status).toBe(409)
    expect(single.body.code).toBe("SV012")
    expect((await bookRoom(h, w.bob, w.hq.rooms.series, 6, "10:30", "11:30")).status).toBe(201)
  })

  it("a series with one colliding occurrence is refused whole", async () => {
    const before = (await list(at(0, "00:00"), at(20, "00:00"))).meta.total
    const res = await series(w.bob, 8, "10:30", "11:00", "FREQ=DAILY;INTERVAL=2;COUNT=3")
    // day 8 free, day 10 free, day 12 free: accepted
    expect(res.status).toBe(201)
    const clash = await series(w.bob, 5, "10:00", "11:00", "FREQ=DAILY;COUNT=3") // day 6 holds bob's 10:30
    expect(clash.status).toBe(409)
    expect((await list(at(0, "00:00"), at(20, "00:00"))).meta.total).toBe(before + 3)
  })

  it("WEEKLY with BYDAY expands on the listed weekdays", async () => {
    const res = await series(w.carol, 14, "15:00", "16:00", "FREQ=WEEKLY;BYDAY=MO,WE;COUNT=4")
    expect(res.status).toBe(201)
    const body = await list(at(14, "00:00"), at(40, "00:00"), { organizerId: w.hq.users.carol })
    expect(body.data.map((m: any) => m.startDateTime)).toEqual([at(14, "15:00"), at(16, "15:00"), at(21, "15:00"), at(23, "15:00")])
  })

  it("an invalid or unsupported RRULE is 400 SV001 with one message per problem", async () => {
    for (const rule of ["FREQ=MONTHLY;COUNT=2", "FREQ=DAILY", "FREQ=DAILY;COUNT=2;UNTIL=20300201", "FREQ=DAILY;COUNT=0;BYDAY=XX", "nonsense"]) {
      const res = await series(w.alice, 20, "10:00", "11:00", rule)
      expect(res.status, rule).toBe(400)
      expect(res.body.code).toBe("SV001")
      expect(res.body.message.every((m: string) => m.startsWith("recurrence:")), rule).toBe(true)
    }
  })

  it("a rule's faults are named beside the body's and the times' faults: one 400, a message each", async () => {
    const untitled = await bookRoom(h, w.alice, w.hq.rooms.series, 20, "10:00", "11:00", { recurrence: "FREQ=MONTHLY;COUNT=0", title: "" })
    expect(untitled.status).toBe(400)
    expect(untitled.body.message).toEqual(expect.arrayContaining(["title: must not be empty"]))
    expect(untitled.body.message.filter((m: string) => m.startsWith("recurrence:")).length).toBeGreaterThanOrEqual(2)
    const backwards = await bookRoom(h, w.alice, w.hq.rooms.series, 20, "11:00", "10:00", { recurrence: "FREQ=MONTHLY;COUNT=0", title: "Standup" })
    expect(backwards.status).toBe(400)
    expect(backwards.body.message).toEqual(expect.arrayContaining(["endDateTime must be after startDateTime"]))
    expect(backwards.body.message.filter((m: string) => m.startsWith("recurrence:")).length).toBeGreaterThanOrEqual(2)
  })

  it("a rule many occurrences break is one message naming their dates, and one the first occurrence breaks is named once", async () => {
    // Lotus is closed at weekends: a daily series of 30 breaks its hours on 8 weekend days.
    const weekends = await series(w.alice, 1, "09:00", "09:30", "FREQ=DAILY;COUNT=30", w.hq.rooms.lotus)
    expect(weekends.status).toBe(400)
    const hours = weekends.body.message.filter((m: string) => m.includes("not bookable on"))
    expect(hours.length).toBeLessThanOrEqual(2) // one per distinct rule text (Saturday, Sunday)
    expect(hours.join()).toMatch(/^recurrence: occurrences on \d{4}-\d{2}-\d{2}, \d{4}-\d{2}-\d{2}, \d{4}-\d{2}-\d{2} and \d+ more: /)
    // A weekly series of Saturdays: the booking itself is named closed, its occurrences not again.
    const saturdays = await series(w.alice, 5, "09:00", "09:30", "FREQ=WEEKLY;COUNT=3", w.hq.rooms.lotus)
    expect(saturdays.status).toBe(400)
    expect(saturdays.body.message.filter((m: string) => m.includes("not bookable on Sat"))).toEqual([expect.not.stringMatching(/^recurrence:/)])
    const backwards = await series(w.alice, 1, "11:00", "10:00", "FREQ=DAILY;COUNT=366")
    expect(backwards.status).toBe(400)
    expect(backwards.body.message).toEqual(["endDateTime must be after startDateTime"])
  })

  it("an UNTIL that runs past 366 occurrences or 366 days is 400 SV001, as COUNT 367 is, not cut short silently", async () => {
    for (const rule of ["FREQ=DAILY;UNTIL=99991231", "FREQ=WEEKLY;UNTIL=20320101T000000Z"]) {
      const res = await series(w.alice, 30, "10:00", "11:00", rule)
      expect(res.status, rule).toBe(400)
      expect(res.body.message).toEqual(["recurrence: UNTIL runs past the limit of 366 occurrences within 366 days of the first"])
    }
  })

  it("a COUNT whose occurrences run past 366 days (a large INTERVAL) is 400 SV001, not stored as a COUNT the series does not have", async () => {
    for (const [rule, within] of [["FREQ=WEEKLY;COUNT=60", 53], ["FREQ=DAILY;INTERVAL=366;COUNT=2", 1]] as const) {
      const res = await series(w.alice, 30, "10:00", "11:00", rule)
      expect(res.status, rule).toBe(400)
      expect(res.body.message).toEqual([`recurrence: ${rule.split(";").at(-1)} runs past the limit of 366 days: ${within} occurrences start within 366 days of the first`])
    }
  })

  it("every occurrence starts within maxAdvanceBookingDays (spec rule 2), named once at the first beyond it", async () => {
    // The rules room takes bookings at most 7 days ahead; the second weekly occurrence is 8 days out.
    const res = await series(w.alice, 1, "10:00", "11:00", "FREQ=WEEKLY;COUNT=3", w.hq.rooms.rules)
    expect(res.status).toBe(400)
    expect(res.body.message).toEqual([
      `recurrence: occurrence on ${at(8, "10:00").slice(0, 10)} and later: startDateTime must be within 7 days from today (maxAdvanceBookingDays)`,
    ])
    // Within the window the same series is taken.
    expect((await series(w.alice, 1, "10:00", "11:00", "FREQ=DAILY;COUNT=4;BYDAY=MO,TU,WE,TH,FR", w.hq.rooms.rules)).status).toBe(201)
  })

  it("a series draft judges each candidate end over every occurrence: a later occurrence's taken slot makes the candidate SLOT_TAKEN, as the create would be 409", async () => {
    expect((await bookRoom(h, w.bob, w.hq.rooms.series, 42, "14:00", "15:00")).status).toBe(201)
    const res = await bookRoom(h, w.alice, w.hq.rooms.series, 40, "14:00", "14:30", {
      recurrence: "FREQ=DAILY;COUNT=3",
      title: "Standup",
      draft: true,
      draftEndDateTimes: [at(40, "14:30"), at(40, "13:00")],
    })
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    // The series as asked overlaps Bob's booking on its third day.
    expect(res.body.data).toMatchObject({ available: false, unavailableReason: "SLOT_TAKEN", occurrences: 3 })
    expect(res.body.data.draftEndDateTimes[0]).toMatchObject({ available: false, unavailableReason: "SLOT_TAKEN" })
    const create = await series(w.alice, 40, "14:00", "14:30", "FREQ=DAILY;COUNT=3")
    expect(create.status).toBe(409)
  })

  it("each occurrence must satisfy the room's hours (400 SV001)", async () => {
    const res = await series(w.alice, 1, "09:00", "09:30", "FREQ=DAILY;COUNT=7", w.hq.rooms.lotus)
    expect(res.status).toBe(400)
    expect(res.body.message.join()).toContain("not bookable on Sat")
  })

  it("recurring series are for free rooms only", async () => {
    const res = await series(w.alice, 1, "09:00", "09:30", "FREQ=DAILY;COUNT=2", w.hq.rooms.jasmine)
    expect(res.status).toBe(400)
  })

  it("PATCH changes shared fields of the series; its times cannot be changed", async () => {
    const res = await h.request("PATCH", `/meetings/${master._id}`, { token: w.alice, body: { title: "Daily standup" } })
    expect(res.status).toBe(200)
    const body = await list(at(1, "00:00"), at(4, "00:00"))
    expect(body.data.every((m: any) => m.title === "Daily standup")).toBe(true)
    const move = await h.request("PATCH", `/meetings/${master._id}`, { token: w.alice, body: { endDateTime: at(1, "11:30") } })
    expect(move.status).toBe(400)
  })

  it("a PATCH naming an occurrence, or a new rule, is 400 SV001, not a silent change of the whole series", async () => {
    const rows = (await list(at(1, "00:00"), at(4, "00:00"))).data
    const one = await h.request("PATCH", `/meetings/${master._id}`, { token: w.alice, body: { occurrenceEventId: rows[1].occurrenceEventId, title: "Only one" } })
    expect(one.status).toBe(400)
    expect(one.body.message).toEqual([expect.stringMatching(/^occurrenceEventId: a PATCH changes the whole booking/)])
    const rule = await h.request("PATCH", `/meetings/${master._id}`, { token: w.alice, body: { recurrence: "FREQ=WEEKLY;COUNT=2" } })
    expect(rule.status).toBe(400)
    expect(rule.body.message).toEqual([expect.stringMatching(/^recurrence: is given when a series is booked and cannot be set or changed by PATCH/)])
    expect((await list(at(1, "00:00"), at(4, "00:00"))).data.every((m: any) => m.title === "Daily standup")).toBe(true)
  })

  it("actions take the master id and act on the current occurrence", async () => {
    const res = await h.request("POST", `/meetings/${master._id}/cancel`, { token: w.alice })
    expect(res.status).toBe(202)
    expect(res.body.data).toMatchObject({ _id: master._id, status: "cancelled", startDateTime: at(1, "10:00") })
    expect(res.body.data.histories.at(-1)).toMatchObject({ action: "cancel", occurrenceEventId: expect.stringContaining(master._id) })
    const body = await list(at(1, "00:00"), at(3, "00:00"))
    expect(body.data.map((m: any) => m.status)).toEqual(["cancelled", "active"])
    // The cancelled occurrence's slot is free again.
    expect((await bookRoom(h, w.bob, w.hq.rooms.series, 1, "10:00", "11:00")).status).toBe(201)
  })

  it("cancel acts on the current occurrence (a repeated cancel is 409, never the next one's cancel); an action may name an occurrence by its occurrenceEventId; an update is not blocked by a cancelled current occurrence", async () => {
    const own = (await series(w.alice, 10, "14:00", "15:00", "FREQ=DAILY;COUNT=4")).body.data
    const cancel = (body?: Record<string, unknown>) =>
      h.request("POST", `/meetings/${own._id}/cancel`, { token: w.alice, ...(body ? { body } : {}) })
    const first = await cancel()
    expect(first.status).toBe(202)
    expect(first.body.data).toMatchObject({ status: "cancelled", startDateTime: at(10, "14:00") })
    // A double-click or a retry: the current occurrence is cancelled already.
    const again = await cancel()
    expect(again.status).toBe(409)
    expect(again.body.code).toBe("SV006")
    const rows = (await list(at(10, "00:00"), at(14, "00:00"))).data.filter((m: any) => m._id === own._id)
    const [, second, third] = rows.map((m: any) => m.occurrenceEventId)
    for (const [id, day] of [[second, 11], [third, 12]] as const) {
      const named = await cancel({ occurrenceEventId: id })
      expect(named.status, JSON.stringify(named.body)).toBe(202)
      expect(named.body.data).toMatchObject({ status: "cancelled", startDateTime: at(day, "14:00") })
    }
    expect((await cancel({ occurrenceEventId: second })).status).toBe(409)
    const unknown = await cancel({ occurrenceEventId: `${own._id}_1` })
    expect(unknown.status).toBe(400)
    expect(unknown.body.message).toEqual(["occurrenceEventId: is not an occurrence of this meeting"])
    const renamed = await h.request("PATCH", `/meetings/${own._id}`, { token: w.alice, body: { title: "Standup v2" } })
    expect(renamed.status, JSON.stringify(renamed.body)).toBe(200)
    const body = await list(at(10, "00:00"), at(14, "00:00"))
    expect(body.data.filter((m: any) => m._id === own._id).map((m: any) => m.status)).toEqual(["cancelled", "cancelled", "cancelled", "active"])
  })

  it("GET /meetings/{id} returns the master, whose start and end roll forward to the current occurrence", async () => {
    await h.advance(2 * 24 * 60 + 50) // Wednesday 09:50
    const alice = await actAsToken(h, "ext-alice") // delegated tokens live 15 minutes
    w = { ...w, alice }
    const res = await h.request("GET", `/meetings/${master._id}`, { token: alice })
    expect(res.status).toBe(200)
    expect(res.body.data).toMatchObject({ _id: master._id, status: "active", startDateTime: at(2, "10:00"), endDateTime: at(2, "11:00") })
    const checkIn = await h.request("POST", `/meetings/${master._id}/check-in`, { token: alice })
    expect(checkIn.status).toBe(202)
    expect(checkIn.body.data).toMatchObject({ status: "checked-in", startDateTime: at(2, "10:00") })
    const body = await list(at(2, "00:00"), at(4, "00:00"))
    expect(body.data.map((m: any) => m.status)).toEqual(["checked-in", "active"])
  })
})
