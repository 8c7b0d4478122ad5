import { eq } from "drizzle-orm"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { deviceCommandsOf } from "../../../adapters/postgres/device-store.ts"
import { memberFacesTable } from "../../../adapters/postgres/schema.ts"
import { ENGINES } from "../../support/databases.ts"
import {
  CONSENT,
  decimalReversed,
  jpegBase64,
  pngBase64,
  startPartnerWorld,
  type PartnerWorld,
} from "./partner-fixture.ts"

const TEN_MB = 10 * 1024 * 1024

/** Spec: PUT credentials rules 1-5, PartnerCredentials, Limits (cards, face image). */
describe.each(ENGINES)("partner credentials on %s", (engine) => {
  let w: PartnerWorld
  let hq: any
  beforeAll(async () => {
    w = await startPartnerWorld(engine)
    hq = w.ids.projects.hq
  })
  afterAll(async () => w?.h.close())

  const onboard = async (ext: string) => {
    const res = await w.call("PUT", w.member(ext), { firstName: "C", lastName: "" })
    expect(res.status).toBe(200)
    return res.body.data.memberId as string
  }
  const creds = (ext: string, body: unknown) => w.call("PUT", `${w.member(ext)}/credentials`, body)
  const db = () => w.h.booted.services.database.db

  describe("PartnerCredentials response", () => {
    it("has memberId, cards with cardId, cardNo, label, type, generated, and face {present}", async () => {
      const memberId = await onboard("shape")
      const res = await creds("shape", { cards: [{ cardNo: "305419896", label: "Blue" }] })
      expect(res.status).toBe(200)
      expect(Object.keys(res.body.data).sort()).toEqual(["cards", "face", "memberId"])
      expect(res.body.data).toEqual({
        memberId,
        cards: [
          {
            cardId: expect.stringMatching(/^[0-9a-f]{24}$/),
            cardNo: "0305419896",
            label: "Blue",
            type: "real",
            generated: false,
          },
        ],
        face: { present: false },
      })
    })
  })

  describe("PUT credentials rule 1: face set or erase", () => {
    it("a face is stored (present true) and null erases it; bytes are never returned", async () => {
      const memberId = await onboard("face-1")
      const set = await creds("face-1", {
        face: `data:image/png;base64,${pngBase64()}`,
        faceConsentAt: CONSENT,
      })
      expect(set.status).toBe(200)
      expect(set.body.data.face).toEqual({ present: true })
      const [stored] = await db()
        .select()
        .from(memberFacesTable)
        .where(eq(memberFacesTable.userId, memberId))
      expect(stored).toMatchObject({ mimeType: "image/png", byteLength: 64 })
      expect(stored!.consentAt.toISOString()).toBe(new Date(CONSENT).toISOString())
      const detail = await w.call("GET", w.member("face-1"))
      expect(detail.body.data.credentials.face).toEqual({ present: true })
      expect(JSON.stringify(detail.body)).not.toContain(pngBase64().slice(0, 12))
      const erased = await creds("face-1", { face: null })
      expect(erased.status).toBe(200)
      expect(erased.body.data.face).toEqual({ present: false })
      expect(
        await db().select().from(memberFacesTable).where(eq(memberFacesTable.userId, memberId)),
      ).toEqual([])
    })

    it("omitting face leaves it untouched", async () => {
      await onboard("face-2")
      await creds("face-2", { face: jpegBase64(32), faceConsentAt: CONSENT })
      const res = await creds("face-2", { cards: [] })
      expect(res.body.data.face).toEqual({ present: true })
    })
  })

  describe("PUT credentials rule 2: the physical card set", () => {
    it("missing cards are enrolled, absent cards revoked, common cards kept", async () => {
      await onboard("cards-1")
      const first = await creds("cards-1", { cards: [{ cardNo: "1" }, { cardNo: "2" }] })
      const kept = first.body.data.cards.find((c: any) => c.cardNo === "0000000002")
      const second = await creds("cards-1", { cards: [{ cardNo: "2" }, { cardNo: "3" }] })
      expect(second.status).toBe(200)
      const nos = second.body.data.cards.map((c: any) => c.cardNo).sort()
      expect(nos).toEqual(["0000000002", "0000000003"])
      expect(second.body.data.cards.find((c: any) => c.cardNo === "0000000002").cardId).toBe(
        kept.cardId,
      )
    })

    it("[] revokes all physical cards", async () => {
      await onboard("cards-2")
      await creds("cards-2", { cards: [{ cardNo: "11" }, { cardNo: "12" }] })
      const res = await creds("cards-2", { cards: [] })
      expect(res.body.data.cards).toEqual([])
    })

    it("matching is on the 4-byte UID: one card submitted in two formats is one card", async () => {
      await onboard("cards-3")
      // UID 0x12345678: hex "12345678", decimal-reversed = decimal of 0x78563412.
      const res = await creds("cards-3", {
        cards: [
          { cardNo: "12345678", cardCodeFormat: "hex" },
          { cardNo: String(0x78563412), cardCodeFormat: "decimal-reversed" },
        ],
      })
      expect(res.status).toBe(200)
      expect(res.body.data.cards).toHaveLength(1)
      const again = await creds("cards-3", {
        cards: [{ cardNo: String(0x12345678), cardCodeFormat: "decimal" }],
      })
      expect(again.body.data.cards).toHaveLength(1)
      expect(again.body.data.cards[0].cardId).toBe(res.body.data.cards[0].cardId)
    })

    it("cardNo in every response is decimal-reversed, whatever format was submitted", async () => {
      await onboard("cards-4")
      const res = await creds("cards-4", { cards: [{ cardNo: "0A0B0C0D", cardCodeFormat: "hex" }] })
      expect(res.body.data.cards[0].cardNo).toBe(decimalReversed(0x0a0b0c0d))
      const detail = await w.call("GET", w.member("cards-4"))
      expect(detail.body.data.credentials.cards[0].cardNo).toBe(decimalReversed(0x0a0b0c0d))
    })

    it("a card active for another member of the project is 409 SV006", async () => {
      await onboard("cards-5a")
      await onboard("cards-5b")
      await creds("cards-5a", { cards: [{ cardNo: "987654" }] })
      const res = await creds("cards-5b", { cards: [{ cardNo: "987654" }] })
      expect(res.status).toBe(409)
      expect(res.body.code).toBe("SV006")
    })

    it("every enrolment and revocation is a device command for each of the member's groups", async () => {
      const memberId = await onboard("cards-6")
      const enrolled = await creds("cards-6", { cards: [{ cardNo: "4242" }] })
      const cardId = enrolled.body.data.cards[0].cardId
      await creds("cards-6", { cards: [] })
      const commands = await deviceCommandsOf(db(), memberId)
      const groups = [hq.accessGroups.lobby, hq.accessGroups.gym].sort()
      const of = (action: string) =>
        commands
          .filter((c) => c.action === action && c.credentialId === cardId)
          .map((c) => c.accessGroupId)
          .sort()
      expect(of("grant")).toEqual(groups)
      expect(of("revoke")).toEqual(groups)
    })
  })

  describe("PUT credentials rule 3: the auto-generated virtual card", () => {
    it("a face and zero physical cards create one virtual card with generated true", async () => {
      await onboard("virt-1")
      const res = await creds("virt-1", { face: jpegBase64(100), faceConsentAt: CONSENT })
      expect(res.status).toBe(200)
      expect(res.body.data.cards).toEqual([
        {
          cardId: expect.any(String),
          cardNo: expect.stringMatching(/^\d{10}$/),
          label: expect.any(String),
          type: "virtual",
          generated: true,
        },
      ])
    })

    it("it is never generated twice, and physical cards added later do not retire it", async () => {
      await onboard("virt-2")
      const first = await creds("virt-2", { face: jpegBase64(100), faceConsentAt: CONSENT })
      const virtual = first.body.data.cards[0]
      const again = await creds("virt-2", { face: pngBase64(), faceConsentAt: CONSENT })
      expect(again.body.data.cards).toEqual([virtual])
      const withCard = await creds("virt-2", { cards: [{ cardNo: "777" }] })
      expect(withCard.body.data.cards).toHaveLength(2)
      expect(withCard.body.data.cards).toContainEqual(virtual)
      const noCards = await creds("virt-2", { cards: [] })
      expect(noCards.body.data.cards).toEqual([virtual])
    })

    it("the member's own virtual card number sent as a card (in any format) is that one card, not a second one or a conflict", async () => {
      await onboard("virt-own")
      const first = await creds("virt-own", { face: jpegBase64(100), faceConsentAt: CONSENT })
      const virtual = first.body.data.cards[0]
      const same = await creds("virt-own", { cards: [{ cardNo: virtual.cardNo }] })
      expect(same.status, JSON.stringify(same.body)).toBe(200)
      expect(same.body.data.cards).toEqual([virtual])
      const relabelled = await creds("virt-own", { cards: [{ cardNo: virtual.cardNo, label: "Phone" }] })
      expect(relabelled.status).toBe(200)
      expect(relabelled.body.data.cards).toEqual([{ ...virtual, label: "Phone" }])
      const withOther = await creds("virt-own", { cards: [{ cardNo: virtual.cardNo }, { cardNo: "4242" }] })
      expect(withOther.body.data.cards).toHaveLength(2)
      expect(withOther.body.data.cards.filter((c: any) => c.type === "virtual")).toHaveLength(1)
    })

    it("a face with an active physical card creates no virtual card", async () => {
      await onboard("virt-3")
      const res = await creds("virt-3", {
        cards: [{ cardNo: "31337" }],
        face: jpegBase64(10),
        faceConsentAt: CONSENT,
      })
      expect(res.body.data.cards.map((c: any) => c.type)).toEqual(["real"])
    })
  })

  describe("PUT credentials rule 4: 400 SV001", () => {
    it("an unparseable cardNo is 400 SV001", async () => {
      await onboard("bad-1")
      for (const card of [
        { cardNo: "12ab" },
        { cardNo: "4294967296" },
        { cardNo: "XYZ", cardCodeFormat: "hex" },
        { cardNo: "1", cardCodeFormat: "octal" },
      ]) {
        const res = await creds("bad-1", { cards: [card] })
        expect(res.status, JSON.stringify(card)).toBe(400)
        expect(res.body.code).toBe("SV001")
      }
    })

    it("a string face without faceConsentAt is 400 SV001", async () => {
      await onboard("bad-2")
      const res = await creds("bad-2", { face: jpegBase64(10) })
      expect(res.status).toBe(400)
      expect(res.body.code).toBe("SV001")
      expect(res.body.message.join(" ")).toContain("faceConsentAt")
    })

    it("faceConsentAt that is not an ISO 8601 date-time is 400 SV001", async () => {
      await onboard("bad-2b")
      const res = await creds("bad-2b", { face: jpegBase64(10), faceConsentAt: "1" })
      expect(res.status).toBe(400)
      expect(res.body.message.join(" ")).toContain("faceConsentAt")
    })

    it("an invalid image (not JPEG or PNG by magic bytes, or not base64) is 400 SV001", async () => {
      await onboard("bad-3")
      for (const face of [
        Buffer.from("GIF89a......").toString("base64"),
        "***not base64***",
        `data:image/png;base64,${jpegBase64(10)}`,
      ]) {
        const res = await creds("bad-3", { face, faceConsentAt: CONSENT })
        expect(res.status).toBe(400)
        expect(res.body.code).toBe("SV001")
      }
      expect((await w.call("GET", w.member("bad-3"))).body.data.credentials.face).toEqual({
        present: false,
      })
    })

    it("more than 20 cards is 400 SV001", async () => {
      await onboard("bad-4")
      const cards = Array.from({ length: 21 }, (_, i) => ({ cardNo: String(500_000 + i) }))
      const res = await creds("bad-4", { cards })
      expect(res.status).toBe(400)
      expect((await creds("bad-4", { cards: cards.slice(0, 20) })).status).toBe(200)
    })

    it("a request that breaks several rules lists one message per violation, and changes nothing", async () => {
      await onboard("bad-5")
      const res = await creds("bad-5", { cards: [{ cardNo: "nope" }], face: "AAAA" })
      expect(res.status).toBe(400)
      expect(res.body.message.length).toBeGreaterThanOrEqual(2)
    })

    it("a wrong shape does not hide the card numbers and the face: every violation in one 400", async () => {
      await onboard("bad-6")
      const res = await creds("bad-6", { cards: [{ cardNo: "x" }, { cardNo: 1 }], face: "!!!", faceConsentAt: "bad" })
      expect(res.status).toBe(400)
      const text = res.body.message.join("\n")
      expect(res.body.message).toHaveLength(4)
      expect(text).toContain("cards.1.cardNo")
      expect(text).toContain("faceConsentAt")
      expect(text).toContain("cards[0]")
      expect(res.body.message.some((m: string) => /face/i.test(m) && !m.startsWith("faceConsentAt"))).toBe(true)
    })

    it("a bad externalUserId and a bad body are one 400 with both", async () => {
      const res = await w.call("PUT", w.member("x".repeat(129)), { firstName: 5, lastName: "" })
      expect(res.status).toBe(400)
      expect(res.body.message).toEqual(["externalUserId: must be at most 128 characters", "firstName: Expected string"])
    })
  })

  describe("PUT credentials rule 5: the member must be active", () => {
    it("credentials for an offboarded member are 409 SV006", async () => {
      await onboard("off-1")
      expect((await w.call("DELETE", w.member("off-1"))).status).toBe(204)
      const res = await creds("off-1", { cards: [{ cardNo: "5" }] })
      expect(res.status).toBe(409)
      expect(res.body).toMatchObject({ code: "SV006", success: false })
      expect((await w.call("GET", w.member("off-1"))).body.data.credentials.cards).toEqual([])
    })

    it("credentials for an unknown externalUserId are 403 SV221 and create nothing", async () => {
      const res = await creds("never-put", { cards: [] })
      expect(res.status).toBe(403)
      expect(res.body.code).toBe("SV221")
      expect((await w.call("GET", w.member("never-put"))).status).toBe(403)
    })
  })

  describe("Limits: face image max 10 MB decoded", () => {
    it("exactly 10 MB decoded is accepted; one byte more is 400 SV001; memory stays bounded", async () => {
      await onboard("big-face")
      const exact = jpegBase64(TEN_MB)
      expect(exact.length).toBeLessThan(w.h.booted.services.config.maxBodyBytes)
      const before = process.memoryUsage().rss
      const ok = await creds("big-face", { face: exact, faceConsentAt: CONSENT })
      expect(ok.status).toBe(200)
      expect(ok.body.data.face).toEqual({ present: true })
      const over = await creds("big-face", { face: jpegBase64(TEN_MB + 1), faceConsentAt: CONSENT })
      expect(over.status).toBe(400)
      expect(over.body.code).toBe("SV001")
      // Stated bound: one 10 MB upload grows the process by < 320 MB RSS (measured ~130 MB on
      // PostgreSQL, ~205 MB on PGlite, whose WASM heap grows and keeps the pages).
      expect(process.memoryUsage().rss - before).toBeLessThan(320 * 1024 * 1024)
      const [row] = await db()
        .select({ n: memberFacesTable.byteLength })
        .from(memberFacesTable)
        .where(eq(memberFacesTable.userId, ok.body.data.memberId))
      expect(row?.n).toBe(TEN_MB)
    })

    it("a body over the 15 MiB body limit is refused before it is buffered (413 SV001)", async () => {
      await onboard("huge-face")
      const res = await creds("huge-face", {
        face: "A".repeat(16 * 1024 * 1024),
        faceConsentAt: CONSENT,
      })
      expect(res.status).toBe(413)
      expect(res.body.code).toBe("SV001")
    })
  })
})
