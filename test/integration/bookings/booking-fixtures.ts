import type { Manifest } from "../../../core/tenancy/manifest.ts"
import { afterAll, beforeAll } from "vitest"
import type { Engine } from "../../support/databases.ts"
import { startHarness, type Harness } from "../../support/harness.ts"

/**
 * A project for the booking suites. The harness clock starts Monday 2030-01-07 09:00 in
 * Asia/Bangkok (+07:00); `at(day, "HH:mm")` is a local time `day` days after that Monday.
 */
export const MONDAY = "2030-01-07"

export const at = (day: number, hhmm: string): string => {
  const d = new Date(Date.UTC(2030, 0, 7 + day))
  return `${d.toISOString().slice(0, 10)}T${hhmm}:00+07:00`
}

const weekdays = (start: string, end: string, breakTimes?: Array<{ start: string; end: string }>) =>
  Object.fromEntries(
    ["Mon", "Tue", "Wed", "Thu", "Fri"].map((d) => [
      d,
      { availableTime: { start, end }, ...(breakTimes ? { breakTimes } : {}) },
    ]),
  )
const everyDay = (start: string, end: string) =>
  Object.fromEntries(["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"].map((d) => [d, { availableTime: { start, end } }]))

export const APP = { appId: "booking-app", appSecret: "booking-secret-123" }
export const OTHER_APP = { appId: "other-app", appSecret: "other-secret-123" }

const room = (key: string, name: string, extra: Record<string, unknown> = {}) => ({
  key,
  name,
  zone: "a",
  floor: "a-1",
  capacity: 8,
  email: `${key}@hq.example`,
  equipmentsAvailability: { camera: true, display: true, mic: true, projector: false, speaker: true },
  ...extra,
})

export const bookingManifest = (): Manifest =>
  ({
    projects: [
      {
        key: "hq",
        name: "HQ Tower",
        timezone: "Asia/Bangkok",
        zones: [
          { key: "a", name: "Tower A", floors: [{ key: "a-1", name: "Floor 1" }, { key: "a-2", name: "Floor 2" }] },
          { key: "b", name: "Tower B", floors: [{ key: "b-1", name: "Floor B1" }] },
        ],
        rooms: [
          room("lotus", "Lotus", {
            config: { dayConfig: weekdays("08:00:00", "18:00:00", [{ start: "12:00:00", end: "13:00:00" }]) },
          }),
          room("orchid", "Orchid", { capacity: 4 }),
          room("jasmine", "Jasmine", {
            capacity: 12,
            chargeRate: { perHour: 500, perDay: 3000 },
            config: { dayConfig: everyDay("07:00:00", "22:00:00") },
          }),
          room("rules", "Rules Room", {
            config: {
              dayConfig: weekdays("08:00:00", "18:00:00"),
              minimumLeadTime: { hours: 2 },
              maxAdvanceBookingDays: 7,
              maxDurationMinutes: 120,
            },
          }),
          room("closed", "Closed Room", { status: "inactive" }),
          room("bed", "Bed Room", { type: "bedroom", capacity: 2, zone: "b", floor: "b-1" }),
          room("series", "Series Room", { capacity: 20 }),
          room("race", "Race Room"),
        ],
        desks: [1, 2, 3].map((i) => ({
          key: `d${i}`,
          name: `Desk ${i}`,
          index: i,
          zone: "a",
          floor: "a-2",
          capacity: 1,
          email: `desk${i}@hq.example`,
          config: { dayConfig: everyDay("08:00:00", "18:00:00") },
        })).concat([
          {
            key: "d4",
            name: "Desk 4",
            index: 4,
            zone: "b",
            floor: "b-1",
            capacity: 1,
            email: "desk4@hq.example",
            status: "suspended",
            config: { dayConfig: everyDay("08:00:00", "18:00:00") },
          } as never,
        ]),
        discounts: [{ key: "welcome", code: "WELCOME10", name: "Welcome", percentOff: 10 }],
        users: [
          { key: "alice", firstName: "Alice", lastName: "Ng", email: "alice@hq.example", role: "member",
            links: [{ app: "app", externalUserId: "ext-alice" }] },
          { key: "bob", firstName: "Bob", lastName: "Lee", email: "bob@hq.example", role: "member",
            links: [{ app: "app", externalUserId: "ext-bob" }] },
          { key: "carol", firstName: "Carol", lastName: "Admin", email: "carol@hq.example", role: "admin",
            links: [{ app: "app", externalUserId: "ext-carol" }] },
        ],
      },
      {
        key: "elsewhere",
        name: "Elsewhere",
        timezone: "Asia/Bangkok",
        zones: [{ key: "z", name: "Zone", floors: [{ key: "z-1", name: "Z1" }] }],
        rooms: [{ key: "far", name: "Far Room", zone: "z", floor: "z-1" }],
        desks: [{ key: "far-desk", name: "Far Desk", zone: "z", floor: "z-1" }],
      },
    ],
    apps: [
      { key: "app", ...APP, projects: ["hq"], canActAs: true },
      { key: "other", ...OTHER_APP, projects: ["elsewhere"] },
    ],
  }) as Manifest

