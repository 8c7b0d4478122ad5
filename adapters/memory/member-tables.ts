import type { AppRecord, NewToken } from "../../core/auth/records.ts"
import type { DeviceCommand } from "../../core/member/device-access.ts"
import type { MemberLink, MembershipRecord, UserRecord } from "../../core/member/records.ts"
import type { MemberCard } from "../../core/member/state.ts"
import type { ManifestProject } from "../../core/tenancy/manifest.ts"
import { emptyManifestIds, type ManifestIds } from "../../core/tenancy/manifest-ids.ts"
import type { MemoryDbShape } from "./memory-db.ts"

/**
 * The memory profile's tenancy, member and token tables (immutable values, replaced on write).
 * The manifest store writes `tenancy`; other memory stores read provisioned projects from it.
 */
export interface ProvisionedApp extends AppRecord {
  readonly projectIds: ReadonlyArray<string>
  readonly partnerGroupIds: ReadonlyArray<string>
}

export interface Tenancy {
  readonly ids: ManifestIds
  /** Manifest projects as last applied, by project id. */
  readonly projects: ReadonlyMap<string, ManifestProject>
  /** By apps.id. */
  readonly apps: ReadonlyMap<string, ProvisionedApp>
}

export interface MemberRows {
  readonly users: ReadonlyMap<string, UserRecord>
  /** By `${projectId}|${userId}`. */
  readonly memberships: ReadonlyMap<string, MembershipRecord & { readonly role: string; readonly manifestKey?: string }>
  readonly links: ReadonlyArray<MemberLink>
  readonly grants: ReadonlyArray<{ readonly appId: string; readonly projectId: string; readonly userId: string; readonly accessGroupId: string }>
  readonly cards: ReadonlyArray<MemberCard & { readonly projectId: string; readonly userId: string; readonly active: boolean; readonly enrolledAt: number }>
  readonly faces: ReadonlyMap<string, { readonly faceId: string; readonly consentAt: string }>
  readonly devices: ReadonlyArray<DeviceCommand>
}

export interface StoredToken extends NewToken {
  readonly revokedAt: number | null
}

export const tenancyTable = (db: MemoryDbShape) =>
  db.table<Tenancy>("tenancy", () => ({ ids: emptyManifestIds(), projects: new Map(), apps: new Map() }))

export const memberTable = (db: MemoryDbShape) =>
  db.table<MemberRows>("members", () => ({
    users: new Map(),
    memberships: new Map(),
    links: [],
    grants: [],
    cards: [],
    faces: new Map(),
    devices: [],
  }))

export const tokenTable = (db: MemoryDbShape) => db.table<ReadonlyMap<string, StoredToken>>("tokens", () => new Map())

export const membershipKey = (projectId: string, userId: string) => `${projectId}|${userId}`
