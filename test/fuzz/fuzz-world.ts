import { sql } from "drizzle-orm"
import { execute, type Queryable } from "../../adapters/postgres/database.ts"
import type { Manifest } from "../../core/tenancy/manifest.ts"

/**
 * The tenancy the fuzz, security and model-over-HTTP suites share: two projects, rooms open
 * every day (so most generated windows are bookable), a paid room, desks, an admin member, a
 * partner-enabled app, an app of the other project and an app spanning both.
 */
export const APPS = {
  app: { appId: "fuzz-app", appSecret: "fuzz-secret-123" },
  other: { appId: "fuzz-other", appSecret: "fuzz-other-123" },
  multi: { appId: "fuzz-multi", appSecret: "fuzz-multi-123" },
} as const

const everyDay = (start: string, end: string) =>
  Object.fromEntries(["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"].map((d) => [d, { availableTime: { start, end } }]))

const room = (key: string, extra: Record<string, unknown> = {}) => ({
  key,
  name: `Room ${key}`,
  zone: "a",
  floor: "a-1",
  capacity: 8,
  config: { dayConfig: everyDay("00:00:00", "23:59:00"), bookMultipleDayRoom: true },
  ...extra,
})

export const fuzzManifest = (): Manifest =>
  ({
    projects: [
      {
        key: "hq",
        name: "HQ Tower",
        timezone: "Asia/Bangkok",
        zones: [{ key: "a", name: "Tower A", floors: [{ key: "a-1", name: "Floor 1" }] }],
        rooms: [
          room("r1"),
          room("r2"),
          room("r3"),
          room("paid", { chargeRate: { perHour: 500, perDay: 3000 } }),
          room("hours", { config: { dayConfig: everyDay("08:00:00", "18:00:00") } }),
        ],
        desks: [1, 2, 3].map((i) => ({
          key: `d${i}`, name: `Desk ${i}`, index: i, zone: "a", floor: "a-1",
          config: { dayConfig: everyDay("08:00:00", "18:00:00") },
        })),
        units: [{ key: "u1", addressNo: "99/1", zone: "a", unitId: "U-99-1" }],
        accessGroups: [{ key: "lobby", name: "Lobby" }],
        discounts: [{ key: "welcome", code: "WELCOME10", name: "Welcome", percentOff: 10 }],
        users: [
          { key: "alice", firstName: "Alice", lastName: "Ng", email: "alice@hq.example", role: "member",
            links: [{ app: "app", externalUserId: "ext-alice" }] },
          { key: "bob", firstName: "Bob", lastName: "Lee", email: "bob@hq.example", role: "member",
            links: [{ app: "app", externalUserId: "ext-bob" }] },
          { key: "carol", firstName: "Carol", lastName: "Admin", email: "carol@hq.example", role: "admin",
            links: [{ app: "app", externalUserId: "ext-carol" }] },
        ],
        webhooks: [{ key: "ops", url: "https://hooks.example/keyspace", secret: "s".repeat(40), events: ["ROOM_BOOK"] }],
      },
      {
        key: "elsewhere",
        name: "Elsewhere",
        timezone: "Asia/Bangkok",
        zones: [{ key: "z", name: "Zone", floors: [{ key: "z-1", name: "Z1" }] }],
        rooms: [{ key: "far", name: "Far Room", zone: "z", floor: "z-1", config: { dayConfig: everyDay("00:00:00", "23:59:00") } }],
        desks: [{ key: "far-desk", name: "Far Desk", zone: "z", floor: "z-1" }],
        accessGroups: [{ key: "far-lobby", name: "Far lobby" }],
        users: [
          { key: "eve", firstName: "Eve", lastName: "Far", email: "eve@far.example", role: "admin",
            links: [{ app: "other", externalUserId: "ext-eve" }] },
        ],
      },
    ],
    apps: [
      { key: "app", ...APPS.app, projects: ["hq"], canActAs: true, partnerAccessGroups: ["lobby"] },
      { key: "other", ...APPS.other, projects: ["elsewhere"], canActAs: true, partnerAccessGroups: ["far-lobby"] },
      { key: "multi", ...APPS.multi, projects: ["hq", "elsewhere"] },
    ],
  }) as Manifest

type Call = (
  method: string,
  path: string,
  options?: { body?: unknown; token?: string },
) => Promise<{ status: number; body: any }>

export interface FuzzWorld {
  readonly ids: any
  readonly hq: any
  readonly far: any
  readonly tokens: {
    readonly app: string
    readonly other: string
    readonly multi: string
    readonly alice: string
    readonly bob: string
    readonly carol: string
    readonly eve: string
  }
}

