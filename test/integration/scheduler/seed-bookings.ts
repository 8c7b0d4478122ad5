import { sql } from "drizzle-orm"
import type { Db } from "../../../adapters/postgres/database.ts"
import { CLOCK_START, type Harness } from "../../support/harness.ts"
import type { SchedulerWorld } from "./scheduler-fixtures.ts"

/**
 * Bulk bookings straight into the tables (load tests and the bench): active single bookings,
 * `perRoom` consecutive slots of `durationMin` in each room from `firstStart`, and their ticks
 * for the given meetingConfig, exactly as the booking transaction would write them. Far faster
 * than the HTTP API for 100,000 rows; the scheduler cannot tell the difference.
 */
export interface SeedOptions {
  readonly projectId: string
  /** The apps row id (the organizer and creator of the bookings). */
  readonly appRowId: string
  readonly roomIds: ReadonlyArray<string>
  readonly perRoom: number
  readonly firstStart: number
  readonly durationMin: number
  readonly createdAt: number
  /** Minutes; -1 disables (default config 15/10/15/15). */
  readonly meetingConfig?: {
    preStartMinutes: number
    postStartWarnMinutes: number
    postStartExpireMinutes: number
    preEndMinutes: number
  }
  /** Distinguishes the ids of several seeds in one database (one hex digit). */
  readonly idPrefix?: string
  /**
   * Each booking's ticks as one plan row when it has more than one, as a create writes them on
   * PostgreSQL (adapters/postgres/tick-store.ts, firstTickRows); else one row per tick.
   */
  readonly asPlans?: boolean
}

const iso = (ms: number) => new Date(ms).toISOString()

export const seedBookings = (db: Db, o: SeedOptions): Promise<number> =>
  // One transaction: the plan is a temporary table, private to one pooled connection.
  db.transaction((tx) => seed(tx as unknown as Db, o))

const seed = async (db: Db, o: SeedOptions): Promise<number> => {
  const c = o.meetingConfig ?? { preStartMinutes: 15, postStartWarnMinutes: 10, postStartExpireMinutes: 15, preEndMinutes: 15 }
  const prefix = o.idPrefix ?? "a"
  const rooms = sql.join(
    o.roomIds.map((r, i) => sql`(${i}::int, ${r}::text)`),
    sql`, `,
  )
  // One row per (room, slot): the booking id encodes both, so ids are stable and unique.
  await db.execute(sql`
    create temporary table seed_plan (id text, room text, start_at timestamptz, end_at timestamptz) on commit drop`)
  await db.execute(sql`
    insert into seed_plan
    select ${prefix}::text || lpad(to_hex(r.i * ${o.perRoom}::int + g), 23, '0'), r.room,
           ${iso(o.firstStart)}::timestamptz + make_interval(mins => g * ${o.durationMin}::int),
           ${iso(o.firstStart)}::timestamptz + make_interval(mins => (g + 1) * ${o.durationMin}::int)
    from (values ${rooms}) as r(i, room), generate_series(0, ${o.perRoom - 1}::int) as g`)
  const organizer = JSON.stringify({ userId: o.appRowId, name: "load", displayName: "load" })
  await db.execute(sql`
    insert into bookings (id, project_id, asset_kind, asset_id, title, status, start_at, end_at, organizer,
      organizer_user_id, pin_code, created_by_app_id, created_at, updated_at)
    select id, ${o.projectId}::text, 'room', room, 'Load', 'active', start_at, end_at, ${organizer}::jsonb,
      ${o.appRowId}::text, '000000', ${o.appRowId}::text, ${iso(o.createdAt)}::timestamptz, ${iso(o.createdAt)}::timestamptz
    from seed_plan`)
  await db.execute(sql`
    insert into booking_slots (id, booking_id, project_id, asset_id, occurrence_index, start_at, end_at, status,
      created_at, updated_at)
    select substr(md5(id), 1, 24), id, ${o.projectId}::text, room, 0, start_at, end_at, 'active',
      ${iso(o.createdAt)}::timestamptz, ${iso(o.createdAt)}::timestamptz
    from seed_plan`)
  // The core timeline of an active booking (core/booking/timeline.ts), in SQL.
  const min = (m: number) => sql`make_interval(mins => ${m}::int)`
  const created = sql`${iso(o.createdAt)}::timestamptz`
  const kinds: Array<ReturnType<typeof sql>> = []
  const warnOn = c.postStartWarnMinutes >= 0 && c.postStartExpireMinutes >= 0 && c.postStartWarnMinutes < c.postStartExpireMinutes
  if (c.preStartMinutes >= 0)
    kinds.push(sql`select id, 'pre-start', 3, start_at - ${min(c.preStartMinutes)} from seed_plan where start_at - ${min(c.preStartMinutes)} >= ${created}`)
  if (warnOn)
    kinds.push(sql`select id, 'post-start-warn', 4, start_at + ${min(c.postStartWarnMinutes)} from seed_plan where start_at + ${min(c.postStartWarnMinutes)} <= end_at`)
  if (c.postStartExpireMinutes >= 0)
    kinds.push(sql`select id, 'post-start-expire', 1, start_at + ${min(c.postStartExpireMinutes)} from seed_plan where start_at + ${min(c.postStartExpireMinutes)} <= end_at`)
  if (c.preEndMinutes >= 0)
    kinds.push(sql`select id, 'pre-end', 5, end_at - ${min(c.preEndMinutes)} from seed_plan where end_at - ${min(c.preEndMinutes)} >= start_at`)
  kinds.push(sql`select id, 'end', 2, end_at from seed_plan`)
  const ticks = sql`(${sql.join(kinds, sql` union all `)}) as t(id, kind, rank, due)`
  if (o.asPlans)
    await db.execute(sql`
      insert into scheduled_ticks (booking_id, kind, rank, due_at, run_at, created_at, plan)
      select p.id, case when p.n > 1 then 'plan' else p.kinds[1] end, p.ranks[1], p.due, p.due,
        ${created}, case when p.n > 1 then p.plan end
      from (select t.id, count(*) as n, min(t.due) as due,
              array_agg(t.kind order by t.due, t.rank) as kinds, array_agg(t.rank order by t.due, t.rank) as ranks,
              jsonb_agg(jsonb_build_object('occurrence_index', 0, 'kind', t.kind, 'rank', t.rank,
                'due_ms', extract(epoch from t.due) * 1000) order by t.due, t.rank) as plan
            from ${ticks} group by t.id) as p`)
  else
    await db.execute(sql`
      insert into scheduled_ticks (booking_id, kind, rank, due_at, run_at, created_at)
      select t.id, t.kind, t.rank, t.due, t.due, ${created} from ${ticks}`)
  return o.roomIds.length * o.perRoom
}

/**
 * `seedBookings` in the load rooms (r0, r1, ...) of a scheduler world (setUpSchedulerWorld with
 * `rooms`), organized by its app, created at the clock's start.
 */
export const seedWorldBookings = (
  h: Harness,
  w: SchedulerWorld,
  o: Omit<SeedOptions, "projectId" | "appRowId" | "roomIds" | "createdAt">,
): Promise<number> =>
  seedBookings(h.booted.services.database.db, {
    projectId: w.ids.id,
    appRowId: w.app,
    roomIds: Object.entries<string>(w.ids.rooms)
      .filter(([key]) => /^r\d+$/.test(key))
      .map(([, id]) => id),
    createdAt: Date.parse(CLOCK_START),
    ...o,
  })
