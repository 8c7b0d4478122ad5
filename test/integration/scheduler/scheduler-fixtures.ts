import { asc, eq } from "drizzle-orm"
import { outboxEventsTable, scheduledTicksTable } from "../../../adapters/postgres/schema.ts"
import type { Manifest } from "../../../core/tenancy/manifest.ts"
import type { Harness } from "../../support/harness.ts"

/**
 * A project for the scheduler suites. The harness clock starts Monday 2030-01-07 09:00 in
 * Asia/Bangkok (+07:00 = 02:00Z); `local("10:00")` is that Monday's local time.
 */
export const local = (hhmm: string, day = 0): string => {
  const d = new Date(Date.UTC(2030, 0, 7 + day))
  return `${d.toISOString().slice(0, 10)}T${hhmm}:00+07:00`
}
/** The same instant in UTC ISO form, as outbox occurredAt is stored. */
export const utc = (hhmm: string, day = 0): string => new Date(Date.parse(local(hhmm, day))).toISOString()

/** A meetingConfig with every tick off (-1): only the end of a booking is planned. */
export const TICKS_OFF = { preStartMinutes: -1, postStartWarnMinutes: -1, postStartExpireMinutes: -1, preEndMinutes: -1 }

export const SCHEDULER_APP = { appId: "scheduler-app", appSecret: "scheduler-secret-123" }

const everyDay = { dayConfig: Object.fromEntries(["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"].map((d) => [d, { availableTime: { start: "00:00:00", end: "23:59:00" } }])) }

const room = (key: string, extra: Record<string, unknown> = {}, meetingConfig?: Record<string, number>) => ({
  key,
  name: `Room ${key}`,
  zone: "a",
  floor: "a-1",
  capacity: 8,
  ...extra,
  config: { ...everyDay, ...(meetingConfig ? { meetingConfig } : {}) },
})

/** `rooms` extra rooms named r0..r{n-1} with `meetingConfig` (load tests). */
export const schedulerManifest = (options: { rooms?: number; meetingConfig?: Record<string, number> } = {}): Manifest =>
  ({
    projects: [
      {
        key: "hq",
        name: "HQ Tower",
        timezone: "Asia/Bangkok",
        zones: [{ key: "a", name: "Tower A", floors: [{ key: "a-1", name: "Floor 1" }] }],
        rooms: [
          room("std"),
          room("no-pre", {}, { preStartMinutes: -1 }),
          room("no-warn", {}, { postStartWarnMinutes: -1 }),
          room("no-expire", {}, { postStartExpireMinutes: -1 }),
          room("no-pre-end", {}, { preEndMinutes: -1 }),
          room("custom", {}, { preStartMinutes: 30, postStartWarnMinutes: 5, postStartExpireMinutes: 20, preEndMinutes: 5 }),
          room("paid", { chargeRate: { perHour: 500, perDay: 3000 } }),
          ...Array.from({ length: options.rooms ?? 0 }, (_, i) => room(`r${i}`, {}, options.meetingConfig)),
        ],
        desks: [{ key: "d1", name: "Desk 1", index: 1, zone: "a", floor: "a-1", capacity: 1, config: everyDay }],
      },
    ],
    apps: [{ key: "app", ...SCHEDULER_APP, projects: ["hq"] }],
  }) as Manifest

export interface SchedulerWorld {
  readonly ids: any
  readonly app: string
  /** An app token valid at the current (manual) clock time: tokens expire as the clock moves. */
  readonly token: () => Promise<string>
}

export const setUpSchedulerWorld = async (
  h: Harness,
  options: Parameters<typeof schedulerManifest>[0] = {},
): Promise<SchedulerWorld> => {
  const ids = await h.applyManifest(schedulerManifest(options))
  let cached: { token: string; at: number } | undefined
  const now = () => h.booted.services.clock.now()
  return {
    ids: ids.projects.hq,
    app: ids.apps.app,
    token: async () => {
      if (cached === undefined || now() - cached.at > 30 * 60_000)
        cached = { token: await h.tokenFor(SCHEDULER_APP.appId, SCHEDULER_APP.appSecret), at: now() }
      return cached.token
    },
  }
}

export const book = async (
  h: Harness,
  w: SchedulerWorld,
  asset: { room?: string; desk?: string },
  from: string,
  to: string,
  day = 0,
): Promise<{ _id: string; status: string; pinCode: string }> => {
  const res = await h.request("POST", "/meetings", {
    token: await w.token(),
    body: {
      ...(asset.room ? { meetingRoomId: w.ids.rooms[asset.room] } : { deskId: w.ids.desks[asset.desk!] }),
      title: "Lifecycle",
      startDateTime: local(from, day),
      endDateTime: local(to, day),
    },
  })
  if (res.status !== 201) throw new Error(`create failed: ${res.status} ${JSON.stringify(res.body)}`)
  return res.body.data
}

export const statusOf = async (h: Harness, w: SchedulerWorld, id: string): Promise<string> => {
  const res = await h.request("GET", `/meetings/${id}`, { token: await w.token() })
  if (res.status !== 200) throw new Error(`get failed: ${res.status} ${JSON.stringify(res.body)}`)
  return res.body.data.status
}

/** The outbox events of a booking, in occurrence order: "ROOM_REMINDER@2030-...Z". */
export const eventsOf = async (h: Harness, bookingId: string) => {
  const rows = await h.booted.services.database.db
    .select()
    .from(outboxEventsTable)
    .where(eq(outboxEventsTable.bookingId, bookingId))
    .orderBy(asc(outboxEventsTable.occurredAt), asc(outboxEventsTable.createdAt), asc(outboxEventsTable.id))
  return rows.map((r) => ({ type: r.type, at: r.occurredAt.toISOString(), event: (r.payload as any).event }))
}

export const timelineOf = async (h: Harness, bookingId: string): Promise<string[]> =>
  (await eventsOf(h, bookingId)).map((e) => `${e.type}@${e.at}`)

export const ticksOf = async (h: Harness, bookingId: string) =>
  h.booted.services.database.db
    .select()
    .from(scheduledTicksTable)
    .where(eq(scheduledTicksTable.bookingId, bookingId))
    .orderBy(asc(scheduledTicksTable.dueAt), asc(scheduledTicksTable.rank))

/** Advances the manual clock to a local time of the harness Monday (or `day`). */
export const advanceTo = async (h: Harness, hhmm: string, day = 0): Promise<void> => {
  const res = await h.admin("POST", "/clock/advance", { to: local(hhmm, day) })
  if (res.status !== 200) throw new Error(`advance failed: ${JSON.stringify(res.body)}`)
}
