import { and, asc, eq, inArray, isNull, notInArray, or, sql } from "drizzle-orm"
import { type CardUid, toResponseCardNo } from "../../core/member/card-number.ts"
import type { FaceImage } from "../../core/member/face-image.ts"
import {
  emailLookupKey,
  type IdentityKeys,
  type IdentityLookup,
  type KeyHolder,
} from "../../core/member/identity.ts"
import type {
  CardIssuer,
  MemberCard,
  MemberProfile,
  MemberStatus,
  PartnerMember,
} from "../../core/member/state.ts"
import type {
  UnitBinding,
  UnitOccupancy,
  UnitRequest,
  UnitRole,
  UnitRoom,
} from "../../core/member/unit-binding.ts"
import type { DeviceCredential, MemberAccess } from "../members/device-enrollment.ts"
import type { Services } from "../wiring/services.ts"
import { execute, type Queryable, type Tx } from "./database.ts"
import {
  appLinksTable,
  appPartnerGroupsTable,
  appProjectsTable,
  memberAccessGroupsTable,
  memberCardsTable,
  memberFacesTable,
  projectMembershipsTable,
  tokensTable,
  unitReservationGroupsTable,
  unitResidentsTable,
  unitsTable,
  usersTable,
} from "./schema.ts"

/**
 * Persistence of partner members: users, project memberships, app links, access-group grants,
 * cards, faces and unit residents. Rules live in core/member; this file only reads and writes.
 */

export type UserRow = typeof usersTable.$inferSelect
export type MembershipRow = typeof projectMembershipsTable.$inferSelect
export type LinkRow = typeof appLinksTable.$inferSelect

/**
 * Serializes every write for one (app, externalUserId) across all server processes: 20
 * concurrent PUTs for a new id run one after the other, so the first creates and links and
 * the rest resolve by that link. Transaction-scoped, so it is released on commit or rollback.
 */
export const lockExternalUser = async (tx: Tx, appId: string, externalUserId: string) => {
  await tx.execute(
    sql`select pg_advisory_xact_lock(hashtextextended(${`${appId}:${externalUserId}`}, 7))`,
  )
}

export const findLink = async (q: Queryable, appId: string, externalUserId: string) => {
  const [row] = await q
    .select()
    .from(appLinksTable)
    .where(and(eq(appLinksTable.appId, appId), eq(appLinksTable.externalUserId, externalUserId)))
  return row
}

export const findLinkOfUser = async (q: Queryable, appId: string, userId: string) => {
  const [row] = await q
    .select()
    .from(appLinksTable)
    .where(and(eq(appLinksTable.appId, appId), eq(appLinksTable.userId, userId)))
  return row
}

export const findUser = async (q: Queryable, userId: string) => {
  const [row] = await q.select().from(usersTable).where(eq(usersTable.id, userId))
  return row
}

export const findMembership = async (q: Queryable, projectId: string, userId: string) => {
  const [row] = await q
    .select()
    .from(projectMembershipsTable)
    .where(
      and(
        eq(projectMembershipsTable.projectId, projectId),
        eq(projectMembershipsTable.userId, userId),
      ),
    )
  return row
}

export const appProjectIds = async (q: Queryable, appId: string): Promise<string[]> =>
  (await q.select().from(appProjectsTable).where(eq(appProjectsTable.appId, appId))).map(
    (r) => r.projectId,
  )

/** partnerAccessGroupIds fixed when the app was provisioned, in a stable order. */
export const partnerGroupIds = async (q: Queryable, appId: string): Promise<string[]> =>
  (
    await q
      .select()
      .from(appPartnerGroupsTable)
      .where(eq(appPartnerGroupsTable.appId, appId))
      .orderBy(asc(appPartnerGroupsTable.accessGroupId))
  ).map((r) => r.accessGroupId)

/** Looks up every identity key present in the body (core/member/identity.ts decides). */
export const lookupIdentity = async (
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
      isProjectMember: membership !== undefined,
    }
  }
  const byEmail =
    keys.email === undefined
      ? undefined
      : (
          await q
            .select()
            .from(usersTable)
            .where(eq(usersTable.emailNorm, emailLookupKey(keys.email)))
        )[0]
  const byPhone =
    keys.phone === undefined
      ? undefined
      : (await q.select().from(usersTable).where(eq(usersTable.phone, keys.phone)))[0]
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

