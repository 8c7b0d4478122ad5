import { Result, Schema } from "effect"
import * as fc from "fast-check"
import { describe, expect, it } from "vitest"
import {
  CARD_CODE_FORMAT_ALIASES,
  CARD_CODE_FORMATS,
  type CanonicalCardCodeFormat,
  CardCodeFormat,
  type CardUid,
  decodeCardNumber,
  defaultCardLabel,
  encodeCardNumber,
  reverseBytes,
  toResponseCardNo,
} from "../../../core/member/card-number.ts"

// One card, UID bytes 04 A3 1B 2C, in every 4-byte format.
const UID = 0x04a31b2c as CardUid
const THREE_BYTE = new Set<CanonicalCardCodeFormat>(["hex-3byte", "decimal-3byte", "facility-card"])

const decode = (cardNo: string, format?: CardCodeFormat) =>
  Result.getOrThrow(decodeCardNumber(cardNo, format))
const encode = (uid: CardUid, format: CardCodeFormat) =>
  Result.getOrThrow(encodeCardNumber(uid, format))

const uid32 = fc.integer({ min: 0, max: 0xffffffff }).map((n) => n as CardUid)
const uid24 = fc.integer({ min: 0, max: 0xffffff }).map((n) => n as CardUid)
const formatFor = (uid: number) =>
  fc.constantFrom(...CARD_CODE_FORMATS.filter((f) => uid <= 0xffffff || !THREE_BYTE.has(f)))

describe("card numbers: cardCodeFormat decoding to the 4-byte UID", () => {
  it("decimal-reversed (default, 8H-10D-R) is the decimal of the byte-reversed UID", () => {
    expect(decode("0740008708")).toBe(UID)
    expect(decode("740008708")).toBe(UID)
    expect(decode("740008708", "decimal-reversed")).toBe(UID)
    expect(decode("740008708", "8H-10D-R")).toBe(UID)
  })

  it("decimal, hex and hex-reversed name the same card", () => {
    expect(decode("77798188", "decimal")).toBe(UID)
    expect(decode("0077798188", "decimal")).toBe(UID)
    expect(decode("04A31B2C", "hex")).toBe(UID)
    expect(decode("04a31b2c", "hex")).toBe(UID)
    expect(decode("2C1BA304", "hex-reversed")).toBe(UID)
  })

  it("3-byte forms map to a UID with high byte 0", () => {
    const low = ((123 << 16) | 45678) as CardUid
    expect(decode("7BB26E", "hex-3byte")).toBe(low)
    expect(decode("8106606", "decimal-3byte")).toBe(low)
    expect(decode("08106606", "6H-8D")).toBe(low)
    expect(decode("123-45678", "facility-card")).toBe(low)
    expect(decode("12345678", "3D-5D")).toBe(low)
    expect(decode("007BB26E", "hex")).toBe(low)
  })

  it("every response cardNo is decimal-reversed, 10 digits", () => {
    expect(toResponseCardNo(UID)).toBe("0740008708")
    expect(toResponseCardNo(decode("04A31B2C", "hex"))).toBe("0740008708")
    expect(toResponseCardNo(0 as CardUid)).toBe("0000000000")
  })

  it("canonical encodings", () => {
    expect(encode(UID, "decimal-reversed")).toBe("0740008708")
    expect(encode(UID, "decimal")).toBe("0077798188")
    expect(encode(UID, "hex")).toBe("04A31B2C")
    expect(encode(UID, "hex-reversed")).toBe("2C1BA304")
    const low = ((1 << 16) | 42) as CardUid
    expect(encode(low, "hex-3byte")).toBe("01002A")
    expect(encode(low, "decimal-3byte")).toBe("00065578")
    expect(encode(low, "facility-card")).toBe("001-00042")
  })

  it("a UID with its high byte set has no 3-byte encoding", () => {
    for (const f of THREE_BYTE) expect(Result.isFailure(encodeCardNumber(UID, f))).toBe(true)
  })

  it("unparseable cardNo gives a validation message naming the format (400 SV001)", () => {
    const bad: Array<[string, CardCodeFormat]> = [
      ["", "decimal-reversed"],
      ["abc", "decimal-reversed"],
      ["4294967296", "decimal-reversed"],
      ["12345678901", "decimal"],
      ["-1", "decimal"],
      ["1.5", "decimal"],
      ["1e3", "decimal"],
      ["04A31B2", "hex"],
      ["04A31B2C0", "hex"],
      ["0xA31B2C", "hex-reversed"],
      ["GGGGGG", "hex-3byte"],
      ["16777216", "decimal-3byte"],
      ["256-00001", "facility-card"],
      ["123-65536", "facility-card"],
      ["1234567", "facility-card"],
    ]
    for (const [cardNo, format] of bad) {
      const r = decodeCardNumber(cardNo, format)
      expect(Result.isFailure(r), `${format} ${cardNo}`).toBe(true)
      if (Result.isFailure(r)) expect(r.failure).toContain(`"${cardNo}"`)
    }
  })

  it("surrounding whitespace is ignored", () => {
    expect(decode(" 0740008708 ")).toBe(UID)
  })

  it("request validation accepts every canonical name and alias, nothing else", () => {
    const accepts = Schema.is(CardCodeFormat)
    for (const f of [...CARD_CODE_FORMATS, ...Object.keys(CARD_CODE_FORMAT_ALIASES)]) {
      expect(accepts(f)).toBe(true)
    }
    expect(accepts("octal")).toBe(false)
    expect(accepts("HEX")).toBe(false)
  })

  it("aliases decode exactly like their canonical format", () => {
    fc.assert(
      fc.property(uid24, (uid) => {
        for (const [alias, canonical] of Object.entries(CARD_CODE_FORMAT_ALIASES)) {
          const text = encode(uid, canonical)
          expect(decode(text, alias as CardCodeFormat)).toBe(uid)
        }
      }),
    )
  })

  it("default label is built from the UID", () => {
    expect(defaultCardLabel(UID)).toBe("Card 04A31B2C")
  })
})

