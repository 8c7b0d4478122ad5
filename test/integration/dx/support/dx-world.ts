import { pngBase64 as framedPng } from "../../../support/face-images.ts"
import type { Manifest } from "../../../../core/tenancy/manifest.ts"

/** A small tenant for the developer-experience suites: no webhooks, so nothing leaves the host. */
export const APP_ID = "dx-app"
export const APP_SECRET = "dx-app-secret-0123456789"

const allWeek = Object.fromEntries(
  ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"].map((d) => [
    d,
    { availableTime: { start: "07:00:00", end: "22:00:00" } },
  ]),
)

export const dxManifest = (): Manifest => ({
  projects: [
    {
      key: "dx",
      name: "DX Tower",
      timezone: "Asia/Bangkok",
      zones: [{ key: "a", name: "Tower A", floors: [{ key: "a-1", name: "Floor 1" }] }],
      rooms: [
        {
          key: "lotus",
          name: "Lotus",
          zone: "a",
          floor: "a-1",
          capacity: 8,
          email: "lotus@dx.example",
          config: { dayConfig: allWeek },
        },
      ],
      desks: [
        {
          key: "d1",
          name: "Desk 1",
          index: 1,
          zone: "a",
          floor: "a-1",
          capacity: 1,
          config: { dayConfig: allWeek },
        },
      ],
      units: [{ key: "u1", addressNo: "99/1", zone: "a", unitId: "U-99-1" }],
      accessGroups: [{ key: "lobby", name: "Lobby doors" }],
    },
  ],
  apps: [
    {
      key: "dx-app",
      appId: APP_ID,
      appSecret: APP_SECRET,
      projects: ["dx"],
      partnerAccessGroups: ["lobby"],
      canActAs: true,
    },
  ],
})

/** A whole PNG whose body bytes are 7 (easy to spot if it ever reached a log line). */
export const pngBase64 = (bytes = 64): string => framedPng(bytes, 7)
