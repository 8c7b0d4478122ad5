/**
 * `npx tsx bench/manifest-apply.ts`: how long `PUT /admin/v1/manifest` takes for one building
 * (issue 13, session 15), on the built server and a new PostgreSQL database: the first apply
 * (everything new), the same manifest again (nothing changes), and one with every room renamed.
 *
 *   --rooms 2000 --desks 2000 --users 500   the building's size
 *   --entry FILE                            the server bundle (default dist/runtimes/node/server.js)
 */
import { parseArgs } from "node:util"
import { freshPostgresDatabase } from "../test/support/databases.ts"
import { startChild, stopChild } from "./support.ts"

const { values: args } = parseArgs({
  options: {
    rooms: { type: "string", default: "2000" },
    desks: { type: "string", default: "2000" },
    users: { type: "string", default: "500" },
    entry: { type: "string", default: "dist/runtimes/node/server.js" },
    port: { type: "string", default: "42640" },
  },
})
const ADMIN = "bench-admin-token-0123456789"
const building = (roomName: string) => ({
  projects: [
    {
      key: "tower", name: "Tower", timezone: "Asia/Bangkok",
      zones: [{ key: "a", name: "A", floors: Array.from({ length: 20 }, (_, i) => ({ key: `a-${i}`, name: `Floor ${i}` })) }],
      rooms: Array.from({ length: Number(args.rooms) }, (_, i) => ({ key: `r${i}`, name: `${roomName} ${i}`, zone: "a", floor: `a-${i % 20}`, capacity: 8 })),
      desks: Array.from({ length: Number(args.desks) }, (_, i) => ({ key: `d${i}`, name: `Desk ${i}`, zone: "a", floor: `a-${i % 20}`, index: i })),
      accessGroups: [{ key: "lobby", name: "Lobby" }],
      users: Array.from({ length: Number(args.users) }, (_, i) => ({
        key: `u${i}`, firstName: "User", lastName: String(i), email: `user${i}@tower.example`,
        links: [{ app: "partner", externalUserId: `ext-${i}` }],
      })),
    },
  ],
  apps: [{ key: "partner", appId: "partner-app", appSecret: "partner-secret-123", projects: ["tower"], partnerAccessGroups: ["lobby"] }],
})

const pg = await freshPostgresDatabase()
const port = Number(args.port)
const child = await startChild([process.execPath, args.entry], { DATABASE_URL: pg.url, KEYSPACE_SEED: "none", KEYSPACE_ADMIN_TOKEN: ADMIN, PORT: String(port) }, port)
try {
  const put = async (label: string, body: unknown) => {
    const t = performance.now()
    const res = await fetch(`http://127.0.0.1:${port}/admin/v1/manifest`, {
      method: "PUT",
      headers: { authorization: `Bearer ${ADMIN}`, "content-type": "application/json" },
      body: JSON.stringify(body),
    })
    const answer = (await res.json()) as { data?: { projects?: Record<string, { rooms: Record<string, string> }> } }
    const ms = performance.now() - t
    console.log(`${label.padEnd(28)} ${String(res.status)} ${ms.toFixed(0).padStart(7)} ms  (${Object.keys(answer.data?.projects?.tower?.rooms ?? {}).length} rooms in the answer)`)
    return answer
  }
  const first = await put("first apply", building("Room"))
  const again = await put("same manifest again", building("Room"))
  const renamed = await put("every room renamed", building("Hall"))
  const same = JSON.stringify(first) === JSON.stringify(again) && JSON.stringify(first) === JSON.stringify(renamed)
  console.log(`ids identical across the three applies: ${same}`)
} finally {
  await stopChild(child)
  await pg.drop()
}
