import { Result } from "effect"
import { describe, expect, it } from "vitest"
import { normalizePhone } from "../../../core/member/phone.ts"

const e164 = (input: string) => Result.getOrThrow(normalizePhone(input))

describe("phone normalization (PartnerMemberUpsertRequest.phone)", () => {
  it("spaces and dashes are stripped", () => {
    expect(e164("081-234-5678")).toBe("+66812345678")
    expect(e164("081 234 5678")).toBe("+66812345678")
    expect(e164(" 08 1234-5678 ")).toBe("+66812345678")
  })

  it("local numbers get the default country prefix +66", () => {
    expect(e164("0812345678")).toBe("+66812345678")
    expect(e164("02 123 4567")).toBe("+6621234567")
  })

  it("international numbers keep their country, output E.164", () => {
    expect(e164("+66 81 234 5678")).toBe("+66812345678")
    expect(e164("+1 415-555-2671")).toBe("+14155552671")
    expect(e164("+44 (20) 7946 0958")).toBe("+442079460958")
  })

  it("every spelling of one number normalizes to one value (uniqueness key)", () => {
    const forms = ["0812345678", "081-234-5678", "+66812345678", "+66 81 234 5678", "(081) 2345678"]
    expect(new Set(forms.map(e164))).toEqual(new Set(["+66812345678"]))
  })

  it("invalid numbers give a validation message (400 SV001)", () => {
    const bad = ["", "12", "abc", "call 0812345678", "0812345678 ext 5", "+66 12", "++66812345678"]
    for (const input of bad) {
      const r = normalizePhone(input)
      expect(Result.isFailure(r), input).toBe(true)
      if (Result.isFailure(r)) expect(r.failure).toContain("phone")
    }
  })
})
