import { Effect, Layer, Option } from "effect"
import type { CardUid } from "../../core/member/card-number.ts"
import type { DeviceCredential } from "../../core/member/device-access.ts"
import { emailLookupKey, type KeyHolder } from "../../core/member/identity.ts"
import type { LoadedMember } from "../../core/member/records.ts"
import type { PartnerMember } from "../../core/member/state.ts"
import { Clock } from "../../core/ports/clock.ts"
import { CredentialStore } from "../../core/ports/credential-store.ts"
import { DeviceEnrollment } from "../../core/ports/device-enrollment.ts"
import { Ids } from "../../core/ports/ids.ts"
import { MemberStore } from "../../core/ports/member-store.ts"
import { UnitStore } from "../../core/ports/unit-store.ts"
import { memberTable, membershipKey, tenancyTable, type MemberRows } from "./member-tables.ts"
import { MemoryDb, requireTx } from "./memory-db.ts"

const activeCardsOf = (rows: MemberRows, projectId: string, userId: string) =>
  rows.cards
    .filter((c) => c.active && c.projectId === projectId && c.userId === userId)
    .sort((a, b) => a.enrolledAt - b.enrolledAt || a.cardId.localeCompare(b.cardId))
    .map(({ cardId, uid, label, type, generated }) => ({ cardId, uid, label, type, generated }))

/** Members in memory (one process; the member transaction's locks are the unit of work's). */
/** Whether another app manages the user (links it under an externalUserId of its own). */
const linkedByOtherApp = (rows: MemberRows, appId: string, userId: string): boolean =>
  rows.links.some((l) => l.userId === userId && l.appId !== appId)

