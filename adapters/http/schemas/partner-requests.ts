import { Result, Schema } from "effect"
import { CardCodeFormat } from "../../../core/member/card-number.ts"
import { credentialContentViolations } from "../../../core/member/credentials.ts"
import { normalizePhone } from "../../../core/member/phone.ts"
import { Characters, characterCount, hasCharacters } from "../../../core/shared/characters.ts"
import { ValidationFailed } from "../../../core/shared/errors.ts"
import { decodeOrFail } from "../validation.ts"
import { OffsetDateTime } from "./text-rules.ts"

/**
 * Request shapes of the partner member endpoints (spec, Partner member resources). Omitted
 * optional fields are left untouched; `null` is accepted only where the spec gives it a
 * meaning (unit, face), so a client sending null elsewhere learns it was not applied.
 */

const Text = Characters

const Email = Schema.String.annotate({ format: "email" }).check(
  Schema.isPattern(/^\s*[^@\s]+@[^@\s]+\.[^@\s]+\s*$/u, { message: "must be an email address" }),
  hasCharacters(0, 320),
)

const Phone = Schema.String.check(
  Schema.makeFilter((s: string) => {
    const r = normalizePhone(s)
    return Result.isSuccess(r) ? undefined : r.failure
  }),
)

export const UnitRequestBody = Schema.Struct({
  addressNo: Text(1, 128),
  zoneId: Schema.optionalKey(Text(1, 64)),
  unitId: Schema.optionalKey(Text(1, 64)),
})

/** PartnerMemberUpsertRequest. */
export const PartnerMemberUpsertRequest = Schema.Struct({
  firstName: Text(1, 100),
  lastName: Text(0, 100),
  profileName: Schema.optionalKey(Text(0, 100)),
  email: Schema.optionalKey(Email),
  phone: Schema.optionalKey(Phone),
  employeeId: Schema.optionalKey(Text(1, 64)),
  unit: Schema.optionalKey(Schema.NullOr(UnitRequestBody)),
})
export type PartnerMemberUpsertRequest = typeof PartnerMemberUpsertRequest.Type

/** ISO 8601 with an explicit offset (spec convention 3): the one date-time rule of the API. */
const DateTime = OffsetDateTime

/** Limits: cards per member. */
export const MAX_CARDS_PER_REQUEST = 20

const CardItem = Schema.Struct({
  cardNo: Text(1, 32),
  cardCodeFormat: Schema.optionalKey(CardCodeFormat),
  label: Schema.optionalKey(Text(0, 100)),
})

/**
 * PartnerCredentialsRequest. face and faceConsentAt are only type-checked here; decoding the
 * image, the consent rule and card-number parsing are core rules (core/member/credentials.ts).
 */
export const PartnerCredentialsRequest = Schema.Struct({
  cards: Schema.optionalKey(
    Schema.Array(CardItem).check(
      Schema.isMaxLength(MAX_CARDS_PER_REQUEST, {
        message: `must hold at most ${MAX_CARDS_PER_REQUEST} cards`,
      }),
    ),
  ),
  face: Schema.optionalKey(Schema.NullOr(Schema.String)),
  faceConsentAt: Schema.optionalKey(DateTime),
})
export type PartnerCredentialsRequest = typeof PartnerCredentialsRequest.Type

const decodeCardItem = Schema.decodeUnknownResult(CardItem)

/**
 * The credentials body, or every violated constraint: when its shape is wrong, the card numbers
 * and the face that are well formed are checked too (core rule 4), so one 400 names them all.
 */
export const decodeCredentialsRequest = (raw: unknown): PartnerCredentialsRequest => {
  try {
    return decodeOrFail(PartnerCredentialsRequest, raw)
  } catch (e) {
    if (!(e instanceof ValidationFailed) || typeof raw !== "object" || raw === null) throw e
    const { cards, face } = raw as { cards?: unknown; face?: unknown }
    const wellFormed = (Array.isArray(cards) ? cards : []).flatMap((card: unknown, i) => {
      const item = decodeCardItem(card)
      return Result.isSuccess(item) ? [[i, item.success] as const] : []
    })
    const content = credentialContentViolations({ cards: wellFormed, ...(typeof face === "string" ? { face } : {}) })
    throw content.length === 0 ? e : new ValidationFailed({ messages: [...e.messages, ...content] })
  }
}

/** Path parameter externalUserId: 1-128 characters (code points), opaque to the service. */
export const MAX_EXTERNAL_USER_ID = 128

/**
 * THE rule for an externalUserId, the partner routes' path and act_as's subject alike (a member
 * act_as created must be reachable on the partner routes): 1-128 characters, not only
 * whitespace, no control characters (they cannot be stored as text, NUL, or logged safely),
 * not a dot segment.
 */
export const ExternalUserId = Characters(1, MAX_EXTERNAL_USER_ID).check(
  Schema.makeFilter((id: string) => id === "" || id.trim() !== "" || "must not be only whitespace"),
  Schema.makeFilter((id: string) => !/\p{Cc}/u.test(id) || "must not contain control characters"),
  // A path segment of "." or ".." resolves away: no partner route could name such a member.
  Schema.makeFilter((id: string) => (id !== "." && id !== "..") || 'must not be "." or ".."'),
)

const ExternalUserIdPath = Schema.Struct({ externalUserId: ExternalUserId })

export const checkExternalUserId = (id: string): string => decodeOrFail(ExternalUserIdPath, { externalUserId: id }).externalUserId
