import { sql } from "drizzle-orm"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { execute, type Tx } from "../../../adapters/postgres/database.ts"
import { OUTBOX_CHANNEL } from "../../../adapters/postgres/outbox.ts"
import { ENGINES } from "../../support/databases.ts"
import { startHarness, type Harness } from "../../support/harness.ts"
import { actAsToken, at, bookRoom, setUpWorld, type BookingWorld } from "./booking-fixtures.ts"

describe.each(ENGINES)("no double booking by construction on %s", (engine) => {
  let h: Harness
  let w: BookingWorld
  beforeAll(async () => {
    h = await startHarness(engine)
    w = await setUpWorld(h)
  })
  afterAll(async () => h?.close())

  it("100 concurrent POST /meetings for one room and slot give exactly one 201 and 99 409 SV012", async () => {
    const tokens = [w.app, w.alice, w.bob, w.carol]
    const results = await Promise.all(
      Array.from({ length: 100 }, (_, i) =>
        bookRoom(h, tokens[i % tokens.length]!, w.hq.rooms.race, 1, "10:00", "11:00", { title: `race ${i}` }),
      ),
    )
    const statuses = results.map((r) => r.status)
    expect(statuses.filter((s) => s === 201)).toHaveLength(1)
    expect(statuses.filter((s) => s === 409)).toHaveLength(99)
    for (const r of results.filter((x) => x.status === 409)) expect(r.body.code).toBe("SV012")
    const [row] = await execute<{ n: number }>(
      h.booted.services.database.db,
      sql`select count(*)::int as n from booking_slots where asset_id = ${w.hq.rooms.race}`,
    )
    expect(row!.n).toBe(1)
  })

  it("concurrent creates of free and taken slots: each free slot is booked exactly once, a taken slot never, and a refused create writes nothing", async () => {
    const slots = Array.from({ length: 16 }, (_, i) => {
      const m = 9 * 60 + i * 30
      const hhmm = (x: number) => `${String(Math.floor(x / 60)).padStart(2, "0")}:${String(x % 60).padStart(2, "0")}`
      return [hhmm(m), hhmm(m + 30)] as const
    })
    const taken = await bookRoom(h, w.alice, w.hq.rooms.orchid, 4, "10:00", "10:30")
    expect(taken.status).toBe(201)
    // Every slot asked for twice at once, by different callers: the creates share batches.
    const results = await Promise.all(
      [...slots, ...slots].map(([from, to], i) =>
        bookRoom(h, i % 2 === 0 ? w.bob : w.carol, w.hq.rooms.orchid, 4, from, to, { title: `mix ${i}` }),
      ),
    )
    const won = new Map<string, number>()
    results.forEach((r, i) => {
      const [from] = slots[i % slots.length]!
      if (r.status === 201) won.set(from, (won.get(from) ?? 0) + 1)
      else {
        expect(r.status).toBe(409)
        expect(r.body.code).toBe("SV012")
      }
    })
    expect(won.get("10:00")).toBeUndefined()
    for (const [from] of slots) if (from !== "10:00") expect(won.get(from)).toBe(1)
    const db = h.booted.services.database.db
    const [counts] = await execute<{ bookings: number; slots: number; histories: number; events: number }>(
      db,
      sql`select (select count(*)::int from bookings where asset_id = ${w.hq.rooms.orchid} and title like 'mix %') as bookings,
                 (select count(*)::int from booking_slots s join bookings b on b.id = s.booking_id where b.asset_id = ${w.hq.rooms.orchid} and b.title like 'mix %') as slots,
                 (select count(*)::int from booking_histories x join bookings b on b.id = x.booking_id where b.asset_id = ${w.hq.rooms.orchid} and b.title like 'mix %') as histories,
                 (select count(*)::int from outbox_events e join bookings b on b.id = e.booking_id where b.asset_id = ${w.hq.rooms.orchid} and b.title like 'mix %') as events`,
    )
    expect(counts).toEqual({ bookings: 15, slots: 15, histories: 15, events: 15 })
  })

  it("concurrent overlapping moves by PATCH leave at most one booking in the contested slot", async () => {
    const a = (await bookRoom(h, w.alice, w.hq.rooms.race, 2, "09:00", "10:00")).body.data
    const b = (await bookRoom(h, w.bob, w.hq.rooms.race, 2, "11:00", "12:00")).body.data
    const [ra, rb] = await Promise.all([
      h.request("PATCH", `/meetings/${a._id}`, { token: w.alice, body: { startDateTime: at(2, "10:00"), endDateTime: at(2, "11:00") } }),
      h.request("PATCH", `/meetings/${b._id}`, { token: w.bob, body: { startDateTime: at(2, "10:30"), endDateTime: at(2, "11:30") } }),
    ])
    expect([ra.status, rb.status].sort()).toEqual([200, 409])
  })

  it("the database refuses an overlapping live slot even when written directly", async () => {
    const [slot] = await execute<{ booking_id: string }>(
      h.booted.services.database.db,
      sql`select booking_id from booking_slots where asset_id = ${w.hq.rooms.race} and status = 'active' limit 1`,
    )
    const insert = h.booted.services.database.db.execute(
      sql`insert into booking_slots (id, booking_id, project_id, asset_id, start_at, end_at, status, created_at, updated_at)
          values ('ffffffffffffffffffffffff', ${slot!.booking_id}, ${w.hq.id}, ${w.hq.rooms.race},
                  '2030-01-08T03:30:00Z', '2030-01-08T03:45:00Z', 'unpaid', '2030-01-07T02:00:00Z', '2030-01-07T02:00:00Z')`,
    )
    await expect(insert).rejects.toMatchObject({ cause: { code: "23P01" } })
  })

  it("concurrent cancel and check-in of one booking: exactly one wins", async () => {
    const alice = await actAsToken(h, "ext-alice")
    const m = (await bookRoom(h, alice, w.hq.rooms.orchid, 0, "09:05", "09:30")).body.data
    const [c, i] = await Promise.all([
      h.request("POST", `/meetings/${m._id}/cancel`, { token: alice }),
      h.request("POST", `/meetings/${m._id}/check-in`, { token: alice }),
    ])
    expect([c.status, i.status].sort()).toEqual([202, 409])
  })
})

