import { Schema } from "effect"
import { describe, expect, it } from "vitest"
import { EVENT_TYPES, EventType, makeEnvelope } from "../../../core/events/envelope.ts"

describe("webhook delivery envelope (spec: Webhook delivery envelope)", () => {
  it("envelope has id, type, version 1, ISO occurredAt, projectId and data", () => {
    const occurredAt = Date.parse("2025-03-01T12:00:00Z")
    const data = { a: 1 }
    const envelope = makeEnvelope({ id: "d1", type: "ROOM_BOOK", occurredAt, projectId: "p", data })
    expect(envelope).toEqual({
      id: "d1",
      type: "ROOM_BOOK",
      version: 1,
      occurredAt: "2025-03-01T12:00:00.000Z",
      projectId: "p",
      data: { a: 1 },
    })
  })

  it("event types are the six ROOM_*, six DESK_* and three VMS_* types", () => {
    expect(EVENT_TYPES).toHaveLength(15)
    const is = Schema.is(EventType)
    const samples = ["ROOM_BOOK", "DESK_ENDING_SOON", "ROOM_NO_SHOW_WARNING", "VMS_HOST_CANCELLED"]
    for (const t of samples) {
      expect(is(t), t).toBe(true)
    }
  })

  it("reserved VMS_VISITOR_CHECKED_OUT and VMS_HOST_NOTIFICATION are not subscribable", () => {
    const decode = Schema.decodeUnknownResult(EventType)
    const refused = ["VMS_VISITOR_CHECKED_OUT", "VMS_HOST_NOTIFICATION", "ROOM_CHECK_IN", "x"]
    for (const t of refused) {
      expect(decode(t)._tag, t).toBe("Failure")
    }
  })
})
