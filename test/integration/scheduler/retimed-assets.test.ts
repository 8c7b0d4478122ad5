import postgres from "postgres"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { Manifest } from "../../../core/tenancy/manifest.ts"
import { ENGINES } from "../../support/databases.ts"
import { startHarness, type Harness } from "../../support/harness.ts"
import { advanceTo, book, eventsOf, schedulerManifest, setUpSchedulerWorld, statusOf, ticksOf, TICKS_OFF, utc, type SchedulerWorld } from "./scheduler-fixtures.ts"

/**
 * Spec "Scheduler ticks": "Timings come from the asset's config.meetingConfig", and "Booking
 * status": the no-show auto-cancel comes postStartExpireMinutes after the start. A manifest that
 * changes a room's meetingConfig re-plans the ticks of the bookings the room already has (found by
 * a black-box probe: ticks planned by the old timings were skipped by the new ones, and a booking
 * nobody checked in to ran to its end).
 */
describe.each(ENGINES)("a room's meetingConfig changed by the manifest, on %s", (engine) => {
  let h: Harness
  let w: SchedulerWorld
  let nextDay = 0

  /** The scheduler manifest with rooms r0 (defaults) and r1 (every tick off), r0's and r1's meetingConfig as given. */
  const manifest = (configs: { r0?: Record<string, number>; r1?: Record<string, number> }): Manifest => {
    const base = schedulerManifest({ rooms: 2 }) as any
    const project = base.projects[0]
    const rooms = project.rooms.map((r: any) => {
      const meetingConfig = r.key === "r0" ? configs.r0 : r.key === "r1" ? (configs.r1 ?? TICKS_OFF) : undefined
      if (r.key !== "r0" && r.key !== "r1") return r
      const { meetingConfig: _, ...config } = r.config
      return { ...r, config: meetingConfig === undefined ? config : { ...config, meetingConfig } }
    })
    return { ...base, projects: [{ ...project, rooms }] }
  }
  const apply = async (m: Manifest) => {
    const res = await h.admin("PUT", "/manifest", m)
    expect(res.status, JSON.stringify(res.body)).toBe(200)
  }
  const ticked = async (id: string) =>
    (await eventsOf(h, id)).filter((e) => !/_(BOOK|MODIFY)$/.test(e.type)).map((e) => `${e.type}@${e.at}`)

  beforeAll(async () => {
    h = await startHarness(engine)
    w = await setUpSchedulerWorld(h, { rooms: 2 })
    await apply(manifest({}))
  })
  afterAll(async () => h?.close())

  it("a no-show deadline moved from 15 to 20 minutes cancels a booking made before the change 20 minutes after its start", async () => {
    const d = ++nextDay
    const m = await book(h, w, { room: "r0" }, "10:00", "11:00", d)
    await apply(manifest({ r0: { postStartExpireMinutes: 20 } }))
    await advanceTo(h, "10:15", d)
    expect(await statusOf(h, w, m._id)).toBe("active")
    await advanceTo(h, "10:20", d)
    expect(await statusOf(h, w, m._id)).toBe("cancelled")
    expect(await ticked(m._id)).toEqual([
      `ROOM_REMINDER@${utc("09:45", d)}`,
      `ROOM_NO_SHOW_WARNING@${utc("10:10", d)}`,
      `ROOM_CANCEL@${utc("10:20", d)}`,
    ])
    const warning = (await eventsOf(h, m._id)).find((e) => e.type === "ROOM_NO_SHOW_WARNING")
    expect(warning?.event).toMatchObject({ minutesUntilAutoCancel: 10 })
    await apply(manifest({}))
  })

  it("shorter timings (reminder 5 before, no-show 7 after) take effect for bookings already made", async () => {
    const d = ++nextDay
    const m = await book(h, w, { room: "r0" }, "10:00", "11:00", d)
    await apply(manifest({ r0: { preStartMinutes: 5, postStartWarnMinutes: 3, postStartExpireMinutes: 7 } }))
    await advanceTo(h, "10:07", d)
    expect(await statusOf(h, w, m._id)).toBe("cancelled")
    expect(await ticked(m._id)).toEqual([
      `ROOM_REMINDER@${utc("09:55", d)}`,
      `ROOM_NO_SHOW_WARNING@${utc("10:03", d)}`,
      `ROOM_CANCEL@${utc("10:07", d)}`,
    ])
    await apply(manifest({}))
  })

  it("ticks turned on for a room that had them all off (-1) reach the bookings it already has", async () => {
    const d = ++nextDay
    const m = await book(h, w, { room: "r1" }, "10:00", "11:00", d)
    await apply(manifest({ r1: {} }))
    await advanceTo(h, "10:15", d)
    expect(await statusOf(h, w, m._id)).toBe("cancelled")
    expect(await ticked(m._id)).toEqual([
      `ROOM_REMINDER@${utc("09:45", d)}`,
      `ROOM_NO_SHOW_WARNING@${utc("10:10", d)}`,
      `ROOM_CANCEL@${utc("10:15", d)}`,
    ])
    await apply(manifest({}))
  })

  it("a checked-in booking keeps running: only its ending-soon and end follow the new timings", async () => {
    const d = ++nextDay
    const m = await book(h, w, { room: "r0" }, "10:00", "11:00", d)
    await advanceTo(h, "09:50", d)
    const res = await h.request("POST", `/meetings/${m._id}/check-in`, { token: await w.token() })
    expect(res.status, JSON.stringify(res.body)).toBe(202)
    await apply(manifest({ r0: { preEndMinutes: 5 } }))
    await advanceTo(h, "11:00", d)
    expect(await statusOf(h, w, m._id)).toBe("done")
    expect(await ticked(m._id)).toEqual([`ROOM_REMINDER@${utc("09:45", d)}`, `ROOM_ENDING_SOON@${utc("10:55", d)}`])
    await apply(manifest({}))
  })

  it("a re-apply that leaves the timings as they are plans nothing again", async () => {
    const d = ++nextDay
    const m = await book(h, w, { room: "r0" }, "10:00", "11:00", d)
    const before = await ticksOf(h, m._id)
    // Another field of the same config changes: the timings, and so the ticks, stay.
    const renamed = manifest({ r0: { preStartMinutes: 15, postStartWarnMinutes: 10, postStartExpireMinutes: 15, preEndMinutes: 15 } })
    await apply(renamed)
    expect(await ticksOf(h, m._id)).toEqual(before)
    await apply(manifest({}))
    expect(await ticksOf(h, m._id)).toEqual(before)
  })
  // Two connections are needed for a change to wait for a row lock: PostgreSQL only.
  it.runIf(engine === "postgres")(
    "a PATCH that waited for its booking while a manifest changed the room's timings plans its ticks by the new ones",
    async () => {
      const d = ++nextDay
      const m = await book(h, w, { room: "r0" }, "10:00", "11:00", d)
      const token = await w.token()
      const client = postgres(h.booted.services.config.databaseUrl!, { max: 1, onnotice: () => {} })
      try {
        // What a manifest apply does to the booking, as one transaction the PATCH must wait for:
        // the booking's row held, the room's no-show deadline moved to 20 minutes, then commit.
        const { patch } = await client.begin(async (tx) => {
          await tx`select id from bookings where id = ${m._id} for update`
          await tx`update rooms set config = jsonb_set(config, '{meetingConfig}', '{"postStartExpireMinutes": 20}'::jsonb) where id = ${w.ids.rooms.r0!}`
          let answered = false
          const patch = h
            .request("PATCH", `/meetings/${m._id}`, { token, body: { title: "Renamed while the manifest ran" } })
            .finally(() => (answered = true))
          await new Promise((resolve) => setTimeout(resolve, 300))
          // The PATCH is waiting for the booking's row (it read its caches before this commit).
          expect(answered).toBe(false)
          return { patch }
        })
        expect((await patch).status).toBe(200)
      } finally {
        await client.end()
      }
      await advanceTo(h, "10:15", d)
      expect(await statusOf(h, w, m._id)).toBe("active")
      await advanceTo(h, "10:20", d)
      expect(await statusOf(h, w, m._id)).toBe("cancelled")
      await apply(manifest({}))
    },
  )
})