const token = async (call: Call, body: Record<string, string>): Promise<string> => {
  const res = await call("POST", "/auth/accessToken", { body })
  if (res.status !== 201) throw new Error(`token failed: ${JSON.stringify(res.body)}`)
  return res.body.access_token
}

const actAs = (call: Call, app: { appId: string; appSecret: string }, subject: string) =>
  token(call, { grant_type: "act_as", app_id: app.appId, app_secret: app.appSecret, subject })

const appToken = (call: Call, app: { appId: string; appSecret: string }) =>
  token(call, { grant_type: "app_credentials", app_id: app.appId, app_secret: app.appSecret })

/** Applies the manifest through the operator API and mints every token the suites use. */
export const setUpFuzzWorld = async (call: Call, adminToken: string): Promise<FuzzWorld> => {
  const applied = await call("PUT", "/admin/v1/manifest", { body: fuzzManifest(), token: adminToken })
  if (applied.status !== 200) throw new Error(`manifest failed: ${JSON.stringify(applied.body)}`)
  const ids = applied.body.data
  return {
    ids,
    hq: ids.projects.hq,
    far: ids.projects.elsewhere,
    tokens: {
      app: await appToken(call, APPS.app),
      other: await appToken(call, APPS.other),
      multi: await appToken(call, APPS.multi),
      alice: await actAs(call, APPS.app, "ext-alice"),
      bob: await actAs(call, APPS.app, "ext-bob"),
      carol: await actAs(call, APPS.app, "ext-carol"),
      eve: await actAs(call, APPS.other, "ext-eve"),
    },
  }
}

/**
 * Witness queries: each returns the rows that break an invariant the service promises, so an
 * empty result is the proof. They run on PGlite and PostgreSQL alike.
 */
export const WITNESSES: Record<string, ReturnType<typeof sql>> = {
  overlappingLiveSlots: sql`
    select a.id as a, b.id as b from booking_slots a join booking_slots b
      on a.asset_id = b.asset_id and a.id < b.id
     and a.start_at < b.end_at and b.start_at < a.end_at
   where a.status in ('unpaid','active','checked-in') and b.status in ('unpaid','active','checked-in')`,
  terminalWithPendingTicks: sql`
    select t.id, t.booking_id, t.kind, s.status from scheduled_ticks t
      join booking_slots s on s.booking_id = t.booking_id and s.occurrence_index = t.occurrence_index
     where t.state = 'pending' and s.status in ('done','cancelled','rejected')`,
  bookingWithoutSlot: sql`
    select b.id from bookings b where not exists (select 1 from booking_slots s where s.booking_id = b.id)`,
  bookingWithoutCreateHistory: sql`
    select b.id from bookings b where not exists
      (select 1 from booking_histories h where h.booking_id = b.id and h.action = 'create')`,
  singleBookingMirrorDiffers: sql`
    select b.id, b.status, s.status as slot_status from bookings b join booking_slots s on s.booking_id = b.id
     where b.rrule is null and (b.status <> s.status or b.start_at <> s.start_at or b.end_at <> s.end_at)`,
  checkedInWithoutCheckIn: sql`
    select s.id from booking_slots s where s.status = 'checked-in' and jsonb_array_length(s.check_ins) = 0`,
  historyAfterTerminal: sql`
    select h.booking_id, h.action from booking_histories h
     where exists (select 1 from booking_histories t where t.booking_id = h.booking_id
                    and t.action in ('cancel','reject','check-out') and t.at < h.at)
       and h.action not in ('complete')
       and (select rrule from bookings where id = h.booking_id) is null`,
  checkOutWithoutCheckIn: sql`
    select h.booking_id from booking_histories h where h.action = 'check-out' and not exists
      (select 1 from booking_histories c where c.booking_id = h.booking_id and c.action = 'check-in')`,
  confirmedWithoutBookEvent: sql`
    select b.id from bookings b where b.rrule is null and b.status in ('active','checked-in')
       and not exists (select 1 from outbox_events e where e.booking_id = b.id and e.type like '%\_BOOK')`,
  cancelledWithoutCancelEvent: sql`
    select b.id from bookings b where b.rrule is null and b.status in ('cancelled','rejected')
       and not exists (select 1 from outbox_events e where e.booking_id = b.id and e.type like '%\_CANCEL')`,
}

/** Every witness with its offending rows; `{}` when the database is consistent. */
export const runWitnesses = async (q: Queryable): Promise<Record<string, unknown[]>> => {
  const out: Record<string, unknown[]> = {}
  for (const [name, query] of Object.entries(WITNESSES)) {
    const rows = await execute<unknown>(q, query)
    if (rows.length > 0) out[name] = rows.slice(0, 5)
  }
  return out
}