export const MemberStoreMemory = Layer.effect(
  MemberStore,
  Effect.gen(function* () {
    const db = yield* MemoryDb
    const members = memberTable(db)
    const tenancy = tenancyTable(db)
    const change = (name: string, f: (rows: MemberRows) => MemberRows) =>
      requireTx(name).pipe(Effect.andThen(Effect.sync(() => members.update(f))))
    const linkOfUser = (appId: string, userId: string) =>
      members.get().links.find((l) => l.appId === appId && l.userId === userId)
    const membership = (projectId: string, userId: string) => members.get().memberships.get(membershipKey(projectId, userId))
    return MemberStore.of({
      lockExternal: (_appId, _externalUserId) => requireTx("MemberStore.lockExternal"),
      link: (appId, externalUserId) =>
        Effect.sync(() =>
          Option.fromUndefinedOr(members.get().links.find((l) => l.appId === appId && l.externalUserId === externalUserId)),
        ),
      linkOfUser: (appId, userId) => Effect.sync(() => Option.fromUndefinedOr(linkOfUser(appId, userId))),
      user: (userId) => Effect.sync(() => Option.fromUndefinedOr(members.get().users.get(userId))),
      membership: (projectId, userId) => Effect.sync(() => Option.fromUndefinedOr(membership(projectId, userId))),
      appProjects: (appId) => Effect.sync(() => tenancy.get().apps.get(appId)?.projectIds ?? []),
      partnerGroups: (appId) => Effect.sync(() => [...(tenancy.get().apps.get(appId)?.partnerGroupIds ?? [])].sort()),
      profileShared: ({ appId, projectId, userId }) =>
        Effect.sync(() => {
          const rows = members.get()
          return linkedByOtherApp(rows, appId, userId) || [...rows.memberships.values()].some((m) => m.userId === userId && m.projectId !== projectId)
        }),
      lookupIdentity: ({ appId, projectId, keys }) =>
        Effect.sync(() => {
          const rows = members.get()
          const holder = (userId: string | undefined): KeyHolder | undefined => {
            if (userId === undefined) return undefined
            const link = linkOfUser(appId, userId)
            return {
              memberId: userId,
              ...(link ? { linkedExternalUserId: link.externalUserId } : {}),
              managedByOtherApp: linkedByOtherApp(rows, appId, userId),
              isProjectMember: membership(projectId, userId) !== undefined,
              isStaff: [...rows.memberships.values()].some((m) => m.userId === userId && m.role === "admin" && m.status === "active"),
            }
          }
          const users = [...rows.users.values()]
          const email = keys.email === undefined ? undefined : holder(users.find((u) => u.emailKey === emailLookupKey(keys.email!))?.id)
          const phone = keys.phone === undefined ? undefined : holder(users.find((u) => u.profile.phone === keys.phone)?.id)
          const employeeId =
            keys.employeeId === undefined
              ? undefined
              : holder([...rows.memberships.values()].find((m) => m.projectId === projectId && m.employeeId === keys.employeeId)?.userId)
          return { ...(email ? { email } : {}), ...(phone ? { phone } : {}), ...(employeeId ? { employeeId } : {}) }
        }),
      load: ({ appId, projectId, userId, externalUserId }) =>
        Effect.sync(() => {
          const rows = members.get()
          const user = rows.users.get(userId)
          const m = membership(projectId, userId)
          if (!user || !m) return Option.none<LoadedMember>()
          const face = rows.faces.get(userId)
          const member: PartnerMember = {
            memberId: user.id,
            externalUserId,
            status: m.status === "deactivated" ? "deactivated" : "active",
            profile: user.profile,
            ...(m.employeeId !== null ? { employeeId: m.employeeId } : {}),
            accessGroupIds: rows.grants
              .filter((g) => g.appId === appId && g.userId === userId && g.projectId === projectId)
              .map((g) => g.accessGroupId)
              .sort(),
            cards: activeCardsOf(rows, projectId, userId),
            face: face ? { present: true, consentAt: face.consentAt } : { present: false },
          }
          return Option.some({ member, user, membership: m })
        }),
      access: (projectId, userId) =>
        Effect.sync(() => {
          const rows = members.get()
          const groupIds = [...new Set(rows.grants.filter((g) => g.projectId === projectId && g.userId === userId).map((g) => g.accessGroupId))].sort()
          const credentials: DeviceCredential[] = activeCardsOf(rows, projectId, userId).map((c) => ({ kind: "card", id: c.cardId, uid: c.uid }))
          const face = rows.faces.get(userId)
          if (face) credentials.push({ kind: "face", id: face.faceId })
          return { groupIds, credentials }
        }),
      insertUser: (u) =>
        change("MemberStore.insertUser", (rows) => ({
          ...rows,
          users: new Map(rows.users).set(u.id, {
            id: u.id,
            profile: u.profile,
            emailKey: u.profile.email === undefined ? null : emailLookupKey(u.profile.email),
            username: u.username ?? null,
            userType: u.userType,
            source: u.source,
          }),
        })),
      saveProfile: (user, profile, username) =>
        change("MemberStore.saveProfile", (rows) => ({
          ...rows,
          users: new Map(rows.users).set(user.id, {
            ...user,
            ...(username === undefined ? {} : { username }),
            profile,
            emailKey: profile.email === undefined ? null : emailLookupKey(profile.email),
            userType: "member",
          }),
        })),
      insertMembership: (m) =>
        change("MemberStore.insertMembership", (rows) => ({
          ...rows,
          memberships: new Map(rows.memberships).set(membershipKey(m.projectId, m.userId), {
            projectId: m.projectId,
            userId: m.userId,
            status: m.status,
            employeeId: m.employeeId ?? null,
            role: "member",
          }),
        })),
      saveMembership: (current, next) =>
        change("MemberStore.saveMembership", (rows) => {
          const key = membershipKey(current.projectId, current.userId)
          const stored = rows.memberships.get(key)
          if (!stored) return rows
          return {
            ...rows,
            memberships: new Map(rows.memberships).set(key, { ...stored, status: next.status, employeeId: next.employeeId ?? null }),
          }
        }),
      insertLink: (link) => change("MemberStore.insertLink", (rows) => ({ ...rows, links: [...rows.links, link] })),
      syncGroups: (key, groupIds) =>
        change("MemberStore.syncGroups", (rows) => ({
          ...rows,
          grants: [
            ...rows.grants.filter((g) => !(g.appId === key.appId && g.userId === key.userId)),
            ...groupIds.map((accessGroupId) => ({ ...key, accessGroupId })),
          ],
        })),
    })
  }),
)

