import { Context, type Effect, type Option } from "effect"
import type { MemberAccess } from "../member/device-access.ts"
import type { IdentityKeyTaken, WriteConflict } from "../member/errors.ts"
import type { IdentityKeys, IdentityLookup } from "../member/identity.ts"
import type { LoadedMember, MemberLink, MembershipRecord, NewMembership, NewUser, UserRecord } from "../member/records.ts"
import type { MemberProfile, MemberStatus } from "../member/state.ts"

/** A write that lost a race (typed, so the member transaction can retry it). */
export type MemberWriteFailure = IdentityKeyTaken | WriteConflict

/**
 * Users, project memberships, app links and the app's access-group grants. "in tx" methods
 * die outside a unit of work.
 */
export class MemberStore extends Context.Service<
  MemberStore,
  {
    /** Serializes every write for one (app, externalUserId) across processes (in tx). */
    readonly lockExternal: (appId: string, externalUserId: string) => Effect.Effect<void, MemberWriteFailure>
    readonly link: (appId: string, externalUserId: string) => Effect.Effect<Option.Option<MemberLink>>
    readonly linkOfUser: (appId: string, userId: string) => Effect.Effect<Option.Option<MemberLink>>
    readonly user: (userId: string) => Effect.Effect<Option.Option<UserRecord>>
    readonly membership: (projectId: string, userId: string) => Effect.Effect<Option.Option<MembershipRecord>>
    /** The projects an app is provisioned for. */
    readonly appProjects: (appId: string) => Effect.Effect<ReadonlyArray<string>>
    /** partnerAccessGroupIds fixed when the app was provisioned, in a stable order. */
    readonly partnerGroups: (appId: string) => Effect.Effect<ReadonlyArray<string>>
    /**
     * Whether the person is someone else's too: a member of another project, or linked to
     * another app (their profile is then not this app's to rewrite: core/member/identity.ts).
     */
    readonly profileShared: (input: { readonly appId: string; readonly projectId: string; readonly userId: string }) => Effect.Effect<boolean>
    /** Looks up every identity key present (core/member/identity.ts decides). */
    readonly lookupIdentity: (input: {
      readonly appId: string
      readonly projectId: string
      readonly keys: IdentityKeys
    }) => Effect.Effect<IdentityLookup>
    /** The member as one app sees it in one project; none when the record is missing. */
    readonly load: (input: {
      readonly appId: string
      readonly projectId: string
      readonly userId: string
      readonly externalUserId: string
    }) => Effect.Effect<Option.Option<LoadedMember>>
    /** What the member's credentials open now: every group granted by any app, every credential. */
    readonly access: (projectId: string, userId: string) => Effect.Effect<MemberAccess>
    readonly insertUser: (user: NewUser) => Effect.Effect<void, MemberWriteFailure>
    /**
     * Writes the profile (a federated visitor becomes a member) and, when given, the login name
     * (null: none); nothing when unchanged.
     */
    readonly saveProfile: (
      user: UserRecord,
      profile: MemberProfile,
      username?: string | null,
    ) => Effect.Effect<void, MemberWriteFailure>
    readonly insertMembership: (membership: NewMembership) => Effect.Effect<void, MemberWriteFailure>
    readonly saveMembership: (
      current: MembershipRecord,
      next: { readonly status: MemberStatus; readonly employeeId: string | undefined },
    ) => Effect.Effect<void, MemberWriteFailure>
    readonly insertLink: (link: MemberLink) => Effect.Effect<void, MemberWriteFailure>
    /** Makes this app's grants for the member exactly `groupIds`. */
    readonly syncGroups: (
      key: { readonly appId: string; readonly projectId: string; readonly userId: string },
      groupIds: ReadonlyArray<string>,
    ) => Effect.Effect<void, MemberWriteFailure>
  }
>()("keyspace/ports/MemberStore") {}
