import type { MemberProfile, MemberStatus, PartnerMember } from "./state.ts"

/**
 * What the member stores hand to the use cases (no storage row types cross a port).
 */

/** A user as stored: its profile plus what the partner surface needs to know of its origin. */
export interface UserRecord {
  readonly id: string
  readonly profile: MemberProfile
  /** The stored case-insensitive email key (identity.ts emailLookupKey), if any. */
  readonly emailKey: string | null
  readonly username: string | null
  readonly userType: string
  readonly source: string
}

/** A user's membership of one project. */
export interface MembershipRecord {
  readonly projectId: string
  readonly userId: string
  readonly status: string
  readonly employeeId: string | null
}

/** The link an app keeps from its own user id to a member of one project. */
export interface MemberLink {
  readonly appId: string
  readonly externalUserId: string
  readonly userId: string
  readonly projectId: string
}

/** The member as one app sees it in one project, with the records it was read from. */
export interface LoadedMember {
  readonly member: PartnerMember
  readonly user: UserRecord
  readonly membership: MembershipRecord
}

export interface NewUser {
  readonly id: string
  readonly profile: MemberProfile
  readonly username?: string | undefined
  readonly userType: "member" | "visitor"
  readonly source: "partner" | "federated"
}

export interface NewMembership {
  readonly projectId: string
  readonly userId: string
  readonly employeeId?: string | undefined
  readonly status: MemberStatus
}
