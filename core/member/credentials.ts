import { Result } from "effect"
import { ValidationFailed } from "../shared/errors.ts"
import {
  type CardCodeFormat,
  type CardUid,
  decodeCardNumber,
  defaultCardLabel,
  toResponseCardNo,
} from "./card-number.ts"
import { MemberOffboarded } from "./errors.ts"
import { decodeFaceImage, type FaceImage } from "./face-image.ts"
import {
  type CardIssuer,
  type CardType,
  type MemberCard,
  type PartnerMember,
  generatedCard,
} from "./state.ts"

/** Limits: cards per member. Counted in distinct UIDs; the virtual card is not counted. */
export const MAX_CARDS = 20

/** Tries before giving up on a free random number; 2^32 numbers make a miss a defect. */
const MAX_DRAWS = 64

export interface CardRequest {
  readonly cardNo: string
  readonly cardCodeFormat?: CardCodeFormat
  readonly label?: string
}

/** PartnerCredentialsRequest: each field independent; omitted means untouched. */
export interface CredentialsRequest {
  readonly cards?: ReadonlyArray<CardRequest>
  readonly face?: string | null
  readonly faceConsentAt?: string
}

export interface DecodedCard {
  readonly uid: CardUid
  readonly label?: string
}

/** The request after rule 4: cards decoded and deduplicated by UID, face decoded. */
export interface DecodedCredentials {
  readonly cards?: ReadonlyArray<DecodedCard>
  readonly face?: { readonly image: FaceImage; readonly consentAt: string } | null
}

export type FaceChange =
  | { readonly kind: "unchanged" }
  | { readonly kind: "set"; readonly image: FaceImage; readonly consentAt: string }
  | { readonly kind: "erased" }

/** What the adapter persists and turns into device commands. */
export interface CredentialsOutcome {
  readonly member: PartnerMember
  readonly enrolled: ReadonlyArray<MemberCard>
  readonly revoked: ReadonlyArray<MemberCard>
  /** Kept cards whose label changed: storage only, no device command. */
  readonly relabelled: ReadonlyArray<MemberCard>
  /** The auto-generated virtual card created by this call (also in enrolled). */
  readonly generated: MemberCard | undefined
  readonly face: FaceChange
}

/** PartnerCredentials response data. */
export interface CredentialsView {
  readonly memberId: string
  readonly cards: ReadonlyArray<{
    readonly cardId: string
    readonly cardNo: string
    readonly label: string
    readonly type: CardType
    readonly generated: boolean
  }>
  readonly face: { readonly present: boolean }
}

/** The cards' UIDs, duplicates one card (the first label given wins); a message per bad number. */
const decodeCards = (
  cards: ReadonlyArray<readonly [index: number, card: CardRequest]>,
  messages: Array<string>,
  capped = true,
): Array<DecodedCard> => {
  const byUid = new Map<CardUid, { uid: CardUid; label?: string }>()
  for (const [i, card] of cards) {
    const decoded = decodeCardNumber(card.cardNo, card.cardCodeFormat)
    if (Result.isFailure(decoded)) {
      messages.push(`cards[${i}].${decoded.failure}`)
      continue
    }
    const seen = byUid.get(decoded.success)
    if (seen === undefined) byUid.set(decoded.success, withLabel({ uid: decoded.success }, card.label))
    else if (seen.label === undefined && card.label !== undefined) seen.label = card.label
  }
  if (capped && byUid.size > MAX_CARDS) messages.push(`cards must name at most ${MAX_CARDS} distinct cards (got ${byUid.size})`)
  return [...byUid.values()]
}

/**
 * Rule 4: every violated constraint gives one message, so a client fixes all in one round.
 * Duplicates of one UID in a request are one card; the first label given wins.
 */
export const decodeCredentials = (
  request: CredentialsRequest,
): Result.Result<DecodedCredentials, ValidationFailed> => {
  const messages: Array<string> = []
  const cards = request.cards === undefined ? undefined : decodeCards([...request.cards.entries()], messages)
  let face: DecodedCredentials["face"]
  if (request.face === null) face = null
  else if (request.face !== undefined) {
    const consentAt = request.faceConsentAt
    if (consentAt === undefined) messages.push("faceConsentAt is required when face is set")
    else if (Number.isNaN(Date.parse(consentAt))) {
      messages.push("faceConsentAt must be an ISO 8601 date-time")
    }
    const image = decodeFaceImage(request.face)
    if (Result.isFailure(image)) messages.push(image.failure)
    else if (consentAt !== undefined) face = { image: image.success, consentAt }
  }
  if (messages.length > 0) return Result.fail(new ValidationFailed({ messages }))
  return Result.succeed({
    ...(cards !== undefined ? { cards } : {}),
    ...(face !== undefined ? { face } : {}),
  })
}

/**
 * The card numbers and the face image of a request whose shape is wrong elsewhere, checked as
 * far as they are well formed (the cards at their indexes, a string face), so one 400 names
 * them with the shape's faults.
 */
export const credentialContentViolations = (request: {
  readonly cards: ReadonlyArray<readonly [index: number, card: CardRequest]>
  readonly face?: string
}): ReadonlyArray<string> => {
  const messages: Array<string> = []
  // The request's own count check (the array's length) speaks for the number of cards.
  decodeCards(request.cards, messages, false)
  if (request.face !== undefined) {
    const image = decodeFaceImage(request.face)
    if (Result.isFailure(image)) messages.push(image.failure)
  }
  return messages
}

