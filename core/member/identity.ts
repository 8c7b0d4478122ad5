import { Result } from "effect"
import { IdentityConflict } from "./errors.ts"
import type { MemberProfile } from "./state.ts"

/**
 * Identity resolution for PUT member (rules 2, 4, 6, 8 and the identity-conflict conditions
 * of the Errors section). The repository looks every body key up; this module decides.
 */

/** The identity keys of a PUT body. unit is a binding, never an identity key (rule 4). */
export interface IdentityKeys {
  readonly email?: string
  /** Normalized E.164 (phone.ts). */
  readonly phone?: string
  readonly employeeId?: string
}

export type IdentityKey = keyof IdentityKeys

/** Resolution order after the link (rule 2). */
export const IDENTITY_KEY_ORDER: ReadonlyArray<IdentityKey> = ["email", "phone", "employeeId"]

/** The user a key resolved to. */
export interface KeyHolder {
  readonly memberId: string
  /** The externalUserId under which this app manages the user, if it does. */
  readonly linkedExternalUserId?: string
  /** Whether another app manages the user (links it under an externalUserId of its own). */
  readonly managedByOtherApp?: boolean
  /** Whether the user is already a member of the project (always true for employeeId). */
  readonly isProjectMember: boolean
  /**
   * Whether the user is an admin of a project: staff the operator provisions, whom a partner
   * app may manage only through a link the operator made (the manifest's).
   */
  readonly isStaff?: boolean
}

/**
 * What the repository found: the member this app links to the externalUserId, the user whose
 * email matches case-insensitively, the user holding the normalized phone, and the project
 * member carrying employeeId. Only keys present in the body are looked up.
 */
export interface IdentityLookup {
  readonly linked?: { readonly memberId: string }
  readonly email?: KeyHolder
  readonly phone?: KeyHolder
  readonly employeeId?: KeyHolder
}

export type MatchedBy = "link" | "email" | "phone" | "employeeId" | "provisioned"

export type IdentityResolution =
  | {
      readonly kind: "existing"
      readonly memberId: string
      readonly matchedBy: Exclude<MatchedBy, "provisioned">
      /** Rule 3: a user matched by email or phone who is not yet a project member joins. */
      readonly addToProject: boolean
    }
  | {
      readonly kind: "create"
      readonly matchedBy: "provisioned"
      /**
       * Rule 6: without email or phone the member has no login; with an employeeId its
       * username is `{projectId}_{employeeId}`. A keyless create (name or unit only) has no
       * username: it is reachable only through the link.
       */
      readonly username?: string
    }

/** The case-insensitive form the repository matches emails on. */
export const emailLookupKey = (email: string): string => email.trim().toLowerCase()

const conflict = (key: IdentityKey, holder: KeyHolder) =>
  new IdentityConflict(
    holder.linkedExternalUserId === undefined
      ? { conflictKey: key }
      : { conflictKey: key, linkedExternalUserId: holder.linkedExternalUserId },
  )

/**
 * Uniqueness of the keys about to be written to `memberId`: email and phone are unique across
 * all users, employeeId within the project. A key held by anyone else is a conflict on that
 * key (first in resolution order), never a silent move.
 */
export const checkKeysFree = (
  memberId: string,
  keys: IdentityKeys,
  lookup: IdentityLookup,
): Result.Result<void, IdentityConflict> => {
  for (const key of IDENTITY_KEY_ORDER) {
    const holder = keys[key] === undefined ? undefined : lookup[key]
    if (holder !== undefined && holder.memberId !== memberId) {
      return Result.fail(conflict(key, holder))
    }
  }
  return Result.void
}

/**
 * Rule 2, first hit wins: link, email, phone, employeeId, else create. Then rule 8, never
 * silently re-link: a hit managed under another externalUserId is a conflict (Errors: "a key
 * resolves to a member managed under another externalUserId"), carrying that id when this app
 * manages it; another app's ids are not disclosed. A project admin is managed by the operator. Every other key must be free or already the
 * resolved member's.
 */
export const resolveIdentity = (input: {
  readonly projectId: string
  readonly externalUserId: string
  readonly keys: IdentityKeys
  readonly lookup: IdentityLookup
}): Result.Result<IdentityResolution, IdentityConflict> => {
  const { externalUserId, keys, lookup } = input
  if (lookup.linked !== undefined) {
    const memberId = lookup.linked.memberId
    return Result.map(checkKeysFree(memberId, keys, lookup), () => ({
      kind: "existing" as const,
      memberId,
      matchedBy: "link" as const,
      addToProject: false,
    }))
  }
  for (const key of IDENTITY_KEY_ORDER) {
    const holder = keys[key] === undefined ? undefined : lookup[key]
    if (holder === undefined) continue
    // Staff matched by a key are never claimed: an app that linked an admin by email could act
    // as them (act_as carries their admin authority) and rewrite their email.
    const managedElsewhere =
      (holder.linkedExternalUserId !== undefined && holder.linkedExternalUserId !== externalUserId) ||
      holder.managedByOtherApp === true ||
      holder.isStaff === true
    if (managedElsewhere) return Result.fail(conflict(key, holder))
    return Result.map(checkKeysFree(holder.memberId, keys, lookup), () => ({
      kind: "existing" as const,
      memberId: holder.memberId,
      matchedBy: key,
      addToProject: !holder.isProjectMember,
    }))
  }
  const loginless = keys.email === undefined && keys.phone === undefined
  return Result.succeed(
    loginless && keys.employeeId !== undefined
      ? {
          kind: "create",
          matchedBy: "provisioned",
          username: derivedUsername(input.projectId, keys.employeeId),
        }
      : { kind: "create", matchedBy: "provisioned" },
  )
}

/** The login name of a member created with only an employeeId (spec PUT member rule 6). */
export const derivedUsername = (projectId: string, employeeId: string): string => `${projectId}_${employeeId}`

/**
 * The login name after an employeeId change: a name derived from the old employeeId is let go
 * (null), so the old employeeId is free for someone else; any other name stays (undefined:
 * unchanged). Not re-derived from the new one: that name may be held already (a member renamed
 * before this rule kept its derived name), and a clash there would refuse the change with a
 * false employeeId conflict.
 */
export const followingUsername = (
  username: string | null,
  projectId: string,
  before: string | undefined,
  after: string | undefined,
): null | undefined => {
  if (before === undefined || before === after || username !== derivedUsername(projectId, before)) return undefined
  return null
}

/**
 * The profile a PUT leaves on a person who is someone else's too (a member of another project,
 * or linked to another app): one user row holds their profile for every project, so an app
 * scoped elsewhere must not rename them or move their keys for the others. Names the PUT sends
 * are not applied (the stored ones stay); a changed email or phone is 409 SV006 naming the key,
 * as a key taken by someone else is.
 */
export const sharedProfileAfter = (stored: MemberProfile, requested: MemberProfile): Result.Result<MemberProfile, IdentityConflict> => {
  const emailOf = (p: MemberProfile) => (p.email === undefined ? undefined : emailLookupKey(p.email))
  if (emailOf(stored) !== emailOf(requested)) return Result.fail(new IdentityConflict({ conflictKey: "email" }))
  if (stored.phone !== requested.phone) return Result.fail(new IdentityConflict({ conflictKey: "phone" }))
  return Result.succeed(stored)
}
