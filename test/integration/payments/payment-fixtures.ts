import { asc, eq } from "drizzle-orm"
import { outboxEventsTable, paymentsTable } from "../../../adapters/postgres/schema.ts"
import type { Manifest } from "../../../core/tenancy/manifest.ts"
import type { Harness } from "../../support/harness.ts"

/**
 * A project with paid and free assets and two discount codes. The harness clock starts Monday
 * 2030-01-07 09:00 in Asia/Bangkok (02:00Z); `local("10:00", day)` is that local time `day`
 * days later. The clock only moves forward, so each test books on a day of its own.
 */
export const local = (hhmm: string, day = 0): string => {
  const d = new Date(Date.UTC(2030, 0, 7 + day))
  return `${d.toISOString().slice(0, 10)}T${hhmm}:00+07:00`
}

/** Epoch ms of a local time. */
export const at = (hhmm: string, day = 0): number => Date.parse(local(hhmm, day))

export const PAY_APP = { appId: "pay-app", appSecret: "pay-app-secret-123" }

const everyDay = {
  dayConfig: Object.fromEntries(
    ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"].map((d) => [
      d,
      { availableTime: { start: "07:00:00", end: "22:00:00" } },
    ]),
  ),
}

const room = (key: string, name: string, chargeRate: { perHour: number; perDay: number }) => ({
  key,
  name,
  zone: "a",
  floor: "a-1",
  capacity: 8,
  chargeRate,
  config: everyDay,
})

export const paymentsManifest = (): Manifest =>
  ({
    projects: [
      {
        key: "hq",
        name: "HQ Tower",
        timezone: "Asia/Bangkok",
        zones: [{ key: "a", name: "Tower A", floors: [{ key: "a-1", name: "Floor 1" }] }],
        rooms: [
          // 100 THB an hour, at most 600 THB a day.
          room("lotus", "Lotus", { perHour: 100, perDay: 600 }),
          room("orchid", "Orchid", { perHour: 150.5, perDay: 0 }),
          room("free", "Free room", { perHour: 0, perDay: 0 }),
          // One room per test that books many: the hold cap and the reconciliation tests.
          room("jasmine", "Jasmine <&> \"quoted\"", { perHour: 100, perDay: 0 }),
        ],
        desks: [
          {
            key: "hot",
            name: "Hot desk",
            index: 1,
            zone: "a",
            floor: "a-1",
            capacity: 1,
            chargeRate: { perHour: 40, perDay: 200 },
            config: everyDay,
          },
        ],
        discounts: [
          { key: "welcome", code: "WELCOME10", name: "Welcome", percentOff: 10 },
          { key: "flat", code: "Flat50", name: "Fifty off", amountOff: 50 },
          { key: "all", code: "FREEBIE", name: "On the house", percentOff: 100 },
        ],
        users: [
          {
            key: "alice",
            firstName: "Alice",
            lastName: "Ng",
            email: "alice@hq.example",
            role: "member",
            links: [{ app: "app", externalUserId: "ext-alice" }],
          },
          {
            key: "bob",
            firstName: "Bob",
            lastName: "Lee",
            email: "bob@hq.example",
            role: "member",
            links: [{ app: "app", externalUserId: "ext-bob" }],
          },
        ],
      },
    ],
    apps: [{ key: "app", ...PAY_APP, projects: ["hq"], canActAs: true }],
  }) as Manifest

export interface PaymentsWorld {
  readonly ids: any
  readonly token: string
}

export const setUpPaymentsWorld = async (h: Harness): Promise<PaymentsWorld> => {
  const ids = await h.applyManifest(paymentsManifest())
  return { ids: ids.projects.hq, token: await h.tokenFor(PAY_APP.appId, PAY_APP.appSecret) }
}

/** A delegated (act_as) token: the member is the organizer of what it books. */
export const actAsToken = async (h: Harness, externalUserId: string): Promise<string> => {
  const res = await h.request("POST", "/auth/accessToken", {
    body: { grant_type: "act_as", app_id: PAY_APP.appId, app_secret: PAY_APP.appSecret, subject: externalUserId },
  })
  if (res.status !== 201) throw new Error(`act_as failed: ${res.status} ${JSON.stringify(res.body)}`)
  return res.body.access_token
}

export const createMeeting = (h: Harness, token: string, body: Record<string, unknown>) =>
  h.request("POST", "/meetings", { token, body: { title: "Paid meeting", ...body } })

/** Books a room from `from` to `to` (local HH:mm of `day`); expects 201. */
export const bookRoom = async (
  h: Harness,
  w: PaymentsWorld,
  room: string,
  from: string,
  to: string,
  day: number,
  extra: Record<string, unknown> = {},
  token = w.token,
): Promise<any> => {
  const res = await createMeeting(h, token, {
    meetingRoomId: w.ids.rooms[room],
    startDateTime: local(from, day),
    endDateTime: local(to, day),
    ...extra,
  })
  if (res.status !== 201) throw new Error(`create failed: ${res.status} ${JSON.stringify(res.body)}`)
  return res.body.data
}

export const getMeeting = async (h: Harness, w: PaymentsWorld, id: string): Promise<any> => {
  const res = await h.request("GET", `/meetings/${id}`, { token: w.token })
  if (res.status !== 200) throw new Error(`get failed: ${res.status} ${JSON.stringify(res.body)}`)
  return res.body.data
}

/** The sandbox page's form post, as a browser sends it. */
export const postPay = async (h: Harness, paymentId: string, outcome: string): Promise<Response> =>
  h.booted.app.request(`/pay/${paymentId}`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ outcome }).toString(),
    redirect: "manual",
  })

export const paymentRows = (h: Harness, bookingId: string) =>
  h.booted.services.database.db
    .select()
    .from(paymentsTable)
    .where(eq(paymentsTable.bookingId, bookingId))
    .orderBy(asc(paymentsTable.createdAt))

/** The outbox events of a booking in order: type and the core event. */
export const eventsOf = async (h: Harness, bookingId: string) => {
  const rows = await h.booted.services.database.db
    .select()
    .from(outboxEventsTable)
    .where(eq(outboxEventsTable.bookingId, bookingId))
    .orderBy(asc(outboxEventsTable.occurredAt), asc(outboxEventsTable.createdAt), asc(outboxEventsTable.id))
  return rows.map((r) => ({ type: r.type, at: r.occurredAt.toISOString(), event: (r.payload as any).event }))
}

/** Advances the manual clock to a local time of `day`. */
export const advanceTo = async (h: Harness, hhmm: string, day: number): Promise<void> => {
  const res = await h.admin("POST", "/clock/advance", { to: local(hhmm, day) })
  if (res.status !== 200) throw new Error(`advance failed: ${JSON.stringify(res.body)}`)
}

/** Every row count that a booking attempt could leave behind. */
export const rowCounts = async (h: Harness) => {
  const db = h.booted.services.database.db
  const { execute } = await import("../../../adapters/postgres/database.ts")
  const { sql } = await import("drizzle-orm")
  const [r] = await execute<{ bookings: number; slots: number; payments: number; outbox: number; ticks: number }>(
    db,
    sql`select
      (select count(*)::int from bookings) as bookings,
      (select count(*)::int from booking_slots) as slots,
      (select count(*)::int from payments) as payments,
      (select count(*)::int from outbox_events) as outbox,
      (select count(*)::int from scheduled_ticks) as ticks`,
  )
  return r!
}
