import { Result } from "effect"
import * as fc from "fast-check"
import { describe, expect, it } from "vitest"
import {
  type CardCodeFormat,
  type CardUid,
  decodeCardNumber,
  encodeCardNumber,
} from "../../../core/member/card-number.ts"
import {
  applyCredentials,
  type CardRequest,
  type CredentialsOutcome,
  type CredentialsRequest,
  credentialsView,
  issueVirtualCard,
  MAX_CARDS,
} from "../../../core/member/credentials.ts"
import type { CardIssuer, MemberCard, PartnerMember } from "../../../core/member/state.ts"
import { jpegBase64 } from "../../support/face-images.ts"

/** The frame of a whole JPEG (start of image, start of scan, end of image): what decodeFaceImage checks. */
const JPEG_B64 = jpegBase64(32)
const CONSENT = "2025-01-01T09:00:00+07:00"

/** Deterministic issuer: counting ids, a scripted byte stream, a set of taken numbers. */
const makeIssuer = (draws: Array<number> = [0x11223344, 0x55667788], taken = new Set<number>()) => {
  let id = 0
  let draw = 0
  const issuer: CardIssuer = {
    newCardId: () => `card-${++id}`,
    random: (bytes) => {
      const n = draws[draw++ % draws.length]!
      bytes.set([n >>> 24, (n >>> 16) & 0xff, (n >>> 8) & 0xff, n & 0xff])
      return bytes
    },
    isCardUidTaken: (uid) => taken.has(uid),
  }
  return issuer
}

const member = (over: Partial<PartnerMember> = {}): PartnerMember => ({
  memberId: "m1",
  externalUserId: "ext-1",
  status: "active",
  profile: { firstName: "Ann", lastName: "Lee" },
  accessGroupIds: ["g1"],
  cards: [],
  face: { present: false },
  ...over,
})

const uid = (hex: string) => Result.getOrThrow(decodeCardNumber(hex, "hex"))
const physical = (hex: string, label = `L${hex}`): MemberCard => ({
  cardId: `old-${hex}`,
  uid: uid(hex),
  label,
  type: "real",
  generated: false,
})
const apply = (m: PartnerMember, req: CredentialsRequest, issuer = makeIssuer()) =>
  Result.getOrThrow(applyCredentials(m, req, issuer))
const messages = (m: PartnerMember, req: CredentialsRequest) => {
  const r = applyCredentials(m, req, makeIssuer())
  if (Result.isSuccess(r) || r.failure._tag !== "ValidationFailed") throw new Error("expected 400")
  return r.failure.messages
}
const hexCard = (cardNo: string, label?: string): CardRequest =>
  label === undefined ? { cardNo, cardCodeFormat: "hex" } : { cardNo, cardCodeFormat: "hex", label }
const uids = (cards: ReadonlyArray<MemberCard>) => cards.map((c) => c.uid).sort((a, b) => a - b)

describe("PUT credentials rule 1: face set or erase", () => {
  it("a face string with faceConsentAt sets the face and records consent", () => {
    const out = apply(member(), { face: JPEG_B64, faceConsentAt: CONSENT })
    expect(out.member.face).toEqual({ present: true, consentAt: CONSENT })
    expect(out.face).toMatchObject({
      kind: "set",
      consentAt: CONSENT,
      image: { mimeType: "image/jpeg" },
    })
  })

  it("face null erases the stored face", () => {
    const out = apply(member({ face: { present: true, consentAt: CONSENT } }), { face: null })
    expect(out.member.face).toEqual({ present: false })
    expect(out.face).toEqual({ kind: "erased" })
  })

  it("erasing an absent face changes nothing", () => {
    expect(apply(member(), { face: null }).face).toEqual({ kind: "unchanged" })
  })

  it("an omitted face is left untouched", () => {
    const m = member({ face: { present: true, consentAt: CONSENT } })
    const out = apply(m, { cards: [] })
    expect(out.member.face).toEqual(m.face)
    expect(out.face).toEqual({ kind: "unchanged" })
  })
})

