import { Context, Effect, Layer, Option } from "effect"
import { Clock } from "../ports/clock.ts"
import { CredentialStore } from "../ports/credential-store.ts"
import { DeviceEnrollment } from "../ports/device-enrollment.ts"
import { Ids } from "../ports/ids.ts"
import { MemberStore } from "../ports/member-store.ts"
import { RateLimiter } from "../ports/rate-limiter.ts"
import { TokenStore } from "../ports/token-store.ts"
import { UnitOfWork } from "../ports/unit-of-work.ts"
import { UnitStore } from "../ports/unit-store.ts"
import { toResponseCardNo } from "./card-number.ts"
import {
  applyDecodedCredentials,
  type CredentialsRequest,
  type CredentialsView,
  credentialsView,
  decodeCredentials,
} from "./credentials.ts"
import { deviceCommandsBetween, type MemberAccess, NO_ACCESS } from "./device-access.ts"
import { MemberOffboarded, SubjectNotAuthorized, SubjectUnresolved } from "./errors.ts"
import { followingUsername, resolveIdentity, sharedProfileAfter } from "./identity.ts"
import { memberTransaction } from "./member-transaction.ts"
import {
  keysOf,
  type PartnerMemberDetailView,
  type PartnerMemberView,
  type PartnerScope,
  patchOf,
  type UpsertInput,
} from "./partner.ts"
import type { LoadedMember } from "./records.ts"
import type { CardIssuer, MemberCard } from "./state.ts"
import { type ExistingUser, type MemberEffect, transition } from "./transitions.ts"
import { rebindUnit, resolveUnitRoom, type UnitRoom } from "./unit-binding.ts"
import { StateConflict } from "../shared/errors.ts"

/** Offboarding draws no card number; a call would be a bug, so it fails loudly. */
const noDrawIssuer: CardIssuer = {
  newCardId: () => {
    throw new Error("offboarding issues no card")
  },
  random: () => {
    throw new Error("offboarding draws no card number")
  },
  isCardUidTaken: () => true,
}

/**
 * The partner member surface (spec Endpoints > Partner members): PUT/GET/DELETE member, PUT
 * credentials, and the app's request budget that guards them.
 */