describe("creates written together on PostgreSQL", () => {
  let h: Harness
  let w: BookingWorld
  beforeAll(async () => {
    h = await startHarness("postgres")
    w = await setUpWorld(h)
    // A create the database refuses for a reason other than its slot fails the statement it
    // shares with others: each of them is then written alone and answered on its own.
    await h.booted.services.database.db.execute(sql.raw(`
      create function refuse_poison() returns trigger language plpgsql as $$
      begin if new.title = 'poison' then raise exception 'poisoned create'; end if; return new; end $$;
      create trigger refuse_poison before insert on bookings for each row execute function refuse_poison();`))
  })
  afterAll(async () => h?.close())

  it("a create that fails for another reason does not take its batch's neighbours with it", async () => {
    const results = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        bookRoom(h, w.bob, w.hq.rooms.orchid, 3, `${String(9 + i).padStart(2, "0")}:00`, `${String(9 + i).padStart(2, "0")}:30`, {
          title: i === 3 ? "poison" : `neighbour ${i}`,
        }),
      ),
    )
    expect(results.map((r) => r.status)).toEqual([201, 201, 201, 500, 201, 201, 201, 201])
  })

  /** A transaction that takes `locks` and holds them until `release` (which waits for its end). */
  const holdLocks = async (locks: (tx: Tx) => Promise<unknown>): Promise<{ release: () => Promise<void> }> => {
    let release!: () => void
    const released = new Promise<void>((r) => (release = r))
    let taken!: () => void
    const locksTaken = new Promise<void>((r) => (taken = r))
    const holder = h.booted.services.database.db.transaction(async (tx) => {
      await locks(tx)
      taken()
      await released
    })
    await locksTaken
    return { release: () => (release(), holder) }
  }

  it("a create whose asset another transaction holds waits for the lock on its own; the creates of other assets are not held up with it", async () => {
    // A writer of the room's slots in the middle of its transaction (a paid create waiting on its gateway, say).
    const holder = await holdLocks((tx) => tx.execute(sql`select pg_advisory_xact_lock(hashtext(${w.hq.rooms.orchid}))`))
    let busyAnswered = false
    const busy = bookRoom(h, w.bob, w.hq.rooms.orchid, 4, "09:00", "09:30").then((r) => ((busyAnswered = true), r))
    const others = await Promise.all(
      [w.hq.rooms.lotus, w.hq.rooms.race, w.hq.rooms.rules].map((room) => bookRoom(h, w.carol, room, 4, "09:00", "09:30")),
    )
    expect(others.map((r) => r.status)).toEqual([201, 201, 201])
    expect(busyAnswered).toBe(false)
    await holder.release()
    expect((await busy).status).toBe(201)
  })

  it("creates do not wait on their project's or app's row: a transaction holding both rows locked holds up no create", async () => {
    // With foreign keys to projects and apps, every create took a KEY SHARE lock on both rows,
    // which FOR UPDATE blocks (and which concurrent creates shared through MultiXacts).
    const holder = await holdLocks(async (tx) => {
      await tx.execute(sql`select id from projects where id = (select project_id from rooms where id = ${w.hq.rooms.lotus}) for update`)
      await tx.execute(sql`select id from apps for update`)
    })
    const creates = Promise.all(
      ["13:00", "14:00", "15:00"].map((from, i) => bookRoom(h, i === 0 ? w.app : w.carol, w.hq.rooms.lotus, 3, from, `${from.slice(0, 2)}:30`)),
    )
    const first = await Promise.race([creates, new Promise<"still waiting">((r) => setTimeout(() => r("still waiting"), 3000))])
    await holder.release()
    expect(first === "still waiting" ? first : first.map((r) => r.status)).toEqual([201, 201, 201])
  })

  it("a create wakes the webhook relay only when an enabled webhook of its project subscribes to its event", async () => {
    const database = h.booted.services.database
    let wakes = 0
    const unlisten = await database.listen(OUTBOX_CHANNEL, () => void wakes++)
    const settle = () => new Promise((r) => setTimeout(r, 50)) // the in-process wakes are coalesced over a few ms
    try {
      expect((await bookRoom(h, w.bob, w.hq.rooms.lotus, 4, "13:00", "13:30")).status).toBe(201)
      await settle()
      expect(wakes).toBe(0)
      await database.db.execute(sql`insert into webhooks (id, project_id, key, url, secret, events, auth, created_at, updated_at)
        values ('${sql.raw("f".repeat(24))}', ${w.hq.id}, 'wake-test', 'https://hooks.example/x', 's', '["ROOM_BOOK"]', '{}', now(), now())`)
      expect((await bookRoom(h, w.bob, w.hq.rooms.lotus, 4, "14:00", "14:30")).status).toBe(201)
      await settle()
      expect(wakes).toBeGreaterThan(0)
    } finally {
      await unlisten()
    }
  })
})
