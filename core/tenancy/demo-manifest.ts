import type { Manifest } from "./manifest.ts"

const everyDay = (start: string, end: string) =>
  Object.fromEntries(
    ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"].map((d) => [d, { availableTime: { start, end } }]),
  )

/** The demo project KEYSPACE_SEED=demo provisions on an empty database. */
export const demoManifest = (appSecret: string): Manifest => ({
  projects: [
    {
      key: "demo",
      name: "Keyspace Demo Tower",
      timezone: "Asia/Bangkok",
      zones: [{ key: "a", name: "Tower A", floors: [{ key: "a-1", name: "Floor 1" }, { key: "a-2", name: "Floor 2" }] }],
      rooms: [
        { key: "lotus", name: "Lotus", zone: "a", floor: "a-1", capacity: 8, email: "lotus@demo.keyspace.local",
          equipmentsAvailability: { camera: true, display: true, mic: true, projector: false, speaker: true },
          config: { dayConfig: everyDay("07:00:00", "22:00:00") } },
        { key: "orchid", name: "Orchid", zone: "a", floor: "a-1", capacity: 4, email: "orchid@demo.keyspace.local",
          config: { dayConfig: everyDay("07:00:00", "22:00:00") } },
        { key: "jasmine", name: "Jasmine (paid)", zone: "a", floor: "a-2", capacity: 12, email: "jasmine@demo.keyspace.local",
          chargeRate: { perHour: 500, perDay: 3000 }, config: { dayConfig: everyDay("07:00:00", "22:00:00") } },
      ],
      desks: [1, 2, 3, 4].map((i) => ({
        key: `desk-${i}`, name: `Desk ${i}`, index: i, zone: "a", floor: "a-2", capacity: 1,
        config: { dayConfig: everyDay("07:00:00", "22:00:00") },
      })),
      units: [{ key: "u-99-1", addressNo: "99/1", zone: "a", unitId: "U-99-1" }],
      accessGroups: [{ key: "lobby", name: "Lobby doors" }],
      discounts: [{ key: "welcome", code: "WELCOME10", name: "Welcome", percentOff: 10 }],
      users: [{ key: "alice", firstName: "Alice", lastName: "Ng", email: "alice@demo.keyspace.local", role: "admin" }],
    },
  ],
  apps: [
    { key: "demo-app", appId: "demo-app", appSecret, projects: ["demo"], partnerAccessGroups: ["lobby"], canActAs: true },
  ],
})

export type DemoSeed =
  | { readonly seeded: true; readonly appId: string; readonly appSecret: string; readonly projectId: string }
  /** The database already had projects: nothing seeded; the demo project's id if it is there. */
  | { readonly seeded: false; readonly projectId: string | undefined }