describe("card numbers: properties", () => {
  it("every format round-trips: decode(encode(uid, f), f) = uid", () => {
    fc.assert(
      fc.property(
        uid32.chain((uid) => fc.tuple(fc.constant(uid), formatFor(uid))),
        ([uid, format]) => {
          expect(decode(encode(uid, format), format)).toBe(uid)
        },
      ),
    )
  })

  it("canonical text round-trips: encode(decode(text, f), f) = text", () => {
    fc.assert(
      fc.property(
        uid32.chain((uid) => fc.tuple(fc.constant(uid), formatFor(uid))),
        ([uid, format]) => {
          const text = encode(uid, format)
          expect(encode(decode(text, format), format)).toBe(text)
        },
      ),
    )
  })

  it("equal UIDs submitted in different formats always match", () => {
    fc.assert(
      fc.property(
        uid32.chain((uid) => fc.tuple(fc.constant(uid), formatFor(uid), formatFor(uid))),
        ([uid, f1, f2]) => {
          expect(decode(encode(uid, f1), f1)).toBe(decode(encode(uid, f2), f2))
          const cardNo = toResponseCardNo(decode(encode(uid, f1), f1))
          expect(cardNo).toBe(encode(uid, "decimal-reversed"))
        },
      ),
    )
  })

  it("decimals match with or without zero padding", () => {
    fc.assert(
      fc.property(uid32, (uid) => {
        const padded = encode(uid, "decimal-reversed")
        expect(decode(padded.replace(/^0+(?=\d)/, ""))).toBe(uid)
      }),
    )
  })

  it("distinct UIDs never share a cardNo", () => {
    fc.assert(
      fc.property(uid32, uid32, (a, b) => {
        fc.pre(a !== b)
        expect(toResponseCardNo(a)).not.toBe(toResponseCardNo(b))
      }),
    )
  })

  it("byte reversal is an involution", () => {
    fc.assert(
      fc.property(uid32, (uid) => {
        expect(reverseBytes(reverseBytes(uid))).toBe(uid)
      }),
    )
  })
})