const profileOf = (u: UserRow): MemberProfile => ({
  firstName: u.firstName,
  lastName: u.lastName,
  ...(u.profileName !== null ? { profileName: u.profileName } : {}),
  ...(u.email !== null ? { email: u.email } : {}),
  ...(u.phone !== null ? { phone: u.phone } : {}),
})

const cardOf = (r: typeof memberCardsTable.$inferSelect): MemberCard => ({
  cardId: r.id,
  uid: r.uid as CardUid,
  label: r.label,
  type: r.type === "virtual" ? "virtual" : "real",
  generated: r.generated,
})

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
export const faceInfo = async (q: Queryable, userId: string) => {
  const [row] = await q
    .select({ faceId: memberFacesTable.faceId, consentAt: memberFacesTable.consentAt })
    .from(memberFacesTable)
    .where(eq(memberFacesTable.userId, userId))
  return row
}

export interface LoadedMember {
  readonly member: PartnerMember
  readonly user: UserRow
  readonly membership: MembershipRow
}

/** The member as one app sees it in one project; undefined when the record is missing. */
export const loadMember = async (
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
  return { member, user, membership }
}

/** What the member's credentials open now: every group granted by any app, every credential. */
export const loadAccess = async (
  q: Queryable,
  projectId: string,
  userId: string,
): Promise<MemberAccess> => {
  const groups = await q
    .selectDistinct({ id: memberAccessGroupsTable.accessGroupId })
    .from(memberAccessGroupsTable)
    .where(
      and(
        eq(memberAccessGroupsTable.projectId, projectId),
        eq(memberAccessGroupsTable.userId, userId),
      ),
    )
  const cards = await activeCards(q, projectId, userId)
  const face = await faceInfo(q, userId)
  const credentials: DeviceCredential[] = cards.map((c) => ({
    kind: "card",
    id: c.cardId,
    uid: c.uid,
  }))
  if (face) credentials.push({ kind: "face", id: face.faceId })
  return { groupIds: groups.map((g) => g.id).sort(), credentials }
}

// ---- writes ----------------------------------------------------------------------------

export const insertUser = async (
  s: Services,
  tx: Tx,
  values: {
    id: string
    profile: MemberProfile
    username?: string | undefined
    userType: "member" | "visitor"
    source: "partner" | "federated"
  },
) => {
  const now = new Date(s.clock.now())
  await tx.insert(usersTable).values({
    id: values.id,
    ...profileColumns(values.profile),
    username: values.username ?? null,
    userType: values.userType,
    source: values.source,
    createdAt: now,
    updatedAt: now,
  })
}

const profileColumns = (p: MemberProfile) => ({
  firstName: p.firstName,
  lastName: p.lastName,
  profileName: p.profileName ?? null,
  email: p.email ?? null,
  emailNorm: p.email === undefined ? null : emailLookupKey(p.email),
  phone: p.phone ?? null,
})

/** Writes the profile; a federated visitor provisioned through PUT member becomes a member. */
export const saveProfile = async (s: Services, tx: Tx, user: UserRow, profile: MemberProfile) => {
  const next = { ...profileColumns(profile), userType: "member" }
  const changed = Object.entries(next).some(([k, v]) => user[k as keyof UserRow] !== v)
  if (!changed) return
  await tx
    .update(usersTable)
    .set({ ...next, updatedAt: new Date(s.clock.now()) })
    .where(eq(usersTable.id, user.id))
}

export const insertMembership = async (
  s: Services,
  tx: Tx,
  values: {
    projectId: string
    userId: string
    employeeId?: string | undefined
    status: MemberStatus
  },
) => {
  const now = new Date(s.clock.now())
  await tx.insert(projectMembershipsTable).values({
    projectId: values.projectId,
    userId: values.userId,
    role: "member",
    employeeId: values.employeeId ?? null,
    status: values.status,
    createdAt: now,
    updatedAt: now,
  })
}

