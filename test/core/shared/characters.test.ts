import { Result, Schema } from "effect"
import { describe, expect, it } from "vitest"
import { Characters, characterCount } from "../../../core/shared/characters.ts"
import { ManifestWebhook } from "../../../core/tenancy/manifest.ts"

/** Spec Limits count characters: "Webhook shared secret | 32–256 characters", "employeeId length | 1–64 characters". */
describe("text limits count characters (code points), not UTF-16 units", () => {
  const emoji = "\u{1F600}"

  it("an emoji is one character", () => {
    expect(emoji.length).toBe(2)
    expect(characterCount(emoji.repeat(16))).toBe(16)
  })

  it("1-64 characters: 64 emoji pass, 65 do not, empty does not", () => {
    const decode = Schema.decodeUnknownResult(Characters(1, 64))
    expect(Result.isSuccess(decode(emoji.repeat(64)))).toBe(true)
    expect(Result.isFailure(decode(emoji.repeat(65)))).toBe(true)
    expect(Result.isFailure(decode(""))).toBe(true)
  })

  it("a webhook secret of 16 emoji is short of 32 characters; 129 emoji are within 256", () => {
    const hook = (secret: string) =>
      Schema.decodeUnknownResult(ManifestWebhook)({ key: "ops", url: "https://hooks.example/k", secret, events: ["ROOM_BOOK"] })
    expect(Result.isFailure(hook(emoji.repeat(16)))).toBe(true)
    expect(Result.isSuccess(hook(emoji.repeat(129)))).toBe(true)
    expect(Result.isSuccess(hook("s".repeat(32)))).toBe(true)
    expect(Result.isFailure(hook("s".repeat(257)))).toBe(true)
  })
})
