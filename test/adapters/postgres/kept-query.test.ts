import { and, asc, eq, gt, inArray, sql } from "drizzle-orm"
import { integer, jsonb, pgTable, text, timestamp } from "drizzle-orm/pg-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { drizzle } from "drizzle-orm/postgres-js"
import postgres from "postgres"
import { openDatabase, type Database, type Db } from "../../../adapters/postgres/database.ts"
import { preparing } from "../../../adapters/postgres/prepared-client.ts"
import { keptQuery, keptText, param, paramAs } from "../../../adapters/postgres/kept-query.ts"
import type { Queryable } from "../../../adapters/postgres/database.ts"
import { ENGINES, freshPostgresDatabase } from "../../support/databases.ts"

const probes = pgTable("kept_probe", {
  id: text("id").primaryKey(),
  ownerId: text("owner_id").notNull(),
  rank: integer("rank").notNull(),
  endsAt: timestamp("ends_at", { withTimezone: true }).notNull(),
  closedAt: timestamp("closed_at", { withTimezone: true }),
  tags: jsonb("tags").$type<string[]>(),
})

const byOwnersBuilder = (q: Queryable) =>
  q
    .select()
    .from(probes)
    .where(and(sql`${probes.ownerId} = any(${param("owners")}::text[])`, gt(probes.endsAt, sql`${param("after")}::timestamptz`)))
    .orderBy(asc(probes.rank))
const byOwners = keptQuery(byOwnersBuilder)
const close = keptQuery((q) =>
  q
    .update(probes)
    .set({ closedAt: paramAs<Date | null>("closedAt"), tags: paramAs<string[] | null>("tags") })
    .where(eq(probes.id, param("id")))
    .returning(),
)
const add = keptQuery((q) =>
  q.insert(probes).values({ id: param("id"), ownerId: param("ownerId"), rank: param("rank"), endsAt: param("endsAt"), closedAt: param("closedAt"), tags: param("tags") }),
)
const byIdForUpdate = keptQuery((q) => q.select().from(probes).where(eq(probes.id, param("id"))).for("update"))

