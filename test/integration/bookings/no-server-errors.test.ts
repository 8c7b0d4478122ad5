import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { ENGINES } from "../../support/databases.ts"
import { startHarness, type Harness } from "../../support/harness.ts"
import { at, bookRoom, qs, setUpWorld, type BookingWorld } from "./booking-fixtures.ts"

/** Issue "Done when": no request a client can send to these endpoints produces a 500. */
describe.each(ENGINES)("hostile input never gives a 500 on %s", (engine) => {
  let h: Harness
  let w: BookingWorld
  let meetingId: string
  beforeAll(async () => {
    h = await startHarness(engine)
    w = await setUpWorld(h)
    meetingId = (await bookRoom(h, w.alice, w.hq.rooms.orchid, 1, "10:00", "11:00")).body.data._id
  })
  afterAll(async () => h?.close())

  const expectClientAnswer = (res: { status: number; body: any }, what: string) => {
    expect(res.status, `${what}: ${JSON.stringify(res.body)}`).toBeLessThan(500)
    if (res.status >= 400) expect(res.body.success, what).toBe(false)
  }

  it("hostile POST /meetings bodies answer 4xx or 2xx, never 5xx", async () => {
    const base = { meetingRoomId: w.hq.rooms.orchid, title: "x", startDateTime: at(2, "10:00"), endDateTime: at(2, "11:00") }
    const bodies: unknown[] = [
      null, 42, "text", [], {}, { ...base, title: "nul\u0000byte" }, { ...base, body: "\u0000" },
      { ...base, title: "lone \ud800 surrogate" }, { ...base, attendees: [{ email: "a\u0000@b.example" }] },
      { ...base, startDateTime: "9999-12-31T23:00:00+07:00", endDateTime: "9999-12-31T23:30:00-14:00" },
      { ...base, startDateTime: "0001-01-01T00:00:00Z", endDateTime: "0001-01-01T01:00:00Z" },
      { ...base, startDateTime: "2030-02-30T10:00:00Z" }, { ...base, endDateTime: "2030-01-08T24:00:00+07:00" },
      { ...base, startDateTime: "2030-01-08T10:00:00+99:99" }, { ...base, title: "x".repeat(100_000) },
      { ...base, attendees: Array.from({ length: 600 }, (_, i) => ({ email: `p${i}@x.example` })) },
      { ...base, attendees: [{ email: "p@x.example", id: "0123456789abcdef01234567" }] },
      { ...base, estimatedAttendance: 1e300 }, { ...base, estimatedAttendance: "3" },
      { ...base, recurrence: "FREQ=DAILY;UNTIL=99991231" }, { ...base, recurrence: "FREQ=WEEKLY;INTERVAL=366;COUNT=366" },
      { ...base, recurrence: ";;;=;=" }, { ...base, draft: true, draftEndDateTimes: ["0001-01-01T00:00:00Z"] },
      { ...base, discountCode: "\u0000" }, { ...base, meetingRoomId: { $ne: null } }, { ...base, __proto__: { x: 1 } },
      { deskId: w.hq.desks.d1, title: "x", startDateTime: "9999-12-31T10:00:00+07:00", timePeriod: "allDay" },
      { deskId: w.hq.desks.d1, title: "x", startDateTime: "1970-01-01T00:00:00Z", timePeriod: "morning" },
      // 9999-12-31 UTC is 10000-01-01 in Bangkok: a period of a day no date-time can name.
      { deskId: w.hq.desks.d1, title: "x", startDateTime: "9999-12-31T23:59:00Z", timePeriod: "morning" },
      { deskId: w.hq.desks.d1, title: "x", startDateTime: "9999-12-31T23:59:00Z", timePeriod: "allDay", draft: true },
    ]
    for (const body of bodies) {
      const res = await h.request("POST", "/meetings", { token: w.app, body: body === null ? "null" : body })
      expectClientAnswer(res, JSON.stringify(body)?.slice(90, 260) ?? String(body))
    }
  })

  it("hostile queries on the listing endpoints answer 4xx or 2xx, never 5xx", async () => {
    const paths = [
      `/meetings?${qs({ from: "0001-01-01T00:00:00Z", to: "9999-12-31T23:59:59Z" })}`,
      `/meetings?${qs({ from: at(0, "00:00"), to: at(1, "00:00"), limit: "000000003000", offset: "999999999" })}`,
      `/meetings?${qs({ from: at(0, "00:00"), to: at(1, "00:00"), organizerEmails: ["a'b@c.example"], attendeeEmails: ["%@_.x"] })}`,
      `/meetings?${qs({ from: at(0, "00:00"), to: at(1, "00:00"), meetingRoomIds: Array.from({ length: 500 }, () => "0123456789abcdef01234567") })}`,
      `/meetings?from=&to=&limit=-0`,
      `/meeting-rooms?${qs({ projectId: w.hq.id, name: "%_\\\u0000" })}`,
      `/meeting-rooms?${qs({ projectId: w.hq.id, name: "%_\\'" })}`,
      `/meeting-rooms?${qs({ projectId: w.hq.id, startDateTime: "9999-12-31T00:00:00Z", endDateTime: "9999-12-31T23:00:00Z" })}`,
      `/meeting-rooms?${qs({ projectId: w.hq.id, minCapacity: "99999999999999999999" })}`,
      `/desks?${qs({ startDateTime: "9999-12-31T00:00:00Z", timePeriod: "allDay" })}`,
      `/desks?${qs({ projectId: w.hq.id, startDateTime: "9999-12-31T23:59:00Z", timePeriod: "morning" })}`,
      `/desks?${qs({ startDateTime: "0001-01-01T00:00:00Z", timePeriod: "morning", email: "%" })}`,
      `/desks?limit=1e3&offset=0x10`,
      `/desks/${w.hq.desks.d1}?${qs({ from: "9999-12-31T00:00:00Z", to: "0001-01-01T00:00:00Z" })}`,
      `/meeting-rooms/${w.hq.rooms.orchid}?${qs({ from: "0001-01-01T00:00:00Z", to: "9999-12-31T00:00:00Z" })}`,
      `/meetings/${"f".repeat(24)}`,
      `/meetings/%00`,
    ]
    for (const path of paths) expectClientAnswer(await h.request("GET", path, { token: w.app }), path)
  })

  it("hostile PATCH and action bodies answer 4xx or 2xx, never 5xx", async () => {
    for (const body of [{}, "[]", "nul", { title: "\u0000" }, { startDateTime: "9999-12-31T23:00:00Z" }, { timePeriod: "allDay" }, { attendees: [{}] }, { pinCode: "\u0000" }]) {
      expectClientAnswer(await h.request("PATCH", `/meetings/${meetingId}`, { token: w.alice, body }), `PATCH ${JSON.stringify(body)}`)
    }
    for (const action of ["cancel", "check-in", "check-out"]) {
      for (const body of ["{", "[1]", { pinCode: "\u0000" }, { paymentId: "nope" }]) {
        expectClientAnswer(await h.request("POST", `/meetings/${meetingId}/${action}`, { token: w.bob, body }), `${action} ${JSON.stringify(body)}`)
      }
    }
    const desk = await h.request("POST", "/meetings", { token: w.alice, body: { deskId: w.hq.desks.d1, title: "x", startDateTime: at(2, "08:00"), timePeriod: "morning" } })
    expect(desk.status).toBe(201)
    const far = await h.request("PATCH", `/meetings/${desk.body.data._id}`, { token: w.alice, body: { startDateTime: "9999-12-31T23:59:00Z", timePeriod: "allDay" } })
    expect(far.status).toBe(400)
    expect(far.body.message).toEqual([expect.stringContaining("falls outside the years 0001-9999 in UTC")])
    expectClientAnswer(await h.admin("POST", `/meetings/${meetingId}/reject`, [1]), "reject array")
    expectClientAnswer(await h.admin("POST", `/meetings/${meetingId}/reject`, { reason: "\u0000" }), "reject nul")
  })
})
