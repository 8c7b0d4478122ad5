import { Result } from "effect"
import { credentialsView } from "../../core/member/credentials.ts"
import {
  IdentityConflict,
  SubjectNotAuthorized,
  SubjectUnresolved,
} from "../../core/member/errors.ts"
import { type IdentityKeys, resolveIdentity } from "../../core/member/identity.ts"
import { normalizePhone } from "../../core/member/phone.ts"
import type { CardIssuer, MemberStatus } from "../../core/member/state.ts"
import {
  type ExistingUser,
  type MemberEffect,
  type ProfilePatch,
  transition,
} from "../../core/member/transitions.ts"
import {
  rebindUnit,
  resolveUnitRoom,
  type UnitBinding,
  type UnitRequest,
  type UnitRoom,
} from "../../core/member/unit-binding.ts"
import { StateConflict, ValidationFailed } from "../../core/shared/errors.ts"
import {
  PG_SERIALIZATION_FAILURE,
  PG_UNIQUE_VIOLATION,
  pgErrorOf,
  type Queryable,
  type Tx,
} from "../postgres/database.ts"
import {
  currentUnitId,
  ensureUnitGroup,
  findLink,
  findUnitCandidates,
  insertCards,
  insertLink,
  insertMembership,
  insertUser,
  loadAccess,
  loadMember,
  loadOccupancy,
  lockExternalUser,
  lockUnits,
  lookupIdentity,
  partnerGroupIds,
  prepareCardIssuer,
  relabelCards,
  revokeCards,
  revokeDelegatedTokens,
  saveMembership,
  saveOccupancy,
  saveProfile,
  syncMemberGroups,
  unitBindingOf,
  type LoadedMember,
} from "../postgres/member-repo.ts"
import type { Services } from "../wiring/services.ts"
import {
  deviceCommandsBetween,
  type DeviceEnrollment,
  type MemberAccess,
} from "./device-enrollment.ts"

/** The caller of a partner route: an app_credentials token of a single-project app. */
export interface PartnerScope {
  readonly appId: string
  readonly projectId: string
}

export interface MemberDeps {
  readonly devices: DeviceEnrollment
}

/** PUT member body after schema validation (adapters/http/schemas/partner-requests.ts). */
export interface UpsertInput {
  readonly firstName: string
  readonly lastName: string
  readonly profileName?: string
  readonly email?: string
  readonly phone?: string
  readonly employeeId?: string
  readonly unit?: UnitRequest | null
}

/** PartnerMember (PUT member response data). */
export interface PartnerMemberView {
  readonly memberId: string
  readonly externalUserId: string
  readonly projectId: string
  readonly created: boolean
  readonly matchedBy: "link" | "email" | "phone" | "employeeId" | "provisioned"
  readonly accessGroupIds: ReadonlyArray<string>
  readonly employeeId: string | null
  readonly unit: UnitBinding | null
}

/** PartnerMemberDetail (GET member response data). */
export interface PartnerMemberDetailView {
  readonly memberId: string
  readonly externalUserId: string
  readonly projectId: string
  readonly status: MemberStatus
  readonly source: string
  readonly userType: string
  readonly accessGroupIds: ReadonlyArray<string>
  readonly employeeId: string | null
  readonly unit: UnitBinding | null
  readonly profile: {
    readonly firstName: string
    readonly lastName: string
    readonly profileName: string | null
    readonly email: string | null
    readonly phone: string | null
  }
  readonly credentials: {
    readonly cards: ReturnType<typeof credentialsView>["cards"]
    readonly face: { readonly present: boolean }
  }
}

const NO_ACCESS: MemberAccess = { groupIds: [], credentials: [] }

export const orThrow = <A, E>(r: Result.Result<A, E>): A => {
  if (Result.isFailure(r)) throw r.failure
  return r.success
}

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

