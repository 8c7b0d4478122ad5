/**
 * The README's typed-client example: find a room that is free and free of charge for a window,
 * book it, and list the day's bookings. Run it against a server (see the README walkthrough):
 *
 *   KEYSPACE_URL=http://localhost:3000 KEYSPACE_APP_SECRET=... KEYSPACE_PROJECT_ID=... \
 *     npx tsx clients/typescript/examples/first-booking.ts
 *
 * (Bun: `bun clients/typescript/examples/first-booking.ts`; Deno: `deno run -A ...`.)
 */
import { KeyspaceClient, KeyspaceError, keyRows } from "../src/index.ts"

const env = (name: string, fallback?: string): string => {
  const value = process.env[name] ?? fallback
  if (value === undefined) throw new Error(`set ${name}`)
  return value
}

const ks = new KeyspaceClient({
  baseUrl: env("KEYSPACE_URL", "http://localhost:3000"),
  credentials: { appId: env("KEYSPACE_APP_ID", "demo-app"), appSecret: env("KEYSPACE_APP_SECRET") },
})
const projectId = env("KEYSPACE_PROJECT_ID")
const window = {
  startDateTime: env("KEYSPACE_START", "2030-01-07T13:00:00+07:00"),
  endDateTime: env("KEYSPACE_END", "2030-01-07T14:00:00+07:00"),
}

try {
  // The search answers the rooms free in the window; a room with unavailableReason is free but
  // closed then, and a room with a chargeRate would make the booking `unpaid` until paid.
  const rooms = await ks.meetingRooms.list({ projectId, ...window })
  const room = rooms.find((r) => r.unavailableReason === undefined && r.chargeRate.perHour === 0 && r.chargeRate.perDay === 0)
  if (!room) throw new Error("no free room without a charge in that window")
  const meeting = await ks.meetings.create({ meetingRoomId: room._id, title: "Weekly sync", ...window })
  console.log(`booked ${room.name}: ${meeting._id} (${meeting.status})`)

  const { data } = await ks.meetings.list({ from: window.startDateTime, to: window.endDateTime })
  const byKey = keyRows(data) // occurrenceEventId, else _id: the key a list row is known by
  console.log(`bookings in the window: ${byKey.size}`)
} catch (e) {
  if (e instanceof KeyspaceError) {
    // Every API error: the status, the spec's code, one message per violated constraint.
    console.error(`Keyspace ${e.status} ${e.code}: ${e.messages.join("; ")} (request ${e.requestId})`)
    process.exit(1)
  }
  throw e
}