describe("PUT credentials rule 2: physical card set on the decoded UID", () => {
  it("missing cards are enrolled, absent cards revoked, common cards kept", () => {
    const m = member({ cards: [physical("0000000A"), physical("0000000B")] })
    const out = apply(m, {
      cards: [hexCard("0000000B"), hexCard("0000000C")],
    })
    expect(out.enrolled.map((c) => c.uid)).toEqual([uid("0000000C")])
    expect(out.revoked.map((c) => c.cardId)).toEqual(["old-0000000A"])
    expect(out.member.cards.find((c) => c.uid === uid("0000000B"))?.cardId).toBe("old-0000000B")
    expect(uids(out.member.cards)).toEqual([uid("0000000B"), uid("0000000C")])
  })

  it("one card submitted in two formats is one card", () => {
    const m = member({ cards: [physical("04A31B2C")] })
    const out = apply(m, {
      cards: [
        { cardNo: "0740008708" },
        { cardNo: "04A31B2C", cardCodeFormat: "hex" },
        { cardNo: "77798188", cardCodeFormat: "decimal" },
      ],
    })
    expect(out.enrolled).toEqual([])
    expect(out.revoked).toEqual([])
    expect(out.member.cards).toHaveLength(1)
  })

  it("cards [] revokes all physical cards", () => {
    const m = member({ cards: [physical("0000000A"), physical("0000000B")] })
    const out = apply(m, { cards: [] })
    expect(out.revoked).toHaveLength(2)
    expect(out.member.cards).toEqual([])
  })

  it("omitted cards are left untouched", () => {
    const m = member({ cards: [physical("0000000A")] })
    expect(apply(m, { face: null }).member.cards).toEqual(m.cards)
  })

  it("a new card without label gets a label built from its UID; a given label is kept", () => {
    const out = apply(member(), {
      cards: [hexCard("0000000A"), hexCard("0000000B", "Lobby")],
    })
    expect(out.member.cards.map((c) => c.label)).toEqual(["Card 0000000A", "Lobby"])
  })

  it("a kept card is relabelled only when a different label is sent", () => {
    const m = member({ cards: [physical("0000000A", "Old")] })
    const same = apply(m, { cards: [hexCard("0000000A")] })
    expect(same.relabelled).toEqual([])
    expect(same.member.cards[0]!.label).toBe("Old")
    const renamed = apply(m, { cards: [hexCard("0000000A", "New")] })
    expect(renamed.relabelled.map((c) => c.label)).toEqual(["New"])
    expect(renamed.enrolled).toEqual([])
  })

  it("virtual cards are not part of the physical set", () => {
    const virtual: MemberCard = { ...physical("000000FF"), type: "virtual", generated: true }
    const out = apply(member({ cards: [virtual] }), { cards: [] })
    expect(out.revoked).toEqual([])
    expect(out.member.cards).toEqual([virtual])
  })

  it("max 20 cards; duplicates in one request count once", () => {
    const cards = (n: number): Array<CardRequest> =>
      Array.from({ length: n }, (_, i) => ({ cardNo: String(i + 1), cardCodeFormat: "decimal" }))
    const deduplicated = apply(member(), { cards: [...cards(MAX_CARDS), ...cards(5)] })
    expect(deduplicated.member.cards).toHaveLength(20)
    expect(messages(member(), { cards: cards(MAX_CARDS + 1) })).toEqual([
      "cards must name at most 20 distinct cards (got 21)",
    ])
  })
})

