import type { Manifest } from "../../../core/tenancy/manifest.ts"
import type { Engine } from "../../support/databases.ts"
import { startHarness, type Harness } from "../../support/harness.ts"

/**
 * Tenancy for the partner suites: one project with two zones (so an addressNo can be
 * ambiguous), two partner groups, an existing linked user (alice) and an unlinked one (bob),
 * and apps covering each authorization case of the spec.
 */
export const partnerManifest = (): Manifest => ({
  projects: [
    {
      key: "hq",
      name: "HQ Tower",
      timezone: "Asia/Bangkok",
      zones: [
        { key: "a", name: "Tower A", floors: [{ key: "a-1", name: "Floor 1" }] },
        { key: "b", name: "Tower B", floors: [{ key: "b-1", name: "Floor 1" }] },
      ],
      units: [
        { key: "u1", addressNo: "99/1", zone: "a", unitId: "U-99-1" },
        { key: "u2", addressNo: "99/2", zone: "a", unitId: "U-99-2" },
        { key: "dup-a", addressNo: "12/3", zone: "a" },
        { key: "dup-b", addressNo: "12/3", zone: "b" },
        ...Array.from({ length: 8 }, (_, i) => ({
          key: `t${i + 1}`,
          addressNo: `10/${i + 1}`,
          zone: "a",
        })),
      ],
      accessGroups: [
        { key: "lobby", name: "Lobby doors" },
        { key: "gym", name: "Gym" },
        { key: "roof", name: "Roof (not a partner group)" },
      ],
      users: [
        {
          key: "alice",
          firstName: "Alice",
          lastName: "Ng",
          email: "alice@hq.example",
          phone: "+66811111111",
          employeeId: "E-1",
          role: "member",
          links: [{ app: "partner", externalUserId: "ext-alice" }],
        },
        {
          key: "bob",
          firstName: "Bob",
          lastName: "Ok",
          email: "Bob@HQ.example",
          phone: "+66822222222",
          employeeId: "E-2",
          role: "member",
        },
        { key: "carol", firstName: "Carol", lastName: "Ma", employeeId: "E-3", role: "member" },
        // Staff: the operator manages them; no partner app may claim them by a key.
        { key: "sam", firstName: "Sam", lastName: "Admin", email: "sam@hq.example", phone: "+66899999999", employeeId: "E-9", role: "admin" },
        {
          key: "dave",
          firstName: "Dave",
          lastName: "Su",
          email: "dave@hq.example",
          role: "member",
          links: [{ app: "other", externalUserId: "ext-dave" }],
        },
      ],
    },
    {
      key: "annex",
      name: "Annex",
      timezone: "Asia/Bangkok",
      accessGroups: [{ key: "door", name: "Door" }],
      users: [
        {
          key: "frank",
          firstName: "Frank",
          lastName: "Annex",
          email: "frank@annex.example",
          role: "member",
        },
        {
          key: "erin",
          firstName: "Erin",
          lastName: "Both",
          email: "erin@annex.example",
          role: "member",
          links: [{ app: "multi", externalUserId: "ext-erin" }],
        },
      ],
    },
  ],
  apps: [
    {
      key: "partner",
      appId: "partner-app",
      appSecret: "partner-secret-123",
      projects: ["hq"],
      partnerAccessGroups: ["lobby", "gym"],
      canActAs: true,
    },
    {
      key: "other",
      appId: "other-app",
      appSecret: "other-secret-123",
      projects: ["hq"],
      canActAs: true,
    },
    {
      key: "no-act",
      appId: "no-act-app",
      appSecret: "no-act-secret-123",
      projects: ["hq"],
      partnerAccessGroups: ["lobby"],
    },
    {
      key: "multi",
      appId: "multi-app",
      appSecret: "multi-secret-123",
      projects: ["hq", "annex"],
      canActAs: true,
    },
  ],
})

/** Adds an unlinked user to project hq (manifest users are never partner-created). */
export const addHqUser = async (
  h: Harness,
  user: {
    key: string
    firstName: string
    lastName: string
    email?: string
    phone?: string
    employeeId?: string
  },
): Promise<string> => {
  const ids = await h.applyManifest({
    projects: [
      {
        key: "hq",
        name: "HQ Tower",
        timezone: "Asia/Bangkok",
        users: [{ role: "member", ...user }],
      },
    ],
  })
  return ids.projects.hq.users[user.key]
}

export const SECRETS: Record<string, string> = {
  "partner-app": "partner-secret-123",
  "other-app": "other-secret-123",
  "no-act-app": "no-act-secret-123",
  "multi-app": "multi-secret-123",
}

export interface PartnerWorld {
  readonly h: Harness
  readonly ids: any
  /** app_credentials token per app_id. */
  readonly tokens: Record<string, string>
  readonly call: (
    method: string,
    path: string,
    body?: unknown,
    app?: string,
  ) => Promise<{ status: number; body: any; headers: Headers }>
  readonly member: (externalUserId: string) => string
}

/** Boots a harness with the partner manifest; the rate limit is lifted unless a test sets it. */
export const startPartnerWorld = async (
  engine: Engine,
  env: Record<string, string> = {},
): Promise<PartnerWorld> => {
  const h = await startHarness(
    engine,
    { KEYSPACE_PARTNER_RATE_LIMIT: "100000", ...env },
    { background: false },
  )
  const ids = await h.applyManifest(partnerManifest())
  const tokens: Record<string, string> = {}
  for (const [appId, secret] of Object.entries(SECRETS))
    tokens[appId] = await h.tokenFor(appId, secret)
  const member = (externalUserId: string) =>
    `/partner/members/${encodeURIComponent(externalUserId)}`
  return {
    h,
    ids,
    tokens,
    member,
    call: (method, path, body, app = "partner-app") =>
      h.request(method, path, { body, token: tokens[app]! }),
  }
}

export { jpegBase64, pngBase64 } from "../../support/face-images.ts"

export const CONSENT = "2030-01-07T09:00:00+07:00"

/** decimal-reversed text of a 4-byte UID, as every response gives cardNo. */
export const decimalReversed = (uid: number): string => {
  const r =
    (((uid & 0xff) << 24) |
      (((uid >>> 8) & 0xff) << 16) |
      (((uid >>> 16) & 0xff) << 8) |
      (uid >>> 24)) >>>
    0
  return r.toString().padStart(10, "0")
}
