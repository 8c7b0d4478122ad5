import { asc, eq } from "drizzle-orm"
import type { Queryable, Tx } from "../postgres/database.ts"
import { deviceCommandsTable } from "../postgres/schema.ts"
import type { Services } from "../wiring/services.ts"

/** A credential a door device can hold: an access card (by UID) or a face template. */
export type DeviceCredential =
  | { readonly kind: "card"; readonly id: string; readonly uid: number }
  | { readonly kind: "face"; readonly id: string }

/** Grant or revoke one credential of one member on the devices of one access group. */
export interface DeviceCommand {
  readonly projectId: string
  readonly userId: string
  readonly accessGroupId: string
  readonly action: "grant" | "revoke"
  readonly credential: DeviceCredential
}

/**
 * Device enrollment port. Every grant or revocation is recorded inside the transaction that
 * changed the member, so a crash can never leave a revoked card open on a door. A real
 * access-control controller plugs in as another implementation of this port (or as a worker
 * draining the outbox the default adapter writes).
 */
export interface DeviceEnrollment {
  readonly record: (tx: Tx, commands: ReadonlyArray<DeviceCommand>) => Promise<void>
}

/** Default adapter: the device_commands outbox, in `seq` order. */
export const recordingDeviceEnrollment = (s: Services): DeviceEnrollment => ({
  record: async (tx, commands) => {
    if (commands.length === 0) return
    const now = new Date(s.clock.now())
    await tx.insert(deviceCommandsTable).values(
      commands.map((c) => ({
        id: s.newId(),
        projectId: c.projectId,
        userId: c.userId,
        accessGroupId: c.accessGroupId,
        action: c.action,
        credentialKind: c.credential.kind,
        credentialId: c.credential.id,
        cardUid: c.credential.kind === "card" ? c.credential.uid : null,
        createdAt: now,
      })),
    )
  },
})

/** What a member can open in one project: effective groups times active credentials. */
export interface MemberAccess {
  readonly groupIds: ReadonlyArray<string>
  readonly credentials: ReadonlyArray<DeviceCredential>
}

const pairKey = (groupId: string, c: DeviceCredential) => `${groupId}|${c.kind}|${c.id}`

/**
 * Commands that take the devices from `before` to `after`. Deriving them from the two access
 * states (rather than from each domain effect) makes every path (onboard, offboard, card
 * diff, face replace, group change) emit exactly the grants and revocations that differ.
 * Revocations come first, so a device never briefly holds both an old and a new template.
 */
export const deviceCommandsBetween = (
  projectId: string,
  userId: string,
  before: MemberAccess,
  after: MemberAccess,
): Array<DeviceCommand> => {
  const pairs = (a: MemberAccess) => {
    const out = new Map<string, { groupId: string; credential: DeviceCredential }>()
    for (const groupId of a.groupIds)
      for (const credential of a.credentials)
        out.set(pairKey(groupId, credential), { groupId, credential })
    return out
  }
  const was = pairs(before)
  const now = pairs(after)
  const command =
    (action: "grant" | "revoke") => (p: { groupId: string; credential: DeviceCredential }) => ({
      projectId,
      userId,
      accessGroupId: p.groupId,
      action,
      credential: p.credential,
    })
  return [
    ...[...was].filter(([k]) => !now.has(k)).map(([, p]) => command("revoke")(p)),
    ...[...now].filter(([k]) => !was.has(k)).map(([, p]) => command("grant")(p)),
  ]
}

/** The recorded commands of one member, oldest first (operators and tests read the outbox). */
export const deviceCommandsOf = (q: Queryable, userId: string) =>
  q
    .select()
    .from(deviceCommandsTable)
    .where(eq(deviceCommandsTable.userId, userId))
    .orderBy(asc(deviceCommandsTable.seq))
