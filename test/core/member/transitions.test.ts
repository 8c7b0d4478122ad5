import { Result, Schema } from "effect"
import { describe, expect, it } from "vitest"
import type { CardUid } from "../../../core/member/card-number.ts"
import {
  type CardIssuer,
  type MemberCard,
  MemberStatus,
  type PartnerMember,
} from "../../../core/member/state.ts"
import {
  type MemberCommand,
  type MemberEffect,
  type ProfilePatch,
  transition,
} from "../../../core/member/transitions.ts"
import { jpegBase64 } from "../../support/face-images.ts"

const JPEG_B64 = jpegBase64(32)
const CONSENT = "2025-01-01T09:00:00+07:00"
const GROUPS = ["g1", "g2"]

const makeIssuer = (draws: Array<number>, taken = new Set<number>()): CardIssuer => {
  let id = 0
  let i = 0
  return {
    newCardId: () => `card-${++id}`,
    random: (bytes) => {
      const n = draws[i++ % draws.length]!
      bytes.set([n >>> 24, (n >>> 16) & 0xff, (n >>> 8) & 0xff, n & 0xff])
      return bytes
    },
    isCardUidTaken: (uid) => taken.has(uid),
  }
}
const issuer = makeIssuer([0x0a0b0c0d, 0x01020304])

const patch: ProfilePatch = { firstName: "Ann", lastName: "Lee" }
const upsert = (over: Partial<Extract<MemberCommand, { kind: "Upsert" }>> = {}): MemberCommand => ({
  kind: "Upsert",
  memberId: "m1",
  externalUserId: "ext-1",
  patch,
  partnerAccessGroupIds: GROUPS,
  ...over,
})
const run = (m: PartnerMember | undefined, c: MemberCommand, iss: CardIssuer = issuer) =>
  Result.getOrThrow(transition(m, c, iss))
const kinds = (effects: ReadonlyArray<MemberEffect>) => effects.map((e) => e.kind)
const real = (n: number): MemberCard => ({
  cardId: `c${n}`,
  uid: n as CardUid,
  label: `L${n}`,
  type: "real",
  generated: false,
})

const [created] = run(undefined, upsert())

describe("partner member status: (none) -> active", () => {
  it("first PUT member with no identity match creates, links, joins the fixed groups", () => {
    const [m, effects] = run(undefined, upsert({ patch: { ...patch, employeeId: "E1" } }))
    expect(m).toMatchObject({
      memberId: "m1",
      externalUserId: "ext-1",
      status: "active",
      accessGroupIds: GROUPS,
      employeeId: "E1",
      cards: [],
      face: { present: false },
    })
    expect(effects).toEqual([
      { kind: "Linked", created: true },
      { kind: "GroupsJoined", groupIds: GROUPS },
    ])
  })

  it("first PUT member matching an existing user links it and keeps its credentials", () => {
    const existingUser = {
      profile: { firstName: "Old", lastName: "Name", email: "a@x.io" },
      cards: [real(1)],
      face: { present: true },
    }
    const [m, effects] = run(undefined, upsert({ existingUser }))
    expect(m.profile).toEqual({ firstName: "Ann", lastName: "Lee", email: "a@x.io" })
    expect(m.cards).toEqual([real(1)])
    expect(effects[0]).toEqual({ kind: "Linked", created: false })
  })

  it("an app with no partner groups joins none", () => {
    const [m, effects] = run(undefined, upsert({ partnerAccessGroupIds: [] }))
    expect(m.accessGroupIds).toEqual([])
    expect(kinds(effects)).toEqual(["Linked"])
  })
})

describe("partner member status: active -> active (PUT member)", () => {
  it("profile updated; omitted fields are left untouched", () => {
    const profile = { ...created.profile, email: "a@x.io", phone: "+66812345678" }
    const bo = { firstName: "Bo", lastName: "", profileName: "B" }
    const [m, effects] = run({ ...created, profile }, upsert({ patch: bo }))
    expect(m.profile).toEqual({
      firstName: "Bo",
      lastName: "",
      profileName: "B",
      email: "a@x.io",
      phone: "+66812345678",
    })
    expect(effects).toEqual([])
  })

  it("idempotent on externalUserId: the same PUT twice yields the same member", () => {
    const [once] = run(created, upsert())
    const [twice, effects] = run(once, upsert())
    expect(twice).toEqual(once)
    expect(effects).toEqual([])
  })

  it("partner groups the member lost are joined again; other groups are kept", () => {
    const [m, effects] = run({ ...created, accessGroupIds: ["g1", "staff"] }, upsert())
    expect(m.accessGroupIds).toEqual(["g1", "staff", "g2"])
    expect(effects).toEqual([{ kind: "GroupsJoined", groupIds: ["g2"] }])
  })

  it("a command for another memberId than the link is refused (never re-link)", () => {
    const r = transition(created, upsert({ memberId: "m2" }), issuer)
    expect(Result.isFailure(r) && r.failure._tag).toBe("StateConflict")
  })
})