/** Unique indexes that guard the identity keys, as the conflictKey a client can act on. */
const CONFLICT_KEY_OF_CONSTRAINT: Record<string, IdentityConflict["conflictKey"]> = {
  users_email_norm_uq: "email",
  users_phone_uq: "phone",
  memberships_employee_uq: "employeeId",
  users_username_uq: "employeeId",
}

/**
 * Runs a member transaction, retrying when a concurrent writer won a race the locks do not
 * cover (two ids claiming one email at once, a random card number drawn twice). The retry
 * re-reads and lets the core decide; if the race persists, the violated key is the answer.
 */
export const inMemberTransaction = async <A>(
  s: Services,
  work: (tx: Tx) => Promise<A>,
): Promise<A> => {
  for (let attempt = 1; ; attempt++) {
    try {
      return await s.database.db.transaction(work)
    } catch (e) {
      const pg = pgErrorOf(e)
      const retryable =
        pg?.code === PG_UNIQUE_VIOLATION ||
        pg?.code === PG_SERIALIZATION_FAILURE ||
        pg?.code === "40P01"
      if (!retryable || attempt >= 3) {
        const key =
          pg?.code === PG_UNIQUE_VIOLATION
            ? CONFLICT_KEY_OF_CONSTRAINT[pg.constraint ?? ""]
            : undefined
        if (key) throw new IdentityConflict({ conflictKey: key })
        if (pg?.code === PG_UNIQUE_VIOLATION)
          throw new StateConflict({ reason: "a concurrent change conflicted; retry" })
        throw e
      }
    }
  }
}

/**
 * The member linked to externalUserId for read, credentials and delete, which never create
 * one: no link is 403 SV221 (unknown external id, or linked in a project the app no longer
 * holds); a link whose member record is gone is 401 SV223.
 */
export const resolveLinkedMember = async (
  q: Queryable,
  scope: PartnerScope,
  externalUserId: string,
): Promise<LoadedMember> => {
  const link = await findLink(q, scope.appId, externalUserId)
  if (!link)
    throw new SubjectNotAuthorized({ subject: externalUserId, reason: "unknown externalUserId" })
  if (link.projectId !== scope.projectId)
    throw new SubjectNotAuthorized({
      subject: externalUserId,
      reason: "member is outside the app's project",
    })
  const loaded = await loadMember(q, { ...scope, userId: link.userId, externalUserId })
  if (!loaded) throw new SubjectUnresolved({ subject: externalUserId })
  return loaded
}

const patchOf = (input: UpsertInput): ProfilePatch => {
  let phone: string | undefined
  if (input.phone !== undefined) {
    const r = normalizePhone(input.phone)
    if (Result.isFailure(r)) throw new ValidationFailed({ messages: [`phone: ${r.failure}`] })
    phone = r.success
  }
  return {
    firstName: input.firstName,
    lastName: input.lastName,
    ...(input.profileName !== undefined ? { profileName: input.profileName } : {}),
    ...(input.email !== undefined ? { email: input.email.trim() } : {}),
    ...(phone !== undefined ? { phone } : {}),
    ...(input.employeeId !== undefined ? { employeeId: input.employeeId } : {}),
  }
}

const keysOf = (patch: ProfilePatch): IdentityKeys => ({
  ...(patch.email !== undefined ? { email: patch.email } : {}),
  ...(patch.phone !== undefined ? { phone: patch.phone } : {}),
  ...(patch.employeeId !== undefined ? { employeeId: patch.employeeId } : {}),
})

/** Cards and faces are written by credentials-service; Upsert only revokes, enrols or relabels. */
const persistCardEffects = async (
  s: Services,
  tx: Tx,
  key: { projectId: string; userId: string },
  effects: ReadonlyArray<MemberEffect>,
) => {
  const enrolled = effects.flatMap((e) => (e.kind === "CardEnrolled" ? [e.card] : []))
  const revoked = effects.flatMap((e) => (e.kind === "CardRevoked" ? [e.card.cardId] : []))
  const relabelled = effects.flatMap((e) => (e.kind === "CardRelabelled" ? [e.card] : []))
  await revokeCards(s, tx, revoked)
  await insertCards(s, tx, key, enrolled)
  await relabelCards(tx, relabelled)
}