export const saveMembership = async (
  s: Services,
  tx: Tx,
  current: MembershipRow,
  next: { status: MemberStatus; employeeId: string | undefined },
) => {
  const employeeId = next.employeeId ?? null
  if (current.status === next.status && current.employeeId === employeeId) return
  await tx
    .update(projectMembershipsTable)
    .set({ status: next.status, employeeId, updatedAt: new Date(s.clock.now()) })
    .where(
      and(
        eq(projectMembershipsTable.projectId, current.projectId),
        eq(projectMembershipsTable.userId, current.userId),
      ),
    )
}

export const insertLink = async (
  s: Services,
  tx: Tx,
  values: { appId: string; externalUserId: string; userId: string; projectId: string },
) => {
  const now = new Date(s.clock.now())
  await tx.insert(appLinksTable).values({ ...values, createdAt: now, updatedAt: now })
}

/** Makes this app's grants for the member exactly `groupIds`. */
export const syncMemberGroups = async (
  s: Services,
  tx: Tx,
  key: { appId: string; projectId: string; userId: string },
  groupIds: ReadonlyArray<string>,
) => {
  const mine = and(
    eq(memberAccessGroupsTable.appId, key.appId),
    eq(memberAccessGroupsTable.userId, key.userId),
  )
  await tx
    .delete(memberAccessGroupsTable)
    .where(
      groupIds.length > 0
        ? and(mine, notInArray(memberAccessGroupsTable.accessGroupId, [...groupIds]))
        : mine,
    )
  if (groupIds.length === 0) return
  await tx
    .insert(memberAccessGroupsTable)
    .values(
      groupIds.map((accessGroupId) => ({
        ...key,
        accessGroupId,
        grantedAt: new Date(s.clock.now()),
      })),
    )
    .onConflictDoNothing()
}

export const insertCards = async (
  s: Services,
  tx: Tx,
  key: { projectId: string; userId: string },
  cards: ReadonlyArray<MemberCard>,
) => {
  if (cards.length === 0) return
  await tx.insert(memberCardsTable).values(
    cards.map((c) => ({
      id: c.cardId,
      ...key,
      uid: c.uid,
      cardNo: toResponseCardNo(c.uid),
      label: c.label,
      type: c.type,
      generated: c.generated,
      status: "active",
      enrolledAt: new Date(s.clock.now()),
    })),
  )
}

export const revokeCards = async (s: Services, tx: Tx, cardIds: ReadonlyArray<string>) => {
  if (cardIds.length === 0) return
  await tx
    .update(memberCardsTable)
    .set({ status: "revoked", revokedAt: new Date(s.clock.now()) })
    .where(and(inArray(memberCardsTable.id, [...cardIds]), eq(memberCardsTable.status, "active")))
}

export const relabelCards = async (tx: Tx, cards: ReadonlyArray<MemberCard>) => {
  for (const c of cards)
    await tx
      .update(memberCardsTable)
      .set({ label: c.label })
      .where(eq(memberCardsTable.id, c.cardId))
}

/** Active cards among `uids` held by anyone but `userId` in the project. */
export const cardsHeldByOthers = async (
  q: Queryable,
  projectId: string,
  userId: string,
  uids: ReadonlyArray<number>,
) =>
  uids.length === 0
    ? []
    : q
        .select({ uid: memberCardsTable.uid, userId: memberCardsTable.userId })
        .from(memberCardsTable)
        .where(
          and(
            eq(memberCardsTable.projectId, projectId),
            eq(memberCardsTable.status, "active"),
            inArray(memberCardsTable.uid, [...uids]),
            sql`${memberCardsTable.userId} <> ${userId}`,
          ),
        )

const HEX_DIGITS = new TextEncoder().encode("0123456789abcdef")

/** Hex text of bytes via one ASCII buffer and a native decode (portable to Bun and Deno). */
export const toHex = (bytes: Uint8Array): string => {
  const out = new Uint8Array(bytes.length * 2)
  for (let i = 0; i < bytes.length; i++) {
    const b = bytes[i]!
    out[2 * i] = HEX_DIGITS[b >>> 4]!
    out[2 * i + 1] = HEX_DIGITS[b & 15]!
  }
  return new TextDecoder().decode(out)
}