describe("partner member status: active -> deactivated (DELETE)", () => {
  const withCreds = run(created, {
    kind: "SetCredentials",
    request: { face: JPEG_B64, faceConsentAt: CONSENT },
  })[0]
  const [withCard] = run(withCreds, {
    kind: "SetCredentials",
    request: { cards: [{ cardNo: "7", cardCodeFormat: "decimal" }] },
  })

  it("all cards (physical and auto-generated) revoked, groups left, link kept", () => {
    expect(withCard.cards.map((c) => c.generated).sort()).toEqual([false, true])
    const [m, effects] = run(withCard, { kind: "Offboard" })
    expect(m).toMatchObject({
      status: "deactivated",
      memberId: "m1",
      externalUserId: "ext-1",
      cards: [],
      accessGroupIds: [],
    })
    expect(kinds(effects)).toEqual(["Deactivated", "CardRevoked", "CardRevoked", "GroupsLeft"])
    expect(effects).toContainEqual({ kind: "GroupsLeft", groupIds: GROUPS })
  })

  it("DELETE on a deactivated member is a no-op success", () => {
    const [off] = run(withCard, { kind: "Offboard" })
    const [again, effects] = run(off, { kind: "Offboard" })
    expect(again).toBe(off)
    expect(effects).toEqual([])
  })
})

describe("partner member status: deactivated -> active (PUT member)", () => {
  const [withFace] = run(created, {
    kind: "SetCredentials",
    request: { face: JPEG_B64, faceConsentAt: CONSENT },
  })
  const firstGenerated = withFace.cards.find((c) => c.generated)!

  it("same memberId, groups restored, a fresh auto-generated card number", () => {
    const [off] = run(withFace, { kind: "Offboard" })
    const fresh = makeIssuer([firstGenerated.uid, 0x0f0f0f0f], new Set([firstGenerated.uid]))
    const [back, effects] = run(off, upsert({ partnerAccessGroupIds: ["g1", "g3"] }), fresh)
    expect(back).toMatchObject({ memberId: "m1", status: "active", accessGroupIds: ["g1", "g3"] })
    const generated = back.cards.filter((c) => c.generated)
    expect(generated).toHaveLength(1)
    expect(generated[0]!.uid).not.toBe(firstGenerated.uid)
    expect(kinds(effects)).toEqual(["Reactivated", "GroupsJoined", "CardEnrolled"])
  })

  it("without a face: no generated card on return; physical cards stay revoked", () => {
    const [withCards] = run(created, {
      kind: "SetCredentials",
      request: { cards: [{ cardNo: "7", cardCodeFormat: "decimal" }] },
    })
    const [off] = run(withCards, { kind: "Offboard" })
    const [back] = run(off, upsert())
    expect(back.cards).toEqual([])
  })
})

describe("partner member status: deactivated + PUT credentials", () => {
  it("is rejected with MemberOffboarded (409 SV006)", () => {
    const [off] = run(created, { kind: "Offboard" })
    const r = transition(off, { kind: "SetCredentials", request: { cards: [] } }, issuer)
    expect(Result.isFailure(r) && r.failure).toMatchObject({
      _tag: "MemberOffboarded",
      memberId: "m1",
    })
  })
})

describe("partner member status: credentials on an active member", () => {
  it("emits face, revoke and enrol effects for the device commands", () => {
    const card = (cardNo: string) => ({ cardNo, cardCodeFormat: "decimal" as const })
    const [m] = run(created, { kind: "SetCredentials", request: { cards: [card("1")] } })
    const [, effects] = run(m, {
      kind: "SetCredentials",
      request: { cards: [card("2")], face: JPEG_B64, faceConsentAt: CONSENT },
    })
    expect(kinds(effects)).toEqual(["FaceChanged", "CardRevoked", "CardEnrolled"])
  })

  it("commands other than PUT member need an existing link", () => {
    for (const c of [{ kind: "Offboard" }, { kind: "SetCredentials", request: {} }] as const) {
      const r = transition(undefined, c, issuer)
      expect(Result.isFailure(r) && r.failure._tag).toBe("StateConflict")
    }
  })

  it("status values are active and deactivated", () => {
    expect(Schema.is(MemberStatus)("active")).toBe(true)
    expect(Schema.is(MemberStatus)("deactivated")).toBe(true)
    expect(Schema.is(MemberStatus)("none")).toBe(false)
  })
})
