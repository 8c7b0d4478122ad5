import { toResponseCardNo } from "../../core/member/card-number.ts"
import {
  applyDecodedCredentials,
  type CredentialsRequest,
  type CredentialsView,
  credentialsView,
  decodeCredentials,
} from "../../core/member/credentials.ts"
import { MemberOffboarded } from "../../core/member/errors.ts"
import { StateConflict } from "../../core/shared/errors.ts"
import {
  cardsHeldByOthers,
  eraseFace,
  insertCards,
  loadAccess,
  lockExternalUser,
  prepareCardIssuer,
  relabelCards,
  revokeCards,
  saveFace,
} from "../postgres/member-repo.ts"
import type { Services } from "../wiring/services.ts"
import { deviceCommandsBetween } from "./device-enrollment.ts"
import {
  inMemberTransaction,
  type MemberDeps,
  orThrow,
  type PartnerScope,
  resolveLinkedMember,
} from "./partner-member-service.ts"

/**
 * PUT /partner/members/{externalUserId}/credentials, rules 1-5. The request (cards and the
 * up-to-10 MB face) is decoded before the transaction opens, so no lock is held while a
 * large image is checked, and rule 4 (400) answers before rule 5 (409) as the core orders
 * them.
 */
export const setPartnerCredentials = async (
  s: Services,
  deps: MemberDeps,
  scope: PartnerScope,
  externalUserId: string,
  request: CredentialsRequest,
): Promise<CredentialsView> => {
  const decoded = orThrow(decodeCredentials(request))
  const { projectId } = scope
  return inMemberTransaction(s, async (tx) => {
    await lockExternalUser(tx, scope.appId, externalUserId)
    const { member } = await resolveLinkedMember(tx, scope, externalUserId)
    // Rule 5: the member must be active.
    if (member.status !== "active") throw new MemberOffboarded({ memberId: member.memberId })
    const userId = member.memberId
    const accessBefore = await loadAccess(tx, projectId, userId)
    const outcome = applyDecodedCredentials(
      member,
      decoded,
      await prepareCardIssuer(s, tx, projectId),
    )
    // One physical card opens doors for one member: a UID active for someone else is refused.
    const physical = outcome.enrolled.filter((c) => c.type === "real").map((c) => c.uid)
    const [held] = await cardsHeldByOthers(tx, projectId, userId, physical)
    if (held)
      throw new StateConflict({
        reason: `card ${toResponseCardNo(outcome.enrolled.find((c) => c.uid === held.uid)!.uid)} is held by another member`,
      })
    if (outcome.face.kind === "set") await saveFace(s, tx, userId, outcome.face)
    if (outcome.face.kind === "erased") await eraseFace(tx, userId)
    await revokeCards(
      s,
      tx,
      outcome.revoked.map((c) => c.cardId),
    )
    await insertCards(s, tx, { projectId, userId }, outcome.enrolled)
    await relabelCards(tx, outcome.relabelled)
    await deps.devices.record(
      tx,
      deviceCommandsBetween(
        projectId,
        userId,
        accessBefore,
        await loadAccess(tx, projectId, userId),
      ),
    )
    return credentialsView(outcome.member)
  })
}
