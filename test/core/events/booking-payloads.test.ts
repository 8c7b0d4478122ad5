import { describe, expect, it } from "vitest"
import type { BookingDomainEvent } from "../../../core/events/domain-events.ts"
import { type BookingEventContext, bookingPayload } from "../../../core/events/booking-payloads.ts"
import { formatHHmm, formatOffsetDateTime } from "../../../core/shared/local-time.ts"
import { makeEnvelope } from "../../../core/events/envelope.ts"

const MIN = 60_000
const start = Date.parse("2025-03-03T09:00:00+07:00")
const end = Date.parse("2025-03-03T10:30:00+07:00")
const at = Date.parse("2025-03-01T12:34:56.789Z")

const ctx: BookingEventContext = {
  projectId: "p1",
  userId: "u1",
  assetKind: "room",
  assetName: "Orchid",
  floorName: "12F",
  timezone: "Asia/Bangkok",
  start,
  end,
  organizerName: "Somchai",
  organizerEmail: "somchai@example.com",
  attendeeNames: ["Somchai", "Malee"],
}

const bare: BookingEventContext = {
  projectId: "p1",
  userId: "u1",
  assetKind: "desk",
  assetName: "D-07",
  floorName: "3F",
  timezone: "Asia/Bangkok",
  start,
  end,
}

const base = ["projectId", "userId", "timestamp"]
const keys = (o: object) => Object.keys(o).sort()

const events: Record<BookingDomainEvent["kind"], BookingDomainEvent> = {
  BOOK: { kind: "BOOK", bookingId: "b1", at },
  MODIFY: {
    kind: "MODIFY",
    bookingId: "b1",
    at,
    oldStart: start,
    oldEnd: end,
    newStart: start + 30 * MIN,
    newEnd: end + 60 * MIN,
  },
  CANCEL: { kind: "CANCEL", bookingId: "b1", at },
  REMINDER: { kind: "REMINDER", bookingId: "b1", at, minutesUntilStart: 15 },
  NO_SHOW_WARNING: { kind: "NO_SHOW_WARNING", bookingId: "b1", at, minutesUntilAutoCancel: 5 },
  ENDING_SOON: { kind: "ENDING_SOON", bookingId: "b1", at, minutesUntilEnd: 15 },
}