export interface BookingWorld {
  readonly ids: any
  readonly hq: any
  readonly far: any
  /** App token (books as the app's service identity). */
  readonly app: string
  readonly otherApp: string
  readonly alice: string
  readonly bob: string
  readonly carol: string
}

export const actAsToken = async (h: Pick<Harness, "request">, externalUserId: string): Promise<string> => {
  const res = await h.request("POST", "/auth/accessToken", {
    body: { grant_type: "act_as", app_id: APP.appId, app_secret: APP.appSecret, subject: externalUserId },
  })
  if (res.status !== 201) throw new Error(`act_as failed: ${JSON.stringify(res.body)}`)
  return res.body.access_token
}

export const setUpWorld = async (h: Harness, manifest: Manifest = bookingManifest()): Promise<BookingWorld> => {
  const ids = await h.applyManifest(manifest)
  return {
    ids,
    hq: ids.projects.hq,
    far: ids.projects.elsewhere,
    app: await h.tokenFor(APP.appId, APP.appSecret),
    otherApp: await h.tokenFor(OTHER_APP.appId, OTHER_APP.appSecret),
    alice: await actAsToken(h, "ext-alice"),
    bob: await actAsToken(h, "ext-bob"),
    carol: await actAsToken(h, "ext-carol"),
  }
}

/**
 * A harness on `engine` with the booking world, booted before the enclosing tests and closed
 * after them: read `.h` and `.w` inside the tests.
 */
export const bookingWorldOn = (engine: Engine): { readonly h: Harness; readonly w: BookingWorld } => {
  const held: { h?: Harness; w?: BookingWorld } = {}
  beforeAll(async () => {
    held.h = await startHarness(engine)
    held.w = await setUpWorld(held.h)
  })
  afterAll(async () => held.h?.close())
  return {
    get h() {
      return held.h!
    },
    get w() {
      return held.w!
    },
  }
}

/** A query string from a plain object; arrays become repeated keys. */
export const qs = (params: Record<string, string | number | ReadonlyArray<string> | undefined>): string => {
  const u = new URLSearchParams()
  for (const [k, v] of Object.entries(params)) {
    if (v === undefined) continue
    if (Array.isArray(v)) for (const item of v) u.append(k, item)
    else u.append(k, String(v))
  }
  return u.toString()
}

/** POST /meetings for a room, [start, end) as local times of `day`. */
export const bookRoom = (
  h: Pick<Harness, "request">,
  token: string,
  roomId: string,
  day: number,
  from: string,
  to: string,
  extra: Record<string, unknown> = {},
) =>
  h.request("POST", "/meetings", {
    token,
    body: { meetingRoomId: roomId, title: "Sync", startDateTime: at(day, from), endDateTime: at(day, to), ...extra },
  })