export class PartnerMembers extends Context.Service<PartnerMembers>()("keyspace/core/PartnerMembers", {
  make: Effect.gen(function* () {
    const uow = yield* UnitOfWork
    const members = yield* MemberStore
    const credentials = yield* CredentialStore
    const units = yield* UnitStore
    const devices = yield* DeviceEnrollment
    const tokens = yield* TokenStore
    const limiter = yield* RateLimiter
    const clock = yield* Clock
    const ids = yield* Ids
    const inMemberTx = memberTransaction(uow)

    /**
     * The member linked to externalUserId for read, credentials and delete, which never
     * create one: no link is 403 SV221 (unknown external id, or linked in a project the app no
     * longer holds); a link whose member record is gone is 401 SV223.
     */
    const linkedMember = Effect.fnUntraced(function* (scope: PartnerScope, externalUserId: string) {
      const link = yield* members.link(scope.appId, externalUserId)
      if (Option.isNone(link))
        return yield* new SubjectNotAuthorized({ subject: externalUserId, reason: "unknown externalUserId" })
      if (link.value.projectId !== scope.projectId)
        return yield* new SubjectNotAuthorized({ subject: externalUserId, reason: "member is outside the app's project" })
      const loaded = yield* members.load({ ...scope, userId: link.value.userId, externalUserId })
      if (Option.isNone(loaded)) return yield* new SubjectUnresolved({ subject: externalUserId })
      return loaded.value
    })

    /** Records the device grants and revocations between the access before and now. */
    const recordDevices = Effect.fnUntraced(function* (projectId: string, userId: string, before: MemberAccess) {
      const after = yield* members.access(projectId, userId)
      yield* devices.record(deviceCommandsBetween(projectId, userId, before, after))
    })

    /** Cards written by setCredentials; Upsert and Offboard only revoke, enrol or relabel. */
    const persistCardEffects = Effect.fnUntraced(function* (
      key: { projectId: string; userId: string },
      effects: ReadonlyArray<MemberEffect>,
    ) {
      const enrolled: MemberCard[] = effects.flatMap((e) => (e.kind === "CardEnrolled" ? [e.card] : []))
      const revoked = effects.flatMap((e) => (e.kind === "CardRevoked" ? [e.card.cardId] : []))
      const relabelled: MemberCard[] = effects.flatMap((e) => (e.kind === "CardRelabelled" ? [e.card] : []))
      yield* credentials.revokeCards(revoked)
      yield* credentials.insertCards(key, enrolled)
      yield* credentials.relabelCards(relabelled)
    })

    /** Moves the member to `target` (null unbinds), deriving roles in the core under row locks. */
    const rebind = Effect.fnUntraced(function* (projectId: string, memberId: string, target: UnitRoom | null) {
      const currentId = yield* units.current(projectId, memberId)
      if (target === null && currentId === undefined) return
      yield* units.lock([currentId, target?.roomId].filter((id): id is string => id !== undefined))
      const occupancy = (unitId: string) =>
        units.ensureGroup(unitId).pipe(Effect.flatMap((groupId) => units.occupancy(unitId, groupId)))
      const current = currentId === undefined ? null : yield* occupancy(currentId)
      const next = target === null ? null : yield* occupancy(target.roomId)
      const result = rebindUnit({ memberId, current, target: next, now: clock.now() })
      if (result.left) yield* units.saveOccupancy(projectId, result.left)
      if (result.joined) yield* units.saveOccupancy(projectId, result.joined)
    })

    /** PUT /partner/members/{externalUserId}: rules 1-8 and the status table. */
    const upsert = Effect.fn("PartnerMembers.upsert")(function* (
      scope: PartnerScope,
      externalUserId: string,
      input: UpsertInput,
    ) {
      const patch = yield* Effect.fromResult(patchOf(input))
      const keys = keysOf(patch)
      const { appId, projectId } = scope
      return yield* inMemberTx(
        Effect.gen(function* () {
          yield* members.lockExternal(appId, externalUserId)
          const link = Option.getOrUndefined(yield* members.link(appId, externalUserId))
          if (link && link.projectId !== projectId)
            return yield* new SubjectNotAuthorized({ subject: externalUserId, reason: "member is outside the app's project" })
          const lookup = yield* members.lookupIdentity({ appId, projectId, keys })
          const resolution = yield* Effect.fromResult(
            resolveIdentity({
              projectId,
              externalUserId,
              keys,
              lookup: link ? { ...lookup, linked: { memberId: link.userId } } : lookup,
            }),
          )
          let target: UnitRoom | null | undefined = input.unit === null ? null : undefined
          if (input.unit) {
            const found = yield* units.candidates(projectId, input.unit)
            target = yield* Effect.fromResult(resolveUnitRoom(found.request, found.rooms))
          }
          const groups = yield* members.partnerGroups(appId)

          let memberId: string
          let before: LoadedMember | undefined
          let existing: LoadedMember | undefined
          if (resolution.kind === "create") {
            memberId = ids.newId()
          } else {
            memberId = resolution.memberId
            const key = { appId, projectId, userId: memberId, externalUserId }
            if (link) {
              before = Option.getOrUndefined(yield* members.load(key))
              if (!before) return yield* new SubjectUnresolved({ subject: externalUserId })
            } else {
              // Rule 3: a user matched by email or phone who is not yet a project member joins.
              if (resolution.addToProject)
                yield* members.insertMembership({ projectId, userId: memberId, status: "active" })
              existing = Option.getOrUndefined(yield* members.load(key))
              if (!existing) return yield* new SubjectUnresolved({ subject: externalUserId })
            }
          }
          const accessBefore = resolution.kind === "create" ? NO_ACCESS : yield* members.access(projectId, memberId)
          const existingUser: ExistingUser | undefined = existing && {
            profile: existing.member.profile,
            ...(existing.member.employeeId !== undefined ? { employeeId: existing.member.employeeId } : {}),
            cards: existing.member.cards,
            face: existing.member.face,
          }
          const issuer = yield* credentials.cardIssuer(projectId)
          const [next, effects] = yield* Effect.fromResult(
            transition(
              before?.member,
              {
                kind: "Upsert",
                memberId,
                externalUserId,
                patch,
                partnerAccessGroupIds: groups,
                ...(existingUser ? { existingUser } : {}),
              },
              issuer,
            ),
          )
          const current = before ?? existing
          if (current === undefined) {
            // Rules 6 and 7: a new member is a project member from the partner surface.
            yield* members.insertUser({
              id: memberId,
              profile: next.profile,
              username: resolution.kind === "create" ? resolution.username : undefined,
              userType: "member",
              source: "partner",
            })
            yield* members.insertMembership({ projectId, userId: memberId, employeeId: next.employeeId, status: next.status })
          } else {
            const username = followingUsername(current.user.username, projectId, current.membership.employeeId ?? undefined, next.employeeId)
            const shared = yield* members.profileShared({ appId, projectId, userId: memberId })
            const profile = shared ? yield* Effect.fromResult(sharedProfileAfter(current.user.profile, next.profile)) : next.profile
            yield* members.saveProfile(current.user, profile, username)
            yield* members.saveMembership(current.membership, { status: next.status, employeeId: next.employeeId })
          }
          if (!link) yield* members.insertLink({ appId, externalUserId, userId: memberId, projectId })
          yield* members.syncGroups({ appId, projectId, userId: memberId }, next.accessGroupIds)
          yield* persistCardEffects({ projectId, userId: memberId }, effects)
          if (target !== undefined) yield* rebind(projectId, memberId, target)
          yield* recordDevices(projectId, memberId, accessBefore)
          const view: PartnerMemberView = {
            memberId,
            externalUserId,
            projectId,
            created: resolution.kind === "create",
            matchedBy: resolution.matchedBy,
            accessGroupIds: next.accessGroupIds,
            employeeId: next.employeeId ?? null,
            unit: yield* units.bindingOf(projectId, memberId),
          }
          return view
        }),
      )
    })

    /** GET /partner/members/{externalUserId}: never creates a member. */
    const get = Effect.fn("PartnerMembers.get")(function* (scope: PartnerScope, externalUserId: string) {
      const { member, user } = yield* linkedMember(scope, externalUserId)
      const view = credentialsView(member)
      const detail: PartnerMemberDetailView = {
        memberId: member.memberId,
        externalUserId,
        projectId: scope.projectId,
        status: member.status,
        source: user.source,
        userType: user.userType,
        accessGroupIds: member.accessGroupIds,
        employeeId: member.employeeId ?? null,
        unit: yield* units.bindingOf(scope.projectId, member.memberId),
        profile: {
          firstName: member.profile.firstName,
          lastName: member.profile.lastName,
          profileName: member.profile.profileName ?? null,
          email: member.profile.email ?? null,
          phone: member.profile.phone ?? null,
        },
        credentials: { cards: view.cards, face: view.face },
      }
      return detail
    })

    /**
     * DELETE /partner/members/{externalUserId}: active -> deactivated (every card revoked, the
     * app's groups withdrawn with their device access, delegated tokens revoked; link,
     * profile, face and unit kept). Already deactivated: nothing changes, still 204.
     */
    const offboard = Effect.fn("PartnerMembers.offboard")(function* (scope: PartnerScope, externalUserId: string) {
      yield* inMemberTx(
        Effect.gen(function* () {
          yield* members.lockExternal(scope.appId, externalUserId)
          const loaded = yield* linkedMember(scope, externalUserId)
          const memberId = loaded.member.memberId
          const [next, effects] = yield* Effect.fromResult(transition(loaded.member, { kind: "Offboard" }, noDrawIssuer))
          if (effects.length === 0) return
          const accessBefore = yield* members.access(scope.projectId, memberId)
          yield* members.saveMembership(loaded.membership, { status: next.status, employeeId: next.employeeId })
          yield* persistCardEffects({ projectId: scope.projectId, userId: memberId }, effects)
          yield* members.syncGroups({ ...scope, userId: memberId }, next.accessGroupIds)
          yield* tokens.revokeDelegated(scope.projectId, memberId, clock.now())
          yield* recordDevices(scope.projectId, memberId, accessBefore)
        }),
      )
    })

    /**
     * PUT /partner/members/{externalUserId}/credentials, rules 1-5. The request (cards and the
     * up-to-10 MB face) is decoded before the transaction opens, so no lock is held while a
     * large image is checked, and rule 4 (400) answers before rule 5 (409) as the core orders them.
     */
    const setCredentials = Effect.fn("PartnerMembers.setCredentials")(function* (
      scope: PartnerScope,
      externalUserId: string,
      request: CredentialsRequest,
    ) {
      const decoded = yield* Effect.fromResult(decodeCredentials(request))
      const { projectId } = scope
      return yield* inMemberTx(
        Effect.gen(function* () {
          yield* members.lockExternal(scope.appId, externalUserId)
          const { member } = yield* linkedMember(scope, externalUserId)
          // Rule 5: the member must be active.
          if (member.status !== "active") return yield* new MemberOffboarded({ memberId: member.memberId })
          const userId = member.memberId
          const accessBefore = yield* members.access(projectId, userId)
          const outcome = applyDecodedCredentials(member, decoded, yield* credentials.cardIssuer(projectId))
          // One physical card opens doors for one member: a UID active for someone else is refused.
          const physical = outcome.enrolled.filter((c) => c.type === "real").map((c) => c.uid)
          const [held] = yield* credentials.cardsHeldByOthers(projectId, userId, physical)
          if (held) {
            const card = outcome.enrolled.find((c) => c.uid === held.uid)
            return yield* new StateConflict({
              reason: `card ${card === undefined ? held.uid : toResponseCardNo(card.uid)} is held by another member`,
            })
          }
          if (outcome.face.kind === "set") yield* credentials.saveFace(userId, outcome.face)
          if (outcome.face.kind === "erased") yield* credentials.eraseFace(userId)
          yield* credentials.revokeCards(outcome.revoked.map((c) => c.cardId))
          yield* credentials.insertCards({ projectId, userId }, outcome.enrolled)
          yield* credentials.relabelCards(outcome.relabelled)
          yield* recordDevices(projectId, userId, accessBefore)
          const view: CredentialsView = credentialsView(outcome.member)
          return view
        }),
      )
    })

    /** Spends one request of the app's partner budget (429 SV036 with Retry-After). */
    const admit = (appId: string) => limiter.consume(appId)

    return { upsert, get, offboard, setCredentials, admit }
  }),
}) {
  static readonly layer = Layer.effect(PartnerMembers, PartnerMembers.make)
}
