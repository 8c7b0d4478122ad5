import type { Manifest } from "../../core/tenancy/manifest.ts"

/** The manifest example of the operator contract, section 3 (with a real secret). */
export const contractManifest = (): Manifest => ({
  projects: [
    {
      key: "hq",
      name: "HQ Tower",
      timezone: "Asia/Bangkok",
      zones: [{ key: "a", name: "Tower A", floors: [{ key: "a-1", name: "Floor 1" }] }],
      rooms: [
        {
          key: "r1", name: "Lotus", zone: "a", floor: "a-1", capacity: 8, type: "normal", status: "active",
          isPublic: true, email: "lotus@hq.example", facilities: [], pictureUrls: [],
          equipmentsAvailability: { camera: true, display: true, mic: true, projector: false, speaker: true },
          chargeRate: { perHour: 0, perDay: 0 },
          config: { dayConfig: { Mon: { availableTime: { start: "08:00:00", end: "18:00:00" } } } },
        },
      ],
      desks: [
        { key: "d1", name: "Desk 1", index: 1, zone: "a", floor: "a-1", capacity: 1, status: "active",
          chargeRate: { perHour: 0, perDay: 0 }, config: {} },
      ],
      units: [{ key: "u1", addressNo: "99/1", zone: "a", unitId: "U-99-1" }],
      accessGroups: [{ key: "lobby", name: "Lobby doors" }],
      discounts: [{ key: "welcome", code: "WELCOME10", name: "Welcome", percentOff: 10 }],
      users: [
        { key: "alice", firstName: "Alice", lastName: "Ng", email: "alice@hq.example", phone: "+66811111111",
          employeeId: "E-1", role: "member", links: [{ app: "partner", externalUserId: "ext-alice" }] },
      ],
      webhooks: [
        { key: "ops", url: "https://hooks.example/keyspace", secret: "s".repeat(40),
          events: ["ROOM_BOOK", "ROOM_CANCEL"], auth: { scheme: "signature-only" } },
      ],
    },
  ],
  apps: [
    { key: "partner", appId: "partner-app", appSecret: "partner-secret-123", projects: ["hq"],
      partnerAccessGroups: ["lobby"], canActAs: true },
  ],
})