describe.each(ENGINES)("a kept select on %s: written once, run as Drizzle runs its builder", (engine) => {
  let database: Database
  let drop: (() => Promise<void>) | undefined

  beforeAll(async () => {
    const pg = engine === "postgres" ? await freshPostgresDatabase() : undefined
    drop = pg?.drop
    database = await openDatabase(pg ? { databaseUrl: pg.url } : { dataDir: "memory" })
    await database.db.execute(sql`create table kept_probe (id text primary key, owner_id text not null, rank integer not null, ends_at timestamptz not null, closed_at timestamptz, tags jsonb)`)
    await database.db.insert(probes).values([
      { id: "a", ownerId: "o1", rank: 2, endsAt: new Date("2030-01-01T10:00:00Z") },
      { id: "b", ownerId: "o1", rank: 1, endsAt: new Date("2030-01-01T12:00:00Z") },
      { id: "c", ownerId: "o2", rank: 3, endsAt: new Date("2030-01-01T12:00:00Z") },
      { id: "d", ownerId: "o3", rank: 4, endsAt: new Date("2030-01-01T12:00:00Z") },
    ])
  })
  afterAll(async () => {
    await database.close()
    await drop?.()
  })

  it("answers the rows the builder answers, mapped the same (Dates, camelCase keys), for each set of values", async () => {
    const db = database.db
    for (const [owners, after] of [
      [["o1"], "2030-01-01T11:00:00Z"],
      [["o1", "o2"], "2029-12-31T00:00:00Z"],
      [["nobody"], "2029-12-31T00:00:00Z"],
    ] as const) {
      const kept = await byOwners(db, { owners: [...owners], after })
      const built = await db
        .select()
        .from(probes)
        .where(and(inArray(probes.ownerId, [...owners]), gt(probes.endsAt, new Date(after))))
        .orderBy(asc(probes.rank))
      expect(kept).toEqual(built)
    }
    const [b] = await byOwners(db, { owners: ["o1"], after: "2030-01-01T11:00:00Z" })
    expect(b).toEqual({ id: "b", ownerId: "o1", rank: 1, endsAt: new Date("2030-01-01T12:00:00Z"), closedAt: null, tags: null })
  })

  it("a slot in .set() or .values() is encoded by its column as a value is: a Date, null, a jsonb value", async () => {
    const db = database.db
    const [closed] = await close(db, { id: "c", closedAt: new Date("2030-02-01T00:00:00Z"), tags: ["x", "y"] })
    expect(closed).toMatchObject({ id: "c", closedAt: new Date("2030-02-01T00:00:00Z"), tags: ["x", "y"] })
    const [reopened] = await close(db, { id: "c", closedAt: null, tags: null })
    expect(reopened).toMatchObject({ id: "c", closedAt: null, tags: null })
    await add(db, { id: "f", ownerId: "o5", rank: 5, endsAt: new Date("2030-03-01T00:00:00Z"), closedAt: null, tags: ["z"] })
    const [f] = await db.select().from(probes).where(eq(probes.id, "f"))
    expect(f).toEqual({ id: "f", ownerId: "o5", rank: 5, endsAt: new Date("2030-03-01T00:00:00Z"), closedAt: null, tags: ["z"] })
  })

  it("sends the builder's own text", () => {
    expect(keptText(byOwnersBuilder, database.db)).toBe(byOwnersBuilder(database.db).toSQL().sql)
  })

  it("inside a transaction it runs on the transaction: it sees the transaction's own rows and locks for it", async () => {
    await database.db
      .transaction(async (tx) => {
        await tx.insert(probes).values({ id: "e", ownerId: "o9", rank: 9, endsAt: new Date("2030-01-01T12:00:00Z") })
        expect((await byOwners(tx, { owners: ["o9"], after: "2029-01-01T00:00:00Z" })).map((r) => r.id)).toEqual(["e"])
        expect((await byIdForUpdate(tx, { id: "e" })).map((r) => r.id)).toEqual(["e"])
        if (engine === "postgres") {
          const [row] = (await tx.execute(sql`select count(*)::int as n from pg_locks where locktype = 'transactionid' and pid = pg_backend_pid()`)) as unknown as Array<{ n: number }>
          expect(row!.n).toBeGreaterThan(0)
        }
        throw new Error("roll back")
      })
      .catch((e: Error) => expect(e.message).toBe("roll back"))
    expect(await byOwners(database.db, { owners: ["o9"], after: "2029-01-01T00:00:00Z" })).toEqual([])
  })
})

describe("a kept query on PostgreSQL is a prepared statement, however many parameters it has", () => {
  it("a kept insert of 20 parameters is kept once by the connection (one round trip, no parse, from the second use)", async () => {
    const pg = await freshPostgresDatabase()
    // One connection: what it keeps is what pg_prepared_statements shows.
    const client = postgres(pg.url, { max: 1, onnotice: () => {} })
    try {
      const db = drizzle(preparing(client)) as unknown as Db
      await client.unsafe(`create table kept_wide (${Array.from({ length: 20 }, (_, i) => `c${i} text`).join(", ")})`)
      const wide = pgTable("kept_wide", Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`c${i}`, text(`c${i}`)])))
      const insertWide = keptQuery((q) => q.insert(wide).values(Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`c${i}`, param(`c${i}`)]))))
      for (let n = 0; n < 3; n++) await insertWide(db, Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`c${i}`, `${n}-${i}`])))
      const [kept] = await client.unsafe<Array<{ n: number }>>(`select count(*)::int as n from pg_prepared_statements where statement like 'insert into "kept_wide"%'`)
      expect(kept!.n).toBe(1)
      expect((await client.unsafe(`select c19 from kept_wide order by c0`)).map((r) => r.c19)).toEqual(["0-19", "1-19", "2-19"])
    } finally {
      await client.end()
      await pg.drop()
    }
  })
})
