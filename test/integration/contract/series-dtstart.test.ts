import { Result } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { expandOccurrences, parseRecurrenceRule } from "../../../core/booking/recurrence.ts"
import * as Interval from "../../../core/shared/interval.ts"
import { formatOffsetDateTime } from "../../../core/shared/local-time.ts"
import { startHarness, type Harness } from "../../support/harness.ts"
import { APP, at, bookRoom, qs, setUpWorld, type BookingWorld } from "../bookings/booking-fixtures.ts"

/** Re-expands a master from what it shows, as a client with an RFC 5545 library would. */
const reexpand = (master: any): string[] => {
  const rule = parseRecurrenceRule(master.recurrence)
  if (Result.isFailure(rule)) throw new Error(rule.failure.join("; "))
  const anchor = Interval.make(Date.parse(master.recurrenceStart), Date.parse(master.recurrenceEnd))
  return expandOccurrences({ masterId: master._id, rule: rule.success, anchor, timeZone: master.recurrenceTimeZone }).map(
    (o) => formatOffsetDateTime(o.start, master.recurrenceTimeZone),
  )
}

describe("a recurring series can be re-expanded from its master", () => {
  let h: Harness
  let w: BookingWorld
  beforeAll(async () => {
    h = await startHarness("pglite", { KEYSPACE_ACCESS_TOKEN_TTL: "604800", KEYSPACE_ACT_AS_TOKEN_TTL: "86400" })
    w = await setUpWorld(h)
  })
  afterAll(async () => h?.close())

  it("after occurrences pass, recurrence with recurrenceStart/End/TimeZone (DTSTART) reproduces exactly the series' occurrences", async () => {
    const created = await bookRoom(h, w.alice, w.hq.rooms.series, 1, "10:00", "11:00", { recurrence: "FREQ=WEEKLY;BYDAY=TU,TH;COUNT=5", title: "Standup" })
    expect(created.status).toBe(201)
    const id = created.body.data._id
    expect(created.body.data).toMatchObject({
      recurrence: "FREQ=WEEKLY;COUNT=5;BYDAY=TU,TH",
      recurrenceStart: at(1, "10:00"),
      recurrenceEnd: at(1, "11:00"),
      recurrenceTimeZone: "Asia/Bangkok",
    })
    // Two occurrences (Tue, Thu) pass: the master rolls forward, DTSTART does not.
    await h.advance(4 * 24 * 60)
    const token = await h.tokenFor(APP.appId, APP.appSecret)
    const master = (await h.request("GET", `/meetings/${id}`, { token })).body.data
    expect(master.startDateTime).toBe(at(8, "10:00"))
    expect(master.recurrenceStart).toBe(at(1, "10:00"))

    const listed = await h.request("GET", `/meetings?${qs({ from: at(-7, "00:00"), to: at(60, "00:00"), meetingRoomId: w.hq.rooms.series })}`, { token })
    const actual = listed.body.data.filter((m: any) => m._id === id).map((m: any) => m.startDateTime)
    expect(actual).toEqual([at(1, "10:00"), at(3, "10:00"), at(8, "10:00"), at(10, "10:00"), at(15, "10:00")])
    expect(reexpand(master)).toEqual(actual)
    // Expanded rows carry the same anchor; a single booking carries none of these fields.
    for (const row of listed.body.data.filter((m: any) => m._id === id)) expect(row.recurrenceStart).toBe(at(1, "10:00"))
    const single = await bookRoom(h, token, w.hq.rooms.orchid, 20, "10:00", "11:00")
    expect(single.body.data.recurrenceStart).toBeUndefined()
    expect(single.body.data.recurrenceTimeZone).toBeUndefined()
  })
})
