import { Result, Schema } from "effect"
import { describe, expect, it } from "vitest"
import { UpdateMeetingRequest, RejectMeetingRequest } from "../../../adapters/http/schemas/meeting-requests.ts"
import { RotateSecretRequest } from "../../../adapters/http/schemas/operator-requests.ts"
import { ListRoomsQuery } from "../../../adapters/http/schemas/asset-queries.ts"

/**
 * Every text bound of a request counts characters (code points), as the OpenAPI document's
 * minLength/maxLength do: a client checking a value against the document gets the server's
 * answer (a 251-emoji title fits 500 characters; an 8-emoji secret has the 8 it needs).
 */
describe("request text bounds count characters, as the document states them", () => {
  const emoji = "\u{1F600}"
  const ok = <S extends Schema.Top>(schema: S, value: unknown) => Result.isSuccess(Schema.decodeUnknownResult(schema as never)(value))

  it("a title of 500 emoji is 500 characters; 501 is too long", () => {
    expect(ok(UpdateMeetingRequest, { title: emoji.repeat(500) })).toBe(true)
    expect(ok(UpdateMeetingRequest, { title: emoji.repeat(501) })).toBe(false)
  })

  it("an app secret of 8 emoji is 8 characters; 7 are too few", () => {
    expect(ok(RotateSecretRequest, { appSecret: emoji.repeat(8) })).toBe(true)
    expect(ok(RotateSecretRequest, { appSecret: emoji.repeat(7) })).toBe(false)
  })

  it("a reject reason of 1000 emoji and a room name filter of 200 are within their bounds", () => {
    expect(ok(RejectMeetingRequest, { reason: emoji.repeat(1000) })).toBe(true)
    expect(ok(RejectMeetingRequest, { reason: emoji.repeat(1001) })).toBe(false)
    expect(ok(ListRoomsQuery, { projectId: "65a000000000000000000001", name: emoji.repeat(200) })).toBe(true)
    expect(ok(ListRoomsQuery, { projectId: "65a000000000000000000001", name: emoji.repeat(201) })).toBe(false)
  })
})