describe("PUT credentials rule 3: auto-generated virtual card", () => {
  it("a face and zero physical cards creates one virtual card returned with generated true", () => {
    const out = apply(member(), { face: JPEG_B64, faceConsentAt: CONSENT })
    expect(out.generated).toMatchObject({ type: "virtual", generated: true, uid: 0x11223344 })
    expect(out.enrolled).toEqual([out.generated])
    const view = credentialsView(out.member)
    expect(view.cards).toEqual([
      {
        cardId: "card-1",
        cardNo: "1144201745",
        label: "Card 11223344",
        type: "virtual",
        generated: true,
      },
    ])
    expect(view.face).toEqual({ present: true })
  })

  it("revoking the last physical card of a member with a face generates it", () => {
    const m = member({ cards: [physical("0000000A")], face: { present: true } })
    expect(apply(m, { cards: [] }).generated).toBeDefined()
  })

  it("no face or an active physical card means no generated card", () => {
    expect(apply(member(), { cards: [] }).generated).toBeUndefined()
    const withCard = apply(member(), {
      face: JPEG_B64,
      faceConsentAt: CONSENT,
      cards: [{ cardNo: "1", cardCodeFormat: "decimal" }],
    })
    expect(withCard.generated).toBeUndefined()
  })

  it("it is never generated twice", () => {
    const once = apply(member(), { face: JPEG_B64, faceConsentAt: CONSENT })
    const twice = apply(once.member, { face: JPEG_B64, faceConsentAt: CONSENT, cards: [] })
    expect(twice.generated).toBeUndefined()
    expect(twice.member.cards.filter((c) => c.generated)).toHaveLength(1)
    const erasedAndBack = apply(apply(twice.member, { face: null }).member, {
      face: JPEG_B64,
      faceConsentAt: CONSENT,
    })
    expect(erasedAndBack.generated).toBeUndefined()
  })

  it("physical cards added later do not retire it", () => {
    const once = apply(member(), { face: JPEG_B64, faceConsentAt: CONSENT })
    const later = apply(once.member, { cards: [{ cardNo: "1", cardCodeFormat: "decimal" }] })
    expect(later.revoked).toEqual([])
    expect(later.member.cards.some((c) => c.generated)).toBe(true)
  })

  it("the number is project-unique: taken numbers and 0 are skipped", () => {
    const issuer = makeIssuer([0, 0x11223344, 0x55667788], new Set([0x11223344]))
    expect(issueVirtualCard(issuer).uid).toBe(0x55667788)
  })

  it("running out of free numbers is a defect, not a client error", () => {
    expect(() => issueVirtualCard(makeIssuer([7], new Set([7])))).toThrow()
  })
})

describe("PUT credentials rule 4: 400 SV001, one message per violation", () => {
  it("an unparseable cardNo names the card", () => {
    expect(messages(member(), { cards: [{ cardNo: "1" }, hexCard("x1")] })).toEqual([
      `cards[1].cardNo "x1" is not a valid hex card number (exactly 8 hex digits)`,
    ])
  })

  it("a string face without faceConsentAt is refused", () => {
    expect(messages(member(), { face: JPEG_B64 })).toEqual([
      "faceConsentAt is required when face is set",
    ])
  })

  it("faceConsentAt must be a date-time", () => {
    expect(messages(member(), { face: JPEG_B64, faceConsentAt: "yesterday" })).toEqual([
      "faceConsentAt must be an ISO 8601 date-time",
    ])
  })

  it("an invalid image is refused", () => {
    expect(messages(member(), { face: btoa("GIF89a"), faceConsentAt: CONSENT })).toEqual([
      "face is not a JPEG or PNG image",
    ])
  })

  it("all violations are reported together and nothing is applied", () => {
    expect(messages(member(), { face: "!!", cards: [{ cardNo: "zz" }] })).toHaveLength(3)
  })
})

describe("PUT credentials rule 5: the member must be active", () => {
  it("a deactivated member gives MemberOffboarded (409 SV006)", () => {
    const r = applyCredentials(member({ status: "deactivated" }), { cards: [] }, makeIssuer())
    expect(Result.isFailure(r) && r.failure).toMatchObject({
      _tag: "MemberOffboarded",
      memberId: "m1",
    })
  })

  it("a malformed request is 400 before the state check", () => {
    const r = applyCredentials(member({ status: "deactivated" }), { face: "x" }, makeIssuer())
    expect(Result.isFailure(r) && r.failure._tag).toBe("ValidationFailed")
  })
})