/**
 * Stores the face. The bytes travel as hex text decoded by PostgreSQL: PGlite serializes a
 * bytea parameter byte by byte in JavaScript (about 4 s for 10 MB), text is ~15x faster on
 * both engines. `excluded` keeps the image to a single parameter on replace.
 */
export const saveFace = async (
  s: Services,
  tx: Tx,
  userId: string,
  face: { image: FaceImage; consentAt: string },
) => {
  const values = {
    faceId: s.newId(),
    mimeType: face.image.mimeType,
    byteLength: face.image.bytes.length,
    consentAt: new Date(face.consentAt),
    updatedAt: new Date(s.clock.now()),
  }
  await tx
    .insert(memberFacesTable)
    .values({ userId, ...values, bytes: sql`decode(${toHex(face.image.bytes)}, 'hex')` })
    .onConflictDoUpdate({
      target: memberFacesTable.userId,
      set: { ...values, bytes: sql`excluded.bytes` },
    })
}

export const eraseFace = async (tx: Tx, userId: string) => {
  await tx.delete(memberFacesTable).where(eq(memberFacesTable.userId, userId))
}

/** Offboarding withdraws the member's delegated (act_as) tokens minted through this app. */
export const revokeDelegatedTokens = async (s: Services, tx: Tx, appId: string, userId: string) => {
  await tx
    .update(tokensTable)
    .set({ revokedAt: new Date(s.clock.now()) })
    .where(
      and(
        eq(tokensTable.appId, appId),
        eq(tokensTable.subjectUserId, userId),
        eq(tokensTable.grant, "act_as"),
        isNull(tokensTable.revokedAt),
      ),
    )
}

/**
 * Card numbers for the auto-generated virtual card. The core's issuer interface is
 * synchronous, so candidates are drawn up front and checked against every number ever
 * issued in the project (revoked ones included) in one query. Should all candidates be taken
 * (odds ~ (n/2^32)^8), further draws are unchecked and the active-UID unique index is the
 * last guard.
 */
export const prepareCardIssuer = async (
  s: Services,
  q: Queryable,
  projectId: string,
): Promise<CardIssuer> => {
  const candidates = Array.from({ length: 8 }, () => crypto.getRandomValues(new Uint32Array(1))[0]!)
  const taken = new Set(
    (
      await q
        .select({ uid: memberCardsTable.uid })
        .from(memberCardsTable)
        .where(
          and(eq(memberCardsTable.projectId, projectId), inArray(memberCardsTable.uid, candidates)),
        )
    ).map((r) => r.uid),
  )
  let next = 0
  return {
    newCardId: s.newId,
    random: (bytes) => {
      if (bytes.length === 4 && next < candidates.length) {
        const n = candidates[next++]!
        bytes.set([n >>> 24, (n >>> 16) & 0xff, (n >>> 8) & 0xff, n & 0xff])
        return bytes
      }
      return crypto.getRandomValues(bytes as Uint8Array<ArrayBuffer>)
    },
    isCardUidTaken: (uid) => taken.has(uid),
  }
}

// ---- units -----------------------------------------------------------------------------

/**
 * Units of the project a request may name: by addressNo (trimmed, case-insensitive, as the
 * core compares), or by unitId, which matches the unit's own unitId or its id. The core takes
 * unitId as the room id, so a match on the unit's unitId is handed over as that id.
 */
export const findUnitCandidates = async (
  q: Queryable,
  projectId: string,
  request: UnitRequest,
): Promise<{ rooms: UnitRoom[]; request: UnitRequest }> => {
  const byAddress = sql`lower(btrim(${unitsTable.addressNo})) = ${request.addressNo.trim().toLowerCase()}`
  const rows = await q
    .select()
    .from(unitsTable)
    .where(
      and(
        eq(unitsTable.projectId, projectId),
        request.unitId === undefined
          ? byAddress
          : or(byAddress, eq(unitsTable.unitId, request.unitId), eq(unitsTable.id, request.unitId)),
      ),
    )
  const rooms = rows.map((r) => ({
    roomId: r.id,
    addressNo: r.addressNo,
    zoneId: r.zoneId ?? "",
    groupId: "",
  }))
  const named =
    request.unitId === undefined ? undefined : rows.find((r) => r.unitId === request.unitId)
  return { rooms, request: named ? { ...request, unitId: named.id } : request }
}