/** Cards and faces in memory (face bytes are not kept: nothing reads them back). */
export const CredentialStoreMemory = Layer.effect(
  CredentialStore,
  Effect.gen(function* () {
    const db = yield* MemoryDb
    const clock = yield* Clock
    const ids = yield* Ids
    const members = memberTable(db)
    const change = (name: string, f: (rows: MemberRows) => MemberRows) =>
      requireTx(name).pipe(Effect.andThen(Effect.sync(() => members.update(f))))
    return CredentialStore.of({
      insertCards: (key, cards) =>
        change("CredentialStore.insertCards", (rows) => ({
          ...rows,
          cards: [...rows.cards, ...cards.map((c) => ({ ...c, ...key, active: true, enrolledAt: clock.now() }))],
        })),
      revokeCards: (cardIds) =>
        change("CredentialStore.revokeCards", (rows) => ({
          ...rows,
          cards: rows.cards.map((c) => (cardIds.includes(c.cardId) ? { ...c, active: false } : c)),
        })),
      relabelCards: (cards) =>
        change("CredentialStore.relabelCards", (rows) => ({
          ...rows,
          cards: rows.cards.map((c) => {
            const relabelled = cards.find((r) => r.cardId === c.cardId)
            return relabelled ? { ...c, label: relabelled.label } : c
          }),
        })),
      cardsHeldByOthers: (projectId, userId, uids) =>
        Effect.sync(() =>
          members
            .get()
            .cards.filter((c) => c.active && c.projectId === projectId && c.userId !== userId && uids.includes(c.uid))
            .map((c) => ({ uid: c.uid, userId: c.userId })),
        ),
      cardIssuer: (projectId) =>
        Effect.sync(() => {
          const taken = new Set<number>(members.get().cards.filter((c) => c.projectId === projectId).map((c) => c.uid))
          return {
            newCardId: () => ids.newId(),
            random: (bytes: Uint8Array) => crypto.getRandomValues(bytes as Uint8Array<ArrayBuffer>),
            isCardUidTaken: (uid: CardUid) => taken.has(uid),
          }
        }),
      saveFace: (userId, face) =>
        change("CredentialStore.saveFace", (rows) => ({
          ...rows,
          faces: new Map(rows.faces).set(userId, { faceId: ids.newId(), consentAt: face.consentAt }),
        })),
      eraseFace: (userId) =>
        change("CredentialStore.eraseFace", (rows) => {
          const faces = new Map(rows.faces)
          faces.delete(userId)
          return { ...rows, faces }
        }),
    })
  }),
)

/** The device outbox in memory. */
export const DeviceEnrollmentMemory = Layer.effect(
  DeviceEnrollment,
  Effect.gen(function* () {
    const members = memberTable(yield* MemoryDb)
    return DeviceEnrollment.of({
      record: (commands) =>
        requireTx("DeviceEnrollment.record").pipe(
          Effect.andThen(Effect.sync(() => members.update((rows) => ({ ...rows, devices: [...rows.devices, ...commands] })))),
        ),
    })
  }),
)

const notInMemory = Effect.die(new Error("unit binding is not in the memory profile"))

/** Units are not in the memory profile: a member has none, binding one dies. */
export const UnitStoreMemory = Layer.succeed(
  UnitStore,
  UnitStore.of({
    candidates: () => notInMemory,
    current: () => Effect.succeed(undefined),
    lock: () => notInMemory,
    ensureGroup: () => notInMemory,
    occupancy: () => notInMemory,
    saveOccupancy: () => notInMemory,
    bindingOf: () => Effect.succeed(null),
  }),
)