describe("PUT credentials: properties", () => {
  const FORMATS: Array<CardCodeFormat> = ["decimal-reversed", "decimal", "hex", "hex-reversed"]
  const cardReq = fc
    .tuple(fc.integer({ min: 0, max: 40 }), fc.constantFrom(...FORMATS))
    .map(([n, format]): CardRequest => ({
      cardNo: Result.getOrThrow(encodeCardNumber(n as CardUid, format)),
      cardCodeFormat: format,
    }))
  const existing = fc.uniqueArray(fc.integer({ min: 0, max: 40 }), { maxLength: 20 }).map((ns) =>
    ns.map((n): MemberCard => ({
      cardId: `old-${n}`,
      uid: n as CardUid,
      label: `L${n}`,
      type: "real",
      generated: false,
    })),
  )
  const request = fc.record(
    {
      cards: fc.array(cardReq, { maxLength: 30 }),
      face: fc.constantFrom(null, JPEG_B64),
    },
    { requiredKeys: [] },
  ).map((r): CredentialsRequest =>
    typeof r.face === "string" ? { ...r, faceConsentAt: CONSENT } : r,
  )
  const decodeReq = (c: CardRequest) =>
    Result.getOrThrow(decodeCardNumber(c.cardNo, c.cardCodeFormat))
  const distinctCount = (req: CredentialsRequest) => new Set(req.cards?.map(decodeReq)).size
  const physicalUids = (o: CredentialsOutcome) =>
    uids(o.member.cards.filter((c) => c.type === "real"))

  it("the card diff is idempotent: applying the same request twice changes nothing more", () => {
    fc.assert(
      fc.property(existing, fc.boolean(), request, (cards, face, req) => {
        fc.pre(distinctCount(req) <= MAX_CARDS)
        const first = apply(member({ cards, face: { present: face } }), req)
        const second = apply(first.member, req)
        expect(second.enrolled).toEqual([])
        expect(second.revoked).toEqual([])
        expect(second.relabelled).toEqual([])
        expect(second.generated).toBeUndefined()
        expect(uids(second.member.cards)).toEqual(uids(first.member.cards))
      }),
    )
  })

  it("after the call the physical set is exactly the requested UIDs; nothing is lost", () => {
    fc.assert(
      fc.property(existing, request, (cards, req) => {
        fc.pre(req.cards !== undefined && distinctCount(req) <= MAX_CARDS)
        const out = apply(member({ cards }), req)
        const wanted = [...new Set(req.cards!.map(decodeReq))]
        expect(physicalUids(out)).toEqual(wanted.sort((a, b) => a - b))
        const enrolled = new Set(out.enrolled.map((c) => c.uid))
        expect(out.revoked.every((c) => !enrolled.has(c.uid))).toBe(true)
        const enrolledPhysical = out.enrolled.filter((c) => c.type === "real").length
        // every previous card is either revoked or still held
        expect(out.revoked.length + physicalUids(out).length - enrolledPhysical).toBe(cards.length)
      }),
    )
  })

  it("at most one generated card ever, whatever the sequence of requests", () => {
    fc.assert(
      fc.property(fc.array(request, { maxLength: 8 }), (reqs) => {
        let m = member()
        let generatedCount = 0
        for (const req of reqs) {
          if (distinctCount(req) > MAX_CARDS) continue
          const out = apply(m, req)
          if (out.generated) generatedCount++
          m = out.member
        }
        expect(generatedCount).toBeLessThanOrEqual(1)
        expect(m.cards.filter((c) => c.generated).length).toBe(generatedCount)
      }),
    )
  })
})
