import { Schema } from "effect"
import type { CardUid } from "./card-number.ts"

/**
 * Partner member status (spec "Partner member status"). "(none)" is the absence of a link
 * for this app and externalUserId, modelled as `undefined` by the transitions.
 */
export const MemberStatus = Schema.Literals(["active", "deactivated"])
export type MemberStatus = typeof MemberStatus.Type

/** `real` = a physical card the partner manages; `virtual` = issued by the service. */
export type CardType = "real" | "virtual"

/** An active card. Revoked cards leave the member record (the adapter keeps history). */
export interface MemberCard {
  readonly cardId: string
  readonly uid: CardUid
  readonly label: string
  readonly type: CardType
  /** true only for the auto-generated virtual card (PUT credentials rule 3). */
  readonly generated: boolean
}

/** Face bytes live in storage, never in the record; the record knows presence and consent. */
export interface FaceState {
  readonly present: boolean
  readonly consentAt?: string
}

export interface MemberProfile {
  readonly firstName: string
  readonly lastName: string
  readonly profileName?: string
  readonly email?: string
  /** E.164, see phone.ts. */
  readonly phone?: string
}

/** The member as one partner app manages it under one externalUserId. */
export interface PartnerMember {
  readonly memberId: string
  readonly externalUserId: string
  readonly status: MemberStatus
  readonly profile: MemberProfile
  readonly employeeId?: string
  /** The app's partner groups the member holds; empty while deactivated. */
  readonly accessGroupIds: ReadonlyArray<string>
  readonly cards: ReadonlyArray<MemberCard>
  readonly face: FaceState
}

export const generatedCard = (member: Pick<PartnerMember, "cards">): MemberCard | undefined =>
  member.cards.find((c) => c.generated)

/**
 * Sources the core needs but must not own: card ids, randomness and the project-wide card
 * registry. Adapters hand in an ObjectId factory, crypto.getRandomValues and a lookup that
 * covers every card number ever issued in the project, revoked ones included, so a fresh
 * auto-generated number never reuses an old one.
 */
export interface CardIssuer {
  readonly newCardId: () => string
  readonly random: (bytes: Uint8Array) => Uint8Array
  readonly isCardUidTaken: (uid: CardUid) => boolean
}
