import { and, asc, eq, ne, notInArray, sql } from "drizzle-orm"
import { Effect, Layer, Option } from "effect"
import type { CardUid } from "../../core/member/card-number.ts"
import type { DeviceCredential, MemberAccess } from "../../core/member/device-access.ts"
import { emailLookupKey, type IdentityKeys, type IdentityLookup, type KeyHolder } from "../../core/member/identity.ts"
import type { LoadedMember, MemberLink, MembershipRecord, UserRecord } from "../../core/member/records.ts"
import type { MemberCard, MemberProfile, MemberStatus, PartnerMember } from "../../core/member/state.ts"
import { Clock } from "../../core/ports/clock.ts"
import { MemberStore } from "../../core/ports/member-store.ts"
import type { Queryable } from "./database.ts"
import { memberWrite } from "./member-races.ts"
import {
  appLinksTable,
  appPartnerGroupsTable,
  appProjectsTable,
  memberAccessGroupsTable,
  memberCardsTable,
  memberFacesTable,
  projectMembershipsTable,
  usersTable,
} from "./schema.ts"
import { read, SqlDatabase } from "./unit-of-work.ts"

type UserRow = typeof usersTable.$inferSelect
type MembershipRow = typeof projectMembershipsTable.$inferSelect
type LinkRow = typeof appLinksTable.$inferSelect

const linkOf = (r: LinkRow): MemberLink => ({
  appId: r.appId,
  externalUserId: r.externalUserId,
  userId: r.userId,
  projectId: r.projectId,
})

const profileOf = (u: UserRow): MemberProfile => ({
  firstName: u.firstName,
  lastName: u.lastName,
  ...(u.profileName !== null ? { profileName: u.profileName } : {}),
  ...(u.email !== null ? { email: u.email } : {}),
  ...(u.phone !== null ? { phone: u.phone } : {}),
})

const userOf = (u: UserRow): UserRecord => ({
  id: u.id,
  profile: profileOf(u),
  emailKey: u.emailNorm,
  username: u.username,
  userType: u.userType,
  source: u.source,
})

const membershipOf = (m: MembershipRow): MembershipRecord => ({
  projectId: m.projectId,
  userId: m.userId,
  status: m.status,
  employeeId: m.employeeId,
})

const cardOf = (r: typeof memberCardsTable.$inferSelect): MemberCard => ({
  cardId: r.id,
  uid: r.uid as CardUid,
  label: r.label,
  type: r.type === "virtual" ? "virtual" : "real",
  generated: r.generated,
})

const profileColumns = (p: MemberProfile) => ({
  firstName: p.firstName,
  lastName: p.lastName,
  profileName: p.profileName ?? null,
  email: p.email ?? null,
  emailNorm: p.email === undefined ? null : emailLookupKey(p.email),
  phone: p.phone ?? null,
})

// ---- SQL (Promise functions over a connection or transaction) ----------------------------

const findLink = async (q: Queryable, appId: string, externalUserId: string) => {
  const [row] = await q
    .select()
    .from(appLinksTable)
    .where(and(eq(appLinksTable.appId, appId), eq(appLinksTable.externalUserId, externalUserId)))
  return row
}

const findLinkOfUser = async (q: Queryable, appId: string, userId: string) => {
  const [row] = await q
    .select()
    .from(appLinksTable)
    .where(and(eq(appLinksTable.appId, appId), eq(appLinksTable.userId, userId)))
  return row
}

/** Whether an app other than `appId` links the user. */
const linkedByOtherApp = async (q: Queryable, appId: string, userId: string): Promise<boolean> =>
  (
    await q
      .select({ appId: appLinksTable.appId })
      .from(appLinksTable)
      .where(and(ne(appLinksTable.appId, appId), eq(appLinksTable.userId, userId)))
      .limit(1)
  ).length > 0

/** Whether the user is an active admin of any project (core KeyHolder.isStaff). */
const isStaff = async (q: Queryable, userId: string): Promise<boolean> =>
  (
    await q
      .select({ userId: projectMembershipsTable.userId })
      .from(projectMembershipsTable)
      .where(and(eq(projectMembershipsTable.userId, userId), eq(projectMembershipsTable.role, "admin"), eq(projectMembershipsTable.status, "active")))
      .limit(1)
  ).length > 0

const findUser = async (q: Queryable, userId: string) => {
  const [row] = await q.select().from(usersTable).where(eq(usersTable.id, userId))
  return row
}

const findMembership = async (q: Queryable, projectId: string, userId: string) => {
  const [row] = await q
    .select()
    .from(projectMembershipsTable)
    .where(and(eq(projectMembershipsTable.projectId, projectId), eq(projectMembershipsTable.userId, userId)))
  return row
}

/** Active cards of the member, oldest first (also read by the credential store). */
export const activeCards = async (q: Queryable, projectId: string, userId: string) =>
  (
    await q
      .select()
      .from(memberCardsTable)
      .where(
        and(
          eq(memberCardsTable.projectId, projectId),
          eq(memberCardsTable.userId, userId),
          eq(memberCardsTable.status, "active"),
        ),
      )
      .orderBy(asc(memberCardsTable.enrolledAt), asc(memberCardsTable.id))
  ).map(cardOf)

