import { Result } from "effect"
import { describe, expect, it } from "vitest"
import { redactForLog, validateVisitorEvent } from "../../../core/events/visitor-payloads.ts"

const base = { projectId: "p1", userId: "vms-user", timestamp: "2025-03-01T12:00:00.000Z" }

const invite = {
  ...base,
  visitorName: "Anan",
  visitorEmail: "anan@example.com",
  hostName: "Malee",
  hostEmail: "malee@example.com",
  visitDate: "2025-03-03T09:00:00+07:00",
  startDateTime: "3 Mar 2025 09:00",
  endDateTime: "3 Mar 2025 11:00",
  qrCardCode: "QR-SECRET-42",
}

const checkedIn = {
  ...base,
  visitorName: "Anan",
  hostAssetTitle: "Tower A 12F",
  checkInTime: { en: "3 Mar 2025 09:02", th: "3 มี.ค. 2568 09:02" },
  vmsEntryType: { entryType: "card", en: "Card", th: "บัตร" },
  licensePlateNumber: "",
}

const hostCancelled = {
  ...base,
  visitorName: "Anan",
  hostName: "Malee",
  hostEmail: "malee@example.com",
  startDateTime: "3 Mar 2025 09:00",
  endDateTime: "3 Mar 2025 11:00",
}

const messages = (r: ReturnType<typeof validateVisitorEvent>): ReadonlyArray<string> =>
  Result.isFailure(r) ? r.failure.messages : []

describe("visitor events (spec: Visitor events)", () => {
  it("the three emitted types accept their required fields", () => {
    expect(Result.isSuccess(validateVisitorEvent("VMS_INVITE_SENT", invite))).toBe(true)
    expect(Result.isSuccess(validateVisitorEvent("VMS_VISITOR_CHECKED_IN", checkedIn))).toBe(true)
    expect(Result.isSuccess(validateVisitorEvent("VMS_HOST_CANCELLED", hostCancelled))).toBe(true)
  })

  it("optional fields are accepted when present", () => {
    const full = {
      ...checkedIn,
      licensePlateNumber: "1กข 1234",
      vmsEntryType: { entryType: "plate", en: "Plate", th: "ป้ายทะเบียน" },
      location: { entryType: "gate", en: "North gate", th: "ประตูทิศเหนือ" },
      webViewUrl: "https://vms.example/v/1",
    }
    const r = validateVisitorEvent("VMS_VISITOR_CHECKED_IN", full)
    expect(Result.isSuccess(r) && r.success.data).toEqual(full)
    const inv = { ...invite, licensePlate: "1กข 1234", visitPurpose: "Meeting" }
    expect(Result.isSuccess(validateVisitorEvent("VMS_INVITE_SENT", inv))).toBe(true)
    const hc = { ...hostCancelled, licensePlate: "1กข 1234" }
    expect(Result.isSuccess(validateVisitorEvent("VMS_HOST_CANCELLED", hc))).toBe(true)
  })

  it("missing required fields give one message per violated constraint, with the path", () => {
    const { hostEmail: _h, visitDate: _v, ...partial } = invite
    expect(messages(validateVisitorEvent("VMS_INVITE_SENT", partial))).toEqual([
      "hostEmail: Missing key",
      "visitDate: Missing key",
    ])
  })

  it("a date that is not a day of the calendar (02-30) is not an ISO 8601 date", () => {
    expect(messages(validateVisitorEvent("VMS_INVITE_SENT", { ...invite, visitDate: "2026-02-30T00:00:00Z" }))).toEqual([
      "visitDate: Expected an ISO 8601 date, or a date-time with an explicit offset",
    ])
    expect(Result.isSuccess(validateVisitorEvent("VMS_INVITE_SENT", { ...invite, visitDate: "2028-02-29" }))).toBe(true)
  })

  it("base fields projectId, userId and ISO timestamp are required", () => {
    const notIso = { ...hostCancelled, timestamp: "yesterday" }
    const r = validateVisitorEvent("VMS_HOST_CANCELLED", notIso)
    expect(messages(r)).toEqual(["timestamp: Expected an ISO 8601 date, or a date-time with an explicit offset"])
    const { projectId: _p, ...noProject } = hostCancelled
    expect(messages(validateVisitorEvent("VMS_HOST_CANCELLED", noProject))).toEqual([
      "projectId: Missing key",
    ])
  })

  it("checkInTime is {en,th} and vmsEntryType is {entryType,en,th}", () => {
    const bad = { ...checkedIn, checkInTime: { en: "x" }, vmsEntryType: { en: "Card", th: "บัตร" } }
    expect(messages(validateVisitorEvent("VMS_VISITOR_CHECKED_IN", bad))).toEqual([
      "checkInTime.th: Missing key",
      "vmsEntryType.entryType: Missing key",
    ])
  })

  it("reserved types VMS_VISITOR_CHECKED_OUT and VMS_HOST_NOTIFICATION are rejected", () => {
    for (const type of ["VMS_VISITOR_CHECKED_OUT", "VMS_HOST_NOTIFICATION"]) {
      const m = messages(validateVisitorEvent(type, hostCancelled))
      expect(m).toEqual([`type: ${type} is reserved and never delivered`])
    }
    expect(messages(validateVisitorEvent("VMS_SOMETHING", hostCancelled))).toHaveLength(1)
  })

  it("qrCardCode is required in VMS_INVITE_SENT and allowed nowhere else", () => {
    const { qrCardCode: _q, ...noQr } = invite
    expect(messages(validateVisitorEvent("VMS_INVITE_SENT", noQr))).toEqual([
      "qrCardCode: Missing key",
    ])
    const leaked = { ...hostCancelled, qrCardCode: "QR-SECRET-42" }
    const m = messages(validateVisitorEvent("VMS_HOST_CANCELLED", leaked))
    expect(m).toEqual(["qrCardCode: allowed only in VMS_INVITE_SENT, not in VMS_HOST_CANCELLED"])
    expect(m.join()).not.toContain("QR-SECRET-42")
  })

  it("unknown fields are stripped, never passed on", () => {
    const r = validateVisitorEvent("VMS_HOST_CANCELLED", { ...hostCancelled, pinCode: "1234" })
    expect(Result.isSuccess(r) && "pinCode" in r.success.data).toBe(false)
  })

  it("a log copy drops qrCardCode (credential, never logged)", () => {
    const logged = redactForLog(invite)
    expect("qrCardCode" in logged).toBe(false)
    expect(JSON.stringify(logged)).not.toContain("QR-SECRET-42")
    expect(logged).toMatchObject({ visitorName: "Anan", hostEmail: "malee@example.com" })
    expect(invite.qrCardCode).toBe("QR-SECRET-42")
  })
})
