import type { Manifest } from "../../../core/tenancy/manifest.ts"
import type { Harness } from "../../support/harness.ts"

export const SECRET = "whsec-0123456789abcdef0123456789abcdef"

export type Auth =
  | { scheme: "signature-only" }
  | { scheme: "bearer"; token: string }
  | { scheme: "custom-header"; headers: Array<{ name: string; value: string }> }
  | { scheme: "jwt" }

export interface HookSpec {
  readonly key: string
  readonly url: string
  readonly events?: string[]
  readonly auth?: Auth
  readonly secret?: string
}

export const VISITOR_TYPES = ["VMS_INVITE_SENT", "VMS_VISITOR_CHECKED_IN", "VMS_HOST_CANCELLED"]

/** A project with one room and one desk, and the given webhook registrations. */
export const webhookManifest = (projectKey: string, hooks: ReadonlyArray<HookSpec>): Manifest => ({
  projects: [
    {
      key: projectKey,
      name: "Webhook Tower",
      timezone: "Asia/Bangkok",
      zones: [{ key: "a", name: "Tower A", floors: [{ key: "a-7", name: "Floor 7" }] }],
      rooms: [
        {
          key: "r1", name: "Lotus", zone: "a", floor: "a-7", capacity: 8, status: "active",
          config: { dayConfig: Object.fromEntries(["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"].map((d) => [d, { availableTime: { start: "00:00:00", end: "23:59:00" } }])) },
        },
      ],
      desks: [{ key: "d1", name: "Desk 12", index: 1, zone: "a", floor: "a-7", capacity: 1, status: "active", config: {} }],
      users: [{ key: "alice", firstName: "Alice", lastName: "Ng", email: `alice-${projectKey}@hq.example`, role: "member" }],
      webhooks: hooks.map((h) => ({
        key: h.key,
        url: h.url,
        secret: h.secret ?? SECRET,
        events: (h.events ?? VISITOR_TYPES) as never,
        auth: h.auth ?? { scheme: "signature-only" },
      })),
    },
  ],
})

export interface Applied {
  readonly projectId: string
  readonly webhooks: Record<string, string>
  readonly ids: any
}

export const applyHooks = async (h: Harness, projectKey: string, hooks: ReadonlyArray<HookSpec>): Promise<Applied> => {
  const ids = await h.applyManifest(webhookManifest(projectKey, hooks))
  const p = ids.projects[projectKey]
  return { projectId: p.id, webhooks: p.webhooks, ids: p }
}

export const inviteSent = (projectId: string, at: string) => ({
  projectId,
  userId: "vms-transactor-1",
  timestamp: at,
  visitorName: "Vera Visitor",
  visitorEmail: "vera@guest.example",
  hostName: "Alice Ng",
  hostEmail: "alice@hq.example",
  visitDate: "2030-01-08T00:00:00.000Z",
  startDateTime: "8 Jan 2030 09:00",
  endDateTime: "8 Jan 2030 11:00",
  qrCardCode: "QR-SECRET-4711",
  licensePlate: "1กข 1234",
  visitPurpose: "Interview",
})

export const visitorCheckedIn = (projectId: string, at: string) => ({
  projectId,
  userId: "vms-transactor-1",
  timestamp: at,
  visitorName: "Vera Visitor",
  hostAssetTitle: "Lotus",
  checkInTime: { en: "09:02", th: "09:02 น." },
  vmsEntryType: { entryType: "card", en: "Card", th: "บัตร" },
  licensePlateNumber: "",
  location: { entryType: "gate", en: "Gate A", th: "ประตู A" },
  webViewUrl: "https://vms.example/v/1",
})

export const hostCancelled = (projectId: string, at: string) => ({
  projectId,
  userId: "vms-transactor-1",
  timestamp: at,
  visitorName: "Vera Visitor",
  hostName: "Alice Ng",
  hostEmail: "alice@hq.example",
  startDateTime: "8 Jan 2030 09:00",
  endDateTime: "8 Jan 2030 11:00",
})

/** Publishes a visitor event; returns the envelope id (202 data). */
export const publish = async (h: Harness, projectId: string, type: string, data: unknown): Promise<string> => {
  const res = await h.admin("POST", `/projects/${projectId}/visitor-events`, { type, data })
  if (res.status !== 202) throw new Error(`publish failed: ${res.status} ${JSON.stringify(res.body)}`)
  return res.body.data
}

export const deliveriesOf = async (h: Harness, webhookId: string, query = "") => {
  const res = await h.admin("GET", `/webhooks/${webhookId}/deliveries${query}`)
  if (res.status !== 200) throw new Error(`deliveries failed: ${res.status} ${JSON.stringify(res.body)}`)
  return res.body
}

/** The service clock now (manual clock), epoch ms. */
export const clockNow = async (h: Harness): Promise<number> => Date.parse((await h.admin("GET", "/clock")).body.data.now)

/** Polls until `check` stops throwing (background sends are asynchronous). */
export const eventually = async <T>(check: () => Promise<T> | T, timeoutMs = 15_000): Promise<T> => {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    try {
      return await check()
    } catch (e) {
      if (Date.now() > deadline) throw e
      await new Promise((r) => setTimeout(r, 25))
    }
  }
}