/** Face presence and consent; the bytes are never read on this path. */
const faceInfo = async (q: Queryable, userId: string) => {
  const [row] = await q
    .select({ faceId: memberFacesTable.faceId, consentAt: memberFacesTable.consentAt })
    .from(memberFacesTable)
    .where(eq(memberFacesTable.userId, userId))
  return row
}

const lookupIdentity = async (
  q: Queryable,
  input: { appId: string; projectId: string; keys: IdentityKeys },
): Promise<IdentityLookup> => {
  const { appId, projectId, keys } = input
  const holder = async (userId: string | undefined): Promise<KeyHolder | undefined> => {
    if (userId === undefined) return undefined
    const link = await findLinkOfUser(q, appId, userId)
    const membership = await findMembership(q, projectId, userId)
    return {
      memberId: userId,
      ...(link ? { linkedExternalUserId: link.externalUserId } : {}),
      managedByOtherApp: await linkedByOtherApp(q, appId, userId),
      isProjectMember: membership !== undefined,
      isStaff: await isStaff(q, userId),
    }
  }
  const byEmail =
    keys.email === undefined
      ? undefined
      : (await q.select().from(usersTable).where(eq(usersTable.emailNorm, emailLookupKey(keys.email))))[0]
  const byPhone =
    keys.phone === undefined ? undefined : (await q.select().from(usersTable).where(eq(usersTable.phone, keys.phone)))[0]
  const byEmployee =
    keys.employeeId === undefined
      ? undefined
      : (
          await q
            .select()
            .from(projectMembershipsTable)
            .where(
              and(
                eq(projectMembershipsTable.projectId, projectId),
                eq(projectMembershipsTable.employeeId, keys.employeeId),
              ),
            )
        )[0]
  const email = await holder(byEmail?.id)
  const phone = await holder(byPhone?.id)
  const employeeId = await holder(byEmployee?.userId)
  return {
    ...(email ? { email } : {}),
    ...(phone ? { phone } : {}),
    ...(employeeId ? { employeeId } : {}),
  }
}

const loadMember = async (
  q: Queryable,
  input: { appId: string; projectId: string; userId: string; externalUserId: string },
): Promise<LoadedMember | undefined> => {
  const user = await findUser(q, input.userId)
  const membership = user && (await findMembership(q, input.projectId, input.userId))
  if (!user || !membership) return undefined
  const groups = await q
    .select()
    .from(memberAccessGroupsTable)
    .where(
      and(
        eq(memberAccessGroupsTable.appId, input.appId),
        eq(memberAccessGroupsTable.userId, input.userId),
        eq(memberAccessGroupsTable.projectId, input.projectId),
      ),
    )
    .orderBy(asc(memberAccessGroupsTable.accessGroupId))
  const face = await faceInfo(q, input.userId)
  const member: PartnerMember = {
    memberId: user.id,
    externalUserId: input.externalUserId,
    status: (membership.status === "deactivated" ? "deactivated" : "active") satisfies MemberStatus,
    profile: profileOf(user),
    ...(membership.employeeId !== null ? { employeeId: membership.employeeId } : {}),
    accessGroupIds: groups.map((g) => g.accessGroupId),
    cards: await activeCards(q, input.projectId, input.userId),
    face: face ? { present: true, consentAt: face.consentAt.toISOString() } : { present: false },
  }
  return { member, user: userOf(user), membership: membershipOf(membership) }
}

const loadAccess = async (q: Queryable, projectId: string, userId: string): Promise<MemberAccess> => {
  const groups = await q
    .selectDistinct({ id: memberAccessGroupsTable.accessGroupId })
    .from(memberAccessGroupsTable)
    .where(and(eq(memberAccessGroupsTable.projectId, projectId), eq(memberAccessGroupsTable.userId, userId)))
  const cards = await activeCards(q, projectId, userId)
  const face = await faceInfo(q, userId)
  const credentials: DeviceCredential[] = cards.map((c) => ({ kind: "card", id: c.cardId, uid: c.uid }))
  if (face) credentials.push({ kind: "face", id: face.faceId })
  return { groupIds: groups.map((g) => g.id).sort(), credentials }
}