/** Moves the member to `target` (null unbinds), deriving roles in the core under row locks. */
const rebind = async (
  s: Services,
  tx: Tx,
  projectId: string,
  memberId: string,
  target: UnitRoom | null,
) => {
  const currentId = await currentUnitId(tx, projectId, memberId)
  if (target === null && currentId === undefined) return
  await lockUnits(
    tx,
    [currentId, target?.roomId].filter((id): id is string => id !== undefined),
  )
  const occupancy = async (unitId: string) =>
    loadOccupancy(tx, unitId, await ensureUnitGroup(s, tx, unitId))
  const result = rebindUnit({
    memberId,
    current: currentId === undefined ? null : await occupancy(currentId),
    target: target === null ? null : await occupancy(target.roomId),
    now: s.clock.now(),
  })
  if (result.left) await saveOccupancy(tx, projectId, result.left)
  if (result.joined) await saveOccupancy(tx, projectId, result.joined)
}

/** PUT /partner/members/{externalUserId}: rules 1-8 and the status table. */
export const upsertPartnerMember = async (
  s: Services,
  deps: MemberDeps,
  scope: PartnerScope,
  externalUserId: string,
  input: UpsertInput,
): Promise<PartnerMemberView> => {
  const patch = patchOf(input)
  const keys = keysOf(patch)
  const { appId, projectId } = scope
  return inMemberTransaction(s, async (tx) => {
    await lockExternalUser(tx, appId, externalUserId)
    const link = await findLink(tx, appId, externalUserId)
    if (link && link.projectId !== projectId)
      throw new SubjectNotAuthorized({
        subject: externalUserId,
        reason: "member is outside the app's project",
      })
    const lookup = await lookupIdentity(tx, { appId, projectId, keys })
    const resolution = orThrow(
      resolveIdentity({
        projectId,
        externalUserId,
        keys,
        lookup: link ? { ...lookup, linked: { memberId: link.userId } } : lookup,
      }),
    )
    let target: UnitRoom | null | undefined = input.unit === null ? null : undefined
    if (input.unit) {
      const found = await findUnitCandidates(tx, projectId, input.unit)
      target = orThrow(resolveUnitRoom(found.request, found.rooms))
    }
    const groups = await partnerGroupIds(tx, appId)

    let memberId: string
    let before: LoadedMember | undefined
    let existing: LoadedMember | undefined
    if (resolution.kind === "create") {
      memberId = s.newId()
    } else {
      memberId = resolution.memberId
      if (link) {
        before = await loadMember(tx, { appId, projectId, userId: memberId, externalUserId })
        if (!before) throw new SubjectUnresolved({ subject: externalUserId })
      } else {
        // Rule 3: a user matched by email or phone who is not yet a project member joins.
        if (resolution.addToProject)
          await insertMembership(s, tx, { projectId, userId: memberId, status: "active" })
        existing = await loadMember(tx, { appId, projectId, userId: memberId, externalUserId })
        if (!existing) throw new SubjectUnresolved({ subject: externalUserId })
      }
    }
    const accessBefore =
      resolution.kind === "create" ? NO_ACCESS : await loadAccess(tx, projectId, memberId)
    const existingUser: ExistingUser | undefined = existing && {
      profile: existing.member.profile,
      ...(existing.member.employeeId !== undefined
        ? { employeeId: existing.member.employeeId }
        : {}),
      cards: existing.member.cards,
      face: existing.member.face,
    }
    const issuer = await prepareCardIssuer(s, tx, projectId)
    const [next, effects] = orThrow(
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

    if (resolution.kind === "create") {
      // Rules 6 and 7: a new member is a project member from the partner surface.
      await insertUser(s, tx, {
        id: memberId,
        profile: next.profile,
        username: resolution.username,
        userType: "member",
        source: "partner",
      })
      await insertMembership(s, tx, {
        projectId,
        userId: memberId,
        employeeId: next.employeeId,
        status: next.status,
      })
    } else {
      const current = (before ?? existing)!
      await saveProfile(s, tx, current.user, next.profile)
      await saveMembership(s, tx, current.membership, {
        status: next.status,
        employeeId: next.employeeId,
      })
    }
    if (!link) await insertLink(s, tx, { appId, externalUserId, userId: memberId, projectId })
    await syncMemberGroups(s, tx, { appId, projectId, userId: memberId }, next.accessGroupIds)
    await persistCardEffects(s, tx, { projectId, userId: memberId }, effects)
    if (target !== undefined) await rebind(s, tx, projectId, memberId, target)
    await deps.devices.record(
      tx,
      deviceCommandsBetween(
        projectId,
        memberId,
        accessBefore,
        await loadAccess(tx, projectId, memberId),
      ),
    )
    return {
      memberId,
      externalUserId,
      projectId,
      created: resolution.kind === "create",
      matchedBy: resolution.matchedBy,
      accessGroupIds: next.accessGroupIds,
      employeeId: next.employeeId ?? null,
      unit: await unitBindingOf(tx, projectId, memberId),
    }
  })
}

/** GET /partner/members/{externalUserId}: never creates a member. */
export const getPartnerMember = async (
  s: Services,
  scope: PartnerScope,
  externalUserId: string,
): Promise<PartnerMemberDetailView> => {
  const q = s.database.db
  const { member, user } = await resolveLinkedMember(q, scope, externalUserId)
  const view = credentialsView(member)
  return {
    memberId: member.memberId,
    externalUserId,
    projectId: scope.projectId,
    status: member.status,
    source: user.source,
    userType: user.userType,
    accessGroupIds: member.accessGroupIds,
    employeeId: member.employeeId ?? null,
    unit: await unitBindingOf(q, scope.projectId, member.memberId),
    profile: {
      firstName: member.profile.firstName,
      lastName: member.profile.lastName,
      profileName: member.profile.profileName ?? null,
      email: member.profile.email ?? null,
      phone: member.profile.phone ?? null,
    },
    credentials: { cards: view.cards, face: view.face },
  }
}

/**
 * DELETE /partner/members/{externalUserId}: active -> deactivated (every card revoked, the
 * app's groups withdrawn with their device access, delegated tokens revoked; link, profile,
 * face and unit kept). Already deactivated: nothing changes, still 204.
 */
export const offboardPartnerMember = async (
  s: Services,
  deps: MemberDeps,
  scope: PartnerScope,
  externalUserId: string,
): Promise<void> => {
  await inMemberTransaction(s, async (tx) => {
    await lockExternalUser(tx, scope.appId, externalUserId)
    const loaded = await resolveLinkedMember(tx, scope, externalUserId)
    const memberId = loaded.member.memberId
    const [next, effects] = orThrow(transition(loaded.member, { kind: "Offboard" }, noDrawIssuer))
    if (effects.length === 0) return
    const accessBefore = await loadAccess(tx, scope.projectId, memberId)
    await saveMembership(s, tx, loaded.membership, {
      status: next.status,
      employeeId: next.employeeId,
    })
    await persistCardEffects(s, tx, { projectId: scope.projectId, userId: memberId }, effects)
    await syncMemberGroups(s, tx, { ...scope, userId: memberId }, next.accessGroupIds)
    await revokeDelegatedTokens(s, tx, scope.appId, memberId)
    await deps.devices.record(
      tx,
      deviceCommandsBetween(
        scope.projectId,
        memberId,
        accessBefore,
        await loadAccess(tx, scope.projectId, memberId),
      ),
    )
  })
}
