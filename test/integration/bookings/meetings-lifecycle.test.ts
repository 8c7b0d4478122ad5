import { asc, eq } from "drizzle-orm"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { outboxEventsTable } from "../../../adapters/postgres/schema.ts"
import { ENGINES } from "../../support/databases.ts"
import { startHarness, type Harness } from "../../support/harness.ts"
import { at, bookRoom, qs, setUpWorld, type BookingWorld } from "./booking-fixtures.ts"

describe.each(ENGINES)("meeting lifecycle on %s", (engine) => {
  let h: Harness
  let w: BookingWorld
  beforeAll(async () => {
    h = await startHarness(engine)
    w = await setUpWorld(h)
  })
  afterAll(async () => h?.close())

  // The clock stands at Monday 09:00; one-minute bookings from 09:01 to 09:15 are all inside
  // their check-in window (it opens 15 minutes before the start) and none has ended. Rooms
  // rotate so there are enough of them.
  let slot = 0
  const checkInable = async (token = w.alice) => {
    const rooms = [w.hq.rooms.orchid, w.hq.rooms.bed, w.hq.rooms.series]
    const room = rooms[slot % rooms.length]
    const minute = 1 + Math.floor(slot / rooms.length)
    slot++
    if (minute > 14) throw new Error("out of check-in-able slots")
    const m = String(minute).padStart(2, "0")
    const n = String(minute + 1).padStart(2, "0")
    const res = await bookRoom(h, token, room, 0, `09:${m}`, `09:${n}`)
    expect(res.status).toBe(201)
    return res.body.data as { _id: string; pinCode: string }
  }
  const act = (id: string, action: string, token: string, body?: unknown) =>
    h.request("POST", `/meetings/${id}/${action}`, { token, ...(body === undefined ? {} : { body }) })
  const patch = (id: string, token: string, body: unknown) => h.request("PATCH", `/meetings/${id}`, { token, body })
  const expectConflict = (res: { status: number; body: any }) => {
    expect(res.status).toBe(409)
    expect(res.body).toMatchObject({ code: "SV006", success: false })
  }

  describe("booking status (spec rules 1-4)", () => {
    it("check-in from active is 202 checked-in with a per-person checkInDateTime", async () => {
      const m = await checkInable()
      const res = await act(m._id, "check-in", w.alice)
      expect(res.status).toBe(202)
      expect(res.body.data.status).toBe("checked-in")
      expect(res.body.data.checkInDateTime).toBe("2030-01-07T09:00:00+07:00")
      expect(res.body.data.checkIns).toEqual([{ userId: w.hq.users.alice, checkInDateTime: "2030-01-07T09:00:00+07:00" }])
      expect(res.body.data.histories.map((x: any) => x.action)).toEqual(["create", "check-in"])
    })
    it("check-in before the window opens (preStartMinutes, default 15) is refused", async () => {
      const res = await bookRoom(h, w.alice, w.hq.rooms.orchid, 0, "11:00", "11:30")
      const early = await act(res.body.data._id, "check-in", w.alice)
      expect(early.status).toBe(400)
      expect(early.body.code).toBe("SV001")
      expect(early.body.message.join()).toContain("15 minutes before")
    })
    it("check-in twice is 409 SV006", async () => {
      const m = await checkInable()
      await act(m._id, "check-in", w.alice)
      expectConflict(await act(m._id, "check-in", w.alice))
    })
    it("cancel after check-in is rejected with 409 SV006", async () => {
      const m = await checkInable()
      await act(m._id, "check-in", w.alice)
      expectConflict(await act(m._id, "cancel", w.alice))
    })
    it("check-out from checked-in is 202 done with checkOutDateTime", async () => {
      const m = await checkInable()
      await act(m._id, "check-in", w.alice)
      const res = await act(m._id, "check-out", w.alice)
      expect(res.status).toBe(202)
      expect(res.body.data.status).toBe("done")
      expect(res.body.data.checkOutDateTime).toBe("2030-01-07T09:00:00+07:00")
    })
    it("check-out from active is 409 SV006", async () => {
      const m = await checkInable()
      expectConflict(await act(m._id, "check-out", w.alice))
    })
    it("done is terminal: cancel, check-in, check-out and update are 409 SV006", async () => {
      const m = await checkInable()
      await act(m._id, "check-in", w.alice)
      await act(m._id, "check-out", w.alice)
      expectConflict(await act(m._id, "cancel", w.alice))
      expectConflict(await act(m._id, "check-in", w.alice))
      expectConflict(await act(m._id, "check-out", w.alice))
      expectConflict(await patch(m._id, w.alice, { title: "again" }))
    })
    it("cancel from active is 202 cancelled with a new histories entry", async () => {
      const m = await checkInable()
      const res = await act(m._id, "cancel", w.alice)
      expect(res.status).toBe(202)
      expect(res.body.data.status).toBe("cancelled")
      expect(res.body.data.histories.at(-1)).toMatchObject({ action: "cancel", by: w.hq.users.alice })
    })
    it("cancelled is terminal: cancel, check-in, check-out and update are 409 SV006", async () => {
      const m = await checkInable()
      await act(m._id, "cancel", w.alice)
      expectConflict(await act(m._id, "cancel", w.alice))
      expectConflict(await act(m._id, "check-in", w.alice))
      expectConflict(await act(m._id, "check-out", w.alice))
      expectConflict(await patch(m._id, w.alice, { title: "again" }))
    })
    it("a refused command leaves the booking unchanged", async () => {
      const m = await checkInable()
      const before = (await h.request("GET", `/meetings/${m._id}`, { token: w.alice })).body.data
      await act(m._id, "check-out", w.alice)
      await act(m._id, "cancel", w.bob)
      const after = (await h.request("GET", `/meetings/${m._id}`, { token: w.alice })).body.data
      expect(after).toEqual(before)
    })
    it("actions on an unknown id are 404 SV005; a malformed id is 400 SV001", async () => {
      const res = await act("0123456789abcdef01234567", "cancel", w.alice)
      expect(res.status).toBe(404)
      expect(res.body.code).toBe("SV005")
      expect((await act("xyz", "cancel", w.alice)).status).toBe(400)
      expect((await h.request("GET", "/meetings/0123456789abcdef01234567", { token: w.alice })).status).toBe(404)
    })
    it("action bodies are validated (400 SV001)", async () => {
      const m = await checkInable()
      const res = await act(m._id, "cancel", w.alice, { pinCode: 1234 })
      expect(res.status).toBe(400)
      expect(res.body.code).toBe("SV001")
    })
  })

  describe("operator reject", () => {
    it("POST /admin/v1/meetings/{id}/reject answers the Meeting rejected; rejected is terminal", async () => {
      const m = await checkInable()
      const res = await h.admin("POST", `/meetings/${m._id}/reject`, { reason: "room under repair" })
      expect(res.status).toBe(200)
      expect(res.body.data.status).toBe("rejected")
      expect(res.body.data.histories.at(-1)).toMatchObject({ action: "reject", by: "operator", reason: "room under repair" })
      expectConflict(await act(m._id, "cancel", w.alice))
      expectConflict(await h.admin("POST", `/meetings/${m._id}/reject`, {}))
    })
    it("reject of a checked-in booking is allowed; of an unknown id is 404", async () => {
      const m = await checkInable()
      await act(m._id, "check-in", w.alice)
      expect((await h.admin("POST", `/meetings/${m._id}/reject`)).body.data.status).toBe("rejected")
      expect((await h.admin("POST", "/meetings/0123456789abcdef01234567/reject")).status).toBe(404)
    })
    it("reject needs the operator token (401 SV002)", async () => {
      const m = await checkInable()
      const res = await h.request("POST", `/admin/v1/meetings/${m._id}/reject`, { token: w.app })
      expect(res.status).toBe(401)
      expect(res.body.code).toBe("SV002")
    })
  })

  describe("authorization (spec Meetings rule 6)", () => {
    it("a non-organizer without pinCode may not cancel, check in, check out or update (403 SV003)", async () => {
      const m = await checkInable()
      for (const action of ["cancel", "check-in", "check-out"]) {
        const res = await act(m._id, action, w.bob)
        expect(res.status).toBe(403)
        expect(res.body.code).toBe("SV003")
      }
      expect((await patch(m._id, w.bob, { title: "mine" })).status).toBe(403)
      expect((await act(m._id, "cancel", w.bob, { pinCode: "000000" === m.pinCode ? "111111" : "000000" })).status).toBe(403)
    })
    it("a pinCode holder may check in, check out, update and cancel", async () => {
      const a = await checkInable()
      expect((await act(a._id, "check-in", w.bob, { pinCode: a.pinCode })).status).toBe(202)
      expect((await patch(a._id, w.bob, { title: "renamed", pinCode: a.pinCode })).status).toBe(200)
      expect((await act(a._id, "check-out", w.bob, { pinCode: a.pinCode })).status).toBe(202)
      const b = await checkInable()
      expect((await act(b._id, "cancel", w.bob, { pinCode: b.pinCode })).status).toBe(202)
    })
    it("a project admin may cancel any booking of the project without pinCode", async () => {
      const m = await checkInable()
      const res = await act(m._id, "cancel", w.carol)
      expect(res.status).toBe(202)
      expect(res.body.data.histories.at(-1)).toMatchObject({ action: "cancel", by: w.hq.users.carol })
    })
    it("a project admin still needs the pinCode to check in", async () => {
      const m = await checkInable()
      expect((await act(m._id, "check-in", w.carol)).status).toBe(403)
    })
    it("the app token is not the organizer of a member's booking", async () => {
      const m = await checkInable()
      expect((await act(m._id, "cancel", w.app)).status).toBe(403)
      expect((await act(m._id, "cancel", w.app, { pinCode: m.pinCode })).status).toBe(202)
    })
    it("pinCode is shown to the organizer and the booking app, not to other members", async () => {
      const m = await checkInable()
      expect((await h.request("GET", `/meetings/${m._id}`, { token: w.alice })).body.data.pinCode).toBe(m.pinCode)
      expect((await h.request("GET", `/meetings/${m._id}`, { token: w.app })).body.data.pinCode).toBe(m.pinCode)
      const bob = await h.request("GET", `/meetings/${m._id}`, { token: w.bob })
      expect(bob.status).toBe(200)
      expect(bob.body.data.pinCode).toBeUndefined()
    })
  })

  describe("tenancy", () => {
    it("another app's caller gets 404 SV005 for a meeting id of a project outside its scope", async () => {
      const m = await checkInable()
      for (const res of [
        await h.request("GET", `/meetings/${m._id}`, { token: w.otherApp }),
        await act(m._id, "cancel", w.otherApp, { pinCode: m.pinCode }),
        await patch(m._id, w.otherApp, { title: "x", pinCode: m.pinCode }),
      ]) {
        expect(res.status).toBe(404)
        expect(res.body.code).toBe("SV005")
      }
    })
    it("an explicit projectId outside the caller's projects is 403 SV003", async () => {
      const res = await h.request("GET", `/meetings?${qs({ from: at(0, "00:00"), to: at(1, "00:00"), projectId: w.hq.id })}`, { token: w.otherApp })
      expect(res.status).toBe(403)
      expect(res.body.code).toBe("SV003")
    })
    it("GET /meetings without projectId lists only the caller's projects", async () => {
      const res = await h.request("GET", `/meetings?${qs({ from: at(0, "00:00"), to: at(30, "00:00") })}`, { token: w.otherApp })
      expect(res.status).toBe(200)
      expect(res.body.data).toEqual([])
      expect(res.body.meta.total).toBe(0)
    })
  })

  describe("PATCH /meetings/{id}", () => {
    it("extends the end, replaces attendees and changes the title", async () => {
      const m = (await bookRoom(h, w.alice, w.hq.rooms.lotus, 1, "09:00", "10:00", { attendees: [{ email: "bob@hq.example" }] })).body.data
      const res = await patch(m._id, w.alice, { endDateTime: at(1, "10:30"), title: "Longer", attendees: [{ email: "carol@hq.example", type: "optional" }] })
      expect(res.status).toBe(200)
      expect(res.body.data).toMatchObject({ title: "Longer", startDateTime: at(1, "09:00"), endDateTime: at(1, "10:30") })
      expect(res.body.data.attendees).toEqual([
        { userId: w.hq.users.carol, email: "carol@hq.example", name: "Carol Admin", type: "optional", responseStatus: "needsAction" },
      ])
      expect(res.body.data.histories.at(-1)).toMatchObject({ action: "update", fields: ["attendees", "endDateTime", "title"] })
    })
    it("moving onto another booking is 409 SV012 and changes nothing", async () => {
      await bookRoom(h, w.bob, w.hq.rooms.lotus, 1, "14:00", "15:00")
      const m = (await bookRoom(h, w.alice, w.hq.rooms.lotus, 1, "15:00", "16:00")).body.data
      const res = await patch(m._id, w.alice, { startDateTime: at(1, "14:30") })
      expect(res.status).toBe(409)
      expect(res.body.code).toBe("SV012")
      const again = await h.request("GET", `/meetings/${m._id}`, { token: w.alice })
      expect(again.body.data).toMatchObject({ startDateTime: at(1, "15:00"), endDateTime: at(1, "16:00") })
    })
    it("a move frees the old slot", async () => {
      const m = (await bookRoom(h, w.alice, w.hq.rooms.lotus, 2, "09:00", "10:00")).body.data
      expect((await patch(m._id, w.alice, { startDateTime: at(2, "10:00"), endDateTime: at(2, "11:00") })).status).toBe(200)
      expect((await bookRoom(h, w.bob, w.hq.rooms.lotus, 2, "09:00", "10:00")).status).toBe(201)
    })
    it("asset rules apply to the new times (400 SV001)", async () => {
      const m = (await bookRoom(h, w.alice, w.hq.rooms.lotus, 2, "16:00", "17:00")).body.data
      const res = await patch(m._id, w.alice, { endDateTime: at(2, "19:00") })
      expect(res.status).toBe(400)
      expect(res.body.message.join()).toContain("operating hours")
    })
    it("a move wholly into the past names every rule it breaks in one 400: the end already past and the start before now", async () => {
      const m = (await bookRoom(h, w.alice, w.hq.rooms.lotus, 2, "13:00", "14:00")).body.data
      const res = await patch(m._id, w.alice, { startDateTime: at(0, "07:00"), endDateTime: at(0, "08:00") })
      expect(res.status).toBe(400)
      expect(res.body.code).toBe("SV001")
      expect(res.body.message).toEqual(expect.arrayContaining(["endDateTime must be in the future", "startDateTime must not be in the past"]))
    })
    it("no start change after check-in (409 SV006), but a checked-in booking may be extended", async () => {
      const m = (await bookRoom(h, w.alice, w.hq.rooms.lotus, 0, "09:10", "09:20")).body.data
      expect((await act(m._id, "check-in", w.alice)).status).toBe(202)
      expectConflict(await patch(m._id, w.alice, { startDateTime: at(0, "09:45"), endDateTime: at(0, "10:30") }))
      const longer = await patch(m._id, w.alice, { endDateTime: at(0, "09:50") })
      expect(longer.status).toBe(200)
      expect(longer.body.data).toMatchObject({ status: "checked-in", startDateTime: at(0, "09:10"), endDateTime: at(0, "09:50") })
    })
    it("a desk booking can switch to another timePeriod", async () => {
      const d = (await h.request("POST", "/meetings", { token: w.alice, body: { deskId: w.hq.desks.d1, title: "x", startDateTime: at(3, "08:00"), timePeriod: "morning" } })).body.data
      const res = await patch(d._id, w.alice, { timePeriod: "afternoon" })
      expect(res.status).toBe(200)
      expect(res.body.data).toMatchObject({ startDateTime: at(3, "12:00"), endDateTime: at(3, "18:00"), timePeriod: "afternoon" })
    })
    it("a checked-in desk booking that switches to a timePeriod keeps its start and gets the rest of the period", async () => {
      const made = await h.request("POST", "/meetings", {
        token: w.alice,
        body: { deskId: w.hq.desks.d2, title: "x", startDateTime: at(0, "09:05"), endDateTime: at(0, "10:00") },
      })
      expect(made.status, JSON.stringify(made.body)).toBe(201)
      const d = made.body.data
      expect((await act(d._id, "check-in", w.alice)).status).toBe(202)
      const res = await patch(d._id, w.alice, { timePeriod: "morning" })
      expect(res.status, JSON.stringify(res.body)).toBe(200)
      expect(res.body.data).toMatchObject({ status: "checked-in", startDateTime: at(0, "09:05"), endDateTime: at(0, "12:00"), timePeriod: "morning" })
    })
    it("draft true previews the change and writes nothing", async () => {
      const m = (await bookRoom(h, w.alice, w.hq.rooms.lotus, 3, "09:00", "10:00")).body.data
      const res = await patch(m._id, w.alice, { endDateTime: at(3, "11:00"), draft: true })
      expect(res.status).toBe(200)
      expect(res.body.data).toMatchObject({ draft: true, endDateTime: at(3, "11:00"), available: true })
      const again = await h.request("GET", `/meetings/${m._id}`, { token: w.alice })
      expect(again.body.data.endDateTime).toBe(at(3, "10:00"))
    })
    it("validation: both endDateTime and timePeriod, a bad type, a missing offset are 400 SV001 with an array", async () => {
      const m = (await bookRoom(h, w.alice, w.hq.rooms.lotus, 3, "13:00", "14:00")).body.data
      const res = await patch(m._id, w.alice, { endDateTime: "2030-01-10T15:00:00", timePeriod: "morning", estimatedAttendance: 1.5 })
      expect(res.status).toBe(400)
      expect(res.body.message.length).toBeGreaterThanOrEqual(3)
    })
  })

  describe("outbox", () => {
    it("create, each change (times, or title only) and cancel record ROOM_BOOK, ROOM_MODIFY, ROOM_CANCEL in their own transaction", async () => {
      const m = (await bookRoom(h, w.alice, w.hq.rooms.race, 4, "09:00", "10:00")).body.data
      await patch(m._id, w.alice, { endDateTime: at(4, "10:30") })
      await patch(m._id, w.alice, { title: "renamed: the booking changed" })
      await patch(m._id, w.alice, { title: "renamed: the booking changed" }) // the same again: no event
      await act(m._id, "check-out", w.alice) // refused: no event
      await act(m._id, "cancel", w.alice)
      const rows = await h.booted.services.database.db
        .select()
        .from(outboxEventsTable)
        .where(eq(outboxEventsTable.bookingId, m._id))
        .orderBy(asc(outboxEventsTable.createdAt), asc(outboxEventsTable.id))
      expect(rows.map((r) => r.type)).toEqual(["ROOM_BOOK", "ROOM_MODIFY", "ROOM_MODIFY", "ROOM_CANCEL"])
      expect(rows[0]!.projectId).toBe(w.hq.id)
      expect(rows[1]!.payload).toMatchObject({ event: { kind: "MODIFY", bookingId: m._id } })
    })
    it("a PATCH that changes nothing (an empty body, or the values the booking already has) writes nothing: no history entry, the same updatedAt", async () => {
      const m = (await bookRoom(h, w.alice, w.hq.rooms.race, 4, "11:00", "12:00")).body.data
      const read = async () => (await h.request("GET", `/meetings/${m._id}`, { token: w.alice })).body.data
      const before = await read()
      const empty = await patch(m._id, w.alice, {})
      expect(empty.status).toBe(200)
      expect(empty.body.data).toMatchObject({ _id: m._id, status: "active", updatedAt: before.updatedAt })
      expect((await patch(m._id, w.alice, { title: before.title, endDateTime: before.endDateTime })).status).toBe(200)
      const after = await read()
      expect(after.histories).toEqual(before.histories)
      expect(after.updatedAt).toBe(before.updatedAt)
      // A real change still records its entry.
      expect((await patch(m._id, w.alice, { title: "changed" })).status).toBe(200)
      expect((await read()).histories.map((x: any) => x.action)).toEqual(["create", "update"])
    })
    it("an unpaid booking records no BOOK until it is paid", async () => {
      const m = (await bookRoom(h, w.bob, w.hq.rooms.jasmine, 4, "09:00", "10:00")).body.data
      const rows = await h.booted.services.database.db.select().from(outboxEventsTable).where(eq(outboxEventsTable.bookingId, m._id))
      expect(rows).toEqual([])
    })
  })
})