describe("booking event data (spec: Booking events)", () => {
  it("each type carries exactly the spec's fields when everything is known", () => {
    // Spec table "Booking events", beyond the base fields and roomName/floorName.
    const expected: Record<BookingDomainEvent["kind"], Array<string>> = {
      BOOK: ["bookingDate", "startTime", "endTime", "attendees", "userName", "userEmail"],
      MODIFY: ["oldStartTime", "oldEndTime", "newStartTime", "newEndTime", "userName"],
      CANCEL: ["bookingDate", "userName"],
      REMINDER: ["startTime", "endTime", "minutesUntilStart", "userName", "userEmail"],
      NO_SHOW_WARNING: ["startTime", "endTime", "minutesUntilAutoCancel", "userName"],
      ENDING_SOON: ["endTime", "minutesUntilEnd", "userName"],
    }
    for (const [kind, fields] of Object.entries(expected)) {
      const { data } = bookingPayload(events[kind as BookingDomainEvent["kind"]], ctx)
      expect(keys(data), kind).toEqual([...base, "roomName", "floorName", ...fields].sort())
    }
  })

  it("optional fields are absent when unknown (not present as undefined)", () => {
    const { data } = bookingPayload(events.BOOK, bare)
    expect(keys(data)).toEqual(
      [...base, "deskName", "floorName", "bookingDate", "startTime", "endTime"].sort(),
    )
  })

  it("ROOM_* carry roomName, DESK_* carry deskName", () => {
    expect(bookingPayload(events.CANCEL, ctx)).toMatchObject({
      type: "ROOM_CANCEL",
      data: { roomName: "Orchid" },
    })
    const desk = bookingPayload(events.NO_SHOW_WARNING, bare)
    expect(desk.type).toBe("DESK_NO_SHOW_WARNING")
    expect(desk.data).toMatchObject({ deskName: "D-07" })
    expect("roomName" in desk.data).toBe(false)
  })

  it("base fields: projectId, acting userId, timestamp equal to the envelope's occurredAt", () => {
    const { type, data } = bookingPayload(events.BOOK, ctx)
    const envelope = makeEnvelope({ id: "d1", type, occurredAt: at, projectId: "p1", data })
    expect(data).toMatchObject({ projectId: "p1", userId: "u1" })
    expect(data.timestamp).toBe(envelope.occurredAt)
    expect(data.timestamp).toBe("2025-03-01T12:34:56.789Z")
  })

  it("times are property-local HH:mm and bookingDate is the start instant in ISO 8601", () => {
    expect(bookingPayload(events.BOOK, ctx).data).toMatchObject({
      startTime: "09:00",
      endTime: "10:30",
      bookingDate: "2025-03-03T09:00:00+07:00",
    })
    const { bookingDate } = bookingPayload(events.BOOK, ctx).data as { bookingDate: string }
    expect(Date.parse(bookingDate)).toBe(start)
    expect(bookingPayload(events.MODIFY, ctx).data).toMatchObject({
      oldStartTime: "09:00",
      oldEndTime: "10:30",
      newStartTime: "09:30",
      newEndTime: "11:30",
    })
  })

  it("reminder minutes are copied from the event", () => {
    expect(bookingPayload(events.REMINDER, ctx).data).toMatchObject({ minutesUntilStart: 15 })
    expect(bookingPayload(events.NO_SHOW_WARNING, ctx).data).toMatchObject({
      minutesUntilAutoCancel: 5,
    })
    expect(bookingPayload(events.ENDING_SOON, ctx).data).toMatchObject({ minutesUntilEnd: 15 })
  })

  it("cancelReason is absent for a user or admin cancel", () => {
    expect("cancelReason" in bookingPayload(events.CANCEL, ctx).data).toBe(false)
  })

  it("cancelReason texts are exact, with an em dash (U+2014)", () => {
    const cancel = (reason: "no-show" | "payment-lapsed") =>
      bookingPayload({ kind: "CANCEL", bookingId: "b1", at, reason }, ctx)
    const noShow = cancel("no-show")
    const lapsed = cancel("payment-lapsed")
    expect(noShow.data).toMatchObject({ cancelReason: "No-show \u2014 auto-cancelled by system" })
    expect(lapsed.data).toMatchObject({
      cancelReason: "Payment window lapsed \u2014 auto-cancelled by system",
    })
  })

  it("data never contains pinCode, tokens or payment addresses", () => {
    const leaky = {
      ...ctx,
      pinCode: "123456",
      accessToken: "tok",
      webPaymentUrl: "https://pay.example/x",
    } as BookingEventContext
    for (const event of Object.values(events)) {
      const json = JSON.stringify(bookingPayload(event, leaky).data)
      expect(json).not.toMatch(/pinCode|123456|tok"|webPaymentUrl|pay\.example/)
    }
  })
})

describe("property-local time formatting", () => {
  it("midnight is 00:00 (24-hour clock, h23)", () => {
    expect(formatHHmm(Date.parse("2025-03-03T00:00:00+07:00"), "Asia/Bangkok")).toBe("00:00")
    expect(formatHHmm(Date.parse("2025-03-03T23:59:00+07:00"), "Asia/Bangkok")).toBe("23:59")
  })

  it("the offset follows daylight saving time in the property's zone", () => {
    expect(formatOffsetDateTime(Date.parse("2025-01-15T14:00:00Z"), "America/New_York")).toBe(
      "2025-01-15T09:00:00-05:00",
    )
    expect(formatOffsetDateTime(Date.parse("2025-07-15T13:00:00Z"), "America/New_York")).toBe(
      "2025-07-15T09:00:00-04:00",
    )
    expect(formatOffsetDateTime(Date.parse("2025-07-15T13:00:00Z"), "Asia/Kolkata")).toBe(
      "2025-07-15T18:30:00+05:30",
    )
    expect(formatOffsetDateTime(Date.parse("2025-07-15T13:00:00Z"), "UTC")).toBe(
      "2025-07-15T13:00:00+00:00",
    )
  })
})