const withLabel = <T extends object>(base: T, label: string | undefined): T & { label?: string } =>
  label === undefined ? base : { ...base, label }

/**
 * A random project-unique virtual card. 0 is skipped: readers report an empty field as 0.
 * Exhausting the draws is a defect (thrown), not a client error.
 */
export const issueVirtualCard = (issuer: CardIssuer): MemberCard => {
  for (let i = 0; i < MAX_DRAWS; i++) {
    const b = issuer.random(new Uint8Array(4))
    const uid = (((b[0]! << 24) | (b[1]! << 16) | (b[2]! << 8) | b[3]!) >>> 0) as CardUid
    if (uid !== 0 && !issuer.isCardUidTaken(uid)) {
      return {
        cardId: issuer.newCardId(),
        uid,
        label: defaultCardLabel(uid),
        type: "virtual",
        generated: true,
      }
    }
  }
  throw new Error(`no free virtual card number after ${MAX_DRAWS} draws`)
}

/**
 * Rule 3: a member with a face and no active physical card gets one generated virtual card,
 * unless it already holds one. Face erasure and later physical cards leave it in place, so
 * it is never generated twice while the member stays active.
 */
export const autoGeneratedCard = (
  member: Pick<PartnerMember, "cards" | "face">,
  issuer: CardIssuer,
): MemberCard | undefined =>
  member.face.present &&
  !member.cards.some((c) => c.type === "real") &&
  generatedCard(member) === undefined
    ? issueVirtualCard(issuer)
    : undefined

/** Rules 1-3 on an active member and an already decoded request. */
export const applyDecodedCredentials = (
  member: PartnerMember,
  request: DecodedCredentials,
  issuer: CardIssuer,
): CredentialsOutcome => {
  // Rule 1: face set or erase.
  let face: FaceChange = { kind: "unchanged" }
  let faceState = member.face
  if (request.face === null) {
    if (member.face.present) face = { kind: "erased" }
    faceState = { present: false }
  } else if (request.face !== undefined) {
    face = { kind: "set", ...request.face }
    faceState = { present: true, consentAt: request.face.consentAt }
  }

  // Rule 2: physical card set diff on the UID; virtual cards are not the partner's to set.
  const enrolled: Array<MemberCard> = []
  const revoked: Array<MemberCard> = []
  const relabelled: Array<MemberCard> = []
  let cards = member.cards
  if (request.cards !== undefined) {
    const current = new Map(member.cards.filter((c) => c.type === "real").map((c) => [c.uid, c]))
    // A card whose UID is the member's own virtual card is that card (matching is on the UID):
    // it stays the one card, relabelled if asked, never enrolled a second time.
    const virtual = new Map(member.cards.filter((c) => c.type !== "real").map((c) => [c.uid, c]))
    const relabel = (card: MemberCard, label: string | undefined): MemberCard => {
      if (label === undefined || label === card.label) return card
      const next = { ...card, label }
      relabelled.push(next)
      return next
    }
    const wanted = new Set(request.cards.map((c) => c.uid))
    const physical = request.cards.flatMap((want): MemberCard[] => {
      const own = virtual.get(want.uid)
      if (own !== undefined) {
        virtual.set(want.uid, relabel(own, want.label))
        return []
      }
      const kept = current.get(want.uid)
      if (kept === undefined) {
        const card: MemberCard = {
          cardId: issuer.newCardId(),
          uid: want.uid,
          label: want.label ?? defaultCardLabel(want.uid),
          type: "real",
          generated: false,
        }
        enrolled.push(card)
        return [card]
      }
      return [relabel(kept, want.label)]
    })
    for (const card of current.values()) if (!wanted.has(card.uid)) revoked.push(card)
    cards = [...physical, ...virtual.values()]
  }

  // Rule 3: auto-generated virtual card.
  const generated = autoGeneratedCard({ cards, face: faceState }, issuer)
  if (generated !== undefined) {
    enrolled.push(generated)
    cards = [...cards, generated]
  }

  return {
    member: { ...member, cards, face: faceState },
    enrolled,
    revoked,
    relabelled,
    generated,
    face,
  }
}

/**
 * PUT credentials, rules 1-5. Rule 4 (400) is checked before rule 5 (409): a malformed
 * request is wrong whatever the member's state, and 400 tells the client what to fix.
 */
export const applyCredentials = (
  member: PartnerMember,
  request: CredentialsRequest,
  issuer: CardIssuer,
): Result.Result<CredentialsOutcome, ValidationFailed | MemberOffboarded> =>
  Result.flatMap(decodeCredentials(request), (decoded) =>
    member.status === "active"
      ? Result.succeed(applyDecodedCredentials(member, decoded, issuer))
      : Result.fail(new MemberOffboarded({ memberId: member.memberId })),
  )

export const credentialsView = (member: PartnerMember): CredentialsView => ({
  memberId: member.memberId,
  cards: member.cards.map((c) => ({
    cardId: c.cardId,
    cardNo: toResponseCardNo(c.uid),
    label: c.label,
    type: c.type,
    generated: c.generated,
  })),
  face: { present: member.face.present },
})