export const currentUnitId = async (q: Queryable, projectId: string, userId: string) => {
  const [row] = await q
    .select({ unitId: unitResidentsTable.unitId })
    .from(unitResidentsTable)
    .where(and(eq(unitResidentsTable.projectId, projectId), eq(unitResidentsTable.userId, userId)))
  return row?.unitId
}

/** Row locks on the units being changed, in id order, so role derivation is serialized. */
export const lockUnits = async (tx: Tx, unitIds: ReadonlyArray<string>) => {
  const ids = [...new Set(unitIds)].sort()
  if (ids.length === 0) return
  await execute(
    tx,
    sql`select id from ${unitsTable} where ${inArray(unitsTable.id, ids)} order by id for update`,
  )
}

/** The unit's reservation group, minted on first use. */
export const ensureUnitGroup = async (s: Services, tx: Tx, unitId: string): Promise<string> => {
  await tx
    .insert(unitReservationGroupsTable)
    .values({ unitId, groupId: s.newId(), createdAt: new Date(s.clock.now()) })
    .onConflictDoNothing()
  const [row] = await tx
    .select()
    .from(unitReservationGroupsTable)
    .where(eq(unitReservationGroupsTable.unitId, unitId))
  return row!.groupId
}

export const loadOccupancy = async (
  q: Queryable,
  unitId: string,
  groupId: string,
): Promise<UnitOccupancy> => {
  const [unit] = await q.select().from(unitsTable).where(eq(unitsTable.id, unitId))
  const residents = await q
    .select()
    .from(unitResidentsTable)
    .where(eq(unitResidentsTable.unitId, unitId))
  return {
    room: { roomId: unit!.id, addressNo: unit!.addressNo, zoneId: unit!.zoneId ?? "", groupId },
    residents: residents.map((r) => ({
      memberId: r.userId,
      role: (r.role === "owner" ? "owner" : "participant") satisfies UnitRole,
      boundAt: r.boundAt.getTime(),
    })),
  }
}

/** Makes the unit's residents exactly `occupancy.residents` (roles and binding instants). */
export const saveOccupancy = async (tx: Tx, projectId: string, occupancy: UnitOccupancy) => {
  const unitId = occupancy.room.roomId
  const keep = occupancy.residents.map((r) => r.memberId)
  await tx
    .delete(unitResidentsTable)
    .where(
      keep.length > 0
        ? and(eq(unitResidentsTable.unitId, unitId), notInArray(unitResidentsTable.userId, keep))
        : eq(unitResidentsTable.unitId, unitId),
    )
  for (const r of occupancy.residents)
    await tx
      .insert(unitResidentsTable)
      .values({ unitId, userId: r.memberId, projectId, role: r.role, boundAt: new Date(r.boundAt) })
      .onConflictDoUpdate({
        target: [unitResidentsTable.unitId, unitResidentsTable.userId],
        set: { role: r.role },
      })
}

/** PartnerMember.unit as stored. */
export const unitBindingOf = async (
  q: Queryable,
  projectId: string,
  userId: string,
): Promise<UnitBinding | null> => {
  const [row] = await q
    .select({
      roomId: unitsTable.id,
      addressNo: unitsTable.addressNo,
      groupId: unitReservationGroupsTable.groupId,
      role: unitResidentsTable.role,
    })
    .from(unitResidentsTable)
    .innerJoin(unitsTable, eq(unitsTable.id, unitResidentsTable.unitId))
    .innerJoin(
      unitReservationGroupsTable,
      eq(unitReservationGroupsTable.unitId, unitResidentsTable.unitId),
    )
    .where(and(eq(unitResidentsTable.projectId, projectId), eq(unitResidentsTable.userId, userId)))
  if (!row) return null
  return { ...row, role: row.role === "owner" ? "owner" : "participant" }
}
