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

/** What a member can open in one project: effective groups times active credentials. */
export interface MemberAccess {
  readonly groupIds: ReadonlyArray<string>
  readonly credentials: ReadonlyArray<DeviceCredential>
}

export const NO_ACCESS: MemberAccess = { groupIds: [], credentials: [] }

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
      for (const credential of a.credentials) out.set(pairKey(groupId, credential), { groupId, credential })
    return out
  }
  const was = pairs(before)
  const now = pairs(after)
  const command = (action: "grant" | "revoke") => (p: { groupId: string; credential: DeviceCredential }) => ({
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