/** Users, memberships, app links and app group grants on PostgreSQL / PGlite. */
export const MemberStorePostgres = Layer.effect(
  MemberStore,
  Effect.gen(function* () {
    const database = yield* SqlDatabase
    const clock = yield* Clock
    const r = <A>(f: (q: Queryable) => Promise<A>) => read(f).pipe(Effect.provideService(SqlDatabase, database))
    const now = () => new Date(clock.now())
    return MemberStore.of({
      // Serializes every write for one (app, externalUserId) across all server processes: 20
      // concurrent PUTs for a new id run one after the other, so the first creates and links
      // and the rest resolve by that link. Released on commit or rollback.
      lockExternal: (appId, externalUserId) =>
        memberWrite("MemberStore.lockExternal", async (tx) => {
          await tx.execute(sql`select pg_advisory_xact_lock(hashtextextended(${`${appId}:${externalUserId}`}, 7))`)
        }),
      link: (appId, externalUserId) =>
        r((q) => findLink(q, appId, externalUserId)).pipe(Effect.map((row) => Option.fromUndefinedOr(row).pipe(Option.map(linkOf)))),
      linkOfUser: (appId, userId) =>
        r((q) => findLinkOfUser(q, appId, userId)).pipe(Effect.map((row) => Option.fromUndefinedOr(row).pipe(Option.map(linkOf)))),
      user: (userId) => r((q) => findUser(q, userId)).pipe(Effect.map((row) => Option.fromUndefinedOr(row).pipe(Option.map(userOf)))),
      membership: (projectId, userId) =>
        r((q) => findMembership(q, projectId, userId)).pipe(
          Effect.map((row) => Option.fromUndefinedOr(row).pipe(Option.map(membershipOf))),
        ),
      appProjects: (appId) =>
        r(async (q) => (await q.select().from(appProjectsTable).where(eq(appProjectsTable.appId, appId))).map((p) => p.projectId)),
      partnerGroups: (appId) =>
        r(async (q) =>
          (
            await q
              .select()
              .from(appPartnerGroupsTable)
              .where(eq(appPartnerGroupsTable.appId, appId))
              .orderBy(asc(appPartnerGroupsTable.accessGroupId))
          ).map((g) => g.accessGroupId),
        ),
      lookupIdentity: (input) => r((q) => lookupIdentity(q, input)),
      profileShared: ({ appId, projectId, userId }) =>
        r(async (q) => {
          if (await linkedByOtherApp(q, appId, userId)) return true
          const [other] = await q
            .select({ projectId: projectMembershipsTable.projectId })
            .from(projectMembershipsTable)
            .where(and(eq(projectMembershipsTable.userId, userId), ne(projectMembershipsTable.projectId, projectId)))
            .limit(1)
          return other !== undefined
        }),
      load: (input) => r((q) => loadMember(q, input)).pipe(Effect.map(Option.fromUndefinedOr)),
      access: (projectId, userId) => r((q) => loadAccess(q, projectId, userId)),
      insertUser: (values) =>
        memberWrite("MemberStore.insertUser", async (tx) => {
          const at = now()
          await tx.insert(usersTable).values({
            id: values.id,
            ...profileColumns(values.profile),
            username: values.username ?? null,
            userType: values.userType,
            source: values.source,
            createdAt: at,
            updatedAt: at,
          })
        }),
      // A federated visitor provisioned through PUT member becomes a member.
      saveProfile: (user, profile, username) => {
        const next = { ...profileColumns(profile), userType: "member", username: username === undefined ? user.username : username }
        const stored = { ...profileColumns(user.profile), emailNorm: user.emailKey, userType: user.userType, username: user.username }
        const changed = (Object.keys(next) as Array<keyof typeof next>).some((k) => stored[k] !== next[k])
        if (!changed) return Effect.void
        return memberWrite("MemberStore.saveProfile", async (tx) => {
          await tx
            .update(usersTable)
            .set({ ...next, updatedAt: now() })
            .where(eq(usersTable.id, user.id))
        })
      },
      insertMembership: (values) =>
        memberWrite("MemberStore.insertMembership", async (tx) => {
          const at = now()
          await tx.insert(projectMembershipsTable).values({
            projectId: values.projectId,
            userId: values.userId,
            role: "member",
            employeeId: values.employeeId ?? null,
            status: values.status,
            createdAt: at,
            updatedAt: at,
          })
        }),
      saveMembership: (current, next) => {
        const employeeId = next.employeeId ?? null
        if (current.status === next.status && current.employeeId === employeeId) return Effect.void
        return memberWrite("MemberStore.saveMembership", async (tx) => {
          await tx
            .update(projectMembershipsTable)
            .set({ status: next.status, employeeId, updatedAt: now() })
            .where(
              and(
                eq(projectMembershipsTable.projectId, current.projectId),
                eq(projectMembershipsTable.userId, current.userId),
              ),
            )
        })
      },
      insertLink: (link) =>
        memberWrite("MemberStore.insertLink", async (tx) => {
          const at = now()
          await tx.insert(appLinksTable).values({ ...link, createdAt: at, updatedAt: at })
        }),
      syncGroups: (key, groupIds) =>
        memberWrite("MemberStore.syncGroups", async (tx) => {
          const mine = and(eq(memberAccessGroupsTable.appId, key.appId), eq(memberAccessGroupsTable.userId, key.userId))
          await tx
            .delete(memberAccessGroupsTable)
            .where(groupIds.length > 0 ? and(mine, notInArray(memberAccessGroupsTable.accessGroupId, [...groupIds])) : mine)
          if (groupIds.length === 0) return
          await tx
            .insert(memberAccessGroupsTable)
            .values(groupIds.map((accessGroupId) => ({ ...key, accessGroupId, grantedAt: now() })))
            .onConflictDoNothing()
        }),
    })
  }),
)
