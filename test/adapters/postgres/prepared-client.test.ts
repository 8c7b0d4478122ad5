import { sql } from "drizzle-orm"
import { drizzle } from "drizzle-orm/postgres-js"
import postgres from "postgres"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { preparing } from "../../../adapters/postgres/prepared-client.ts"
import { freshPostgresDatabase } from "../../support/databases.ts"

/** Statements the connection keeps prepared whose text contains `marker`. */
const kept = async (client: postgres.Sql, marker: string): Promise<number> =>
  Number((await client.unsafe(`select count(*)::int as n from pg_prepared_statements where statement like $1`, [`%${marker}%`]))[0]!.n)

describe("Drizzle's queries are prepared statements on PostgreSQL (one round trip, no parse, from the second use)", () => {
  let client: postgres.Sql
  let drop: () => Promise<void>
  beforeAll(async () => {
    const pg = await freshPostgresDatabase()
    drop = pg.drop
    // One connection: what it keeps is what pg_prepared_statements shows.
    client = postgres(pg.url, { max: 1, onnotice: () => {} })
  })
  afterAll(async () => {
    await client.end()
    await drop()
  })

  it("a query with parameters is kept once per connection and answers as before", async () => {
    const db = drizzle(preparing(client))
    for (let i = 0; i < 3; i++) {
      const rows = await db.execute(sql`select ${i}::int + 1 as n, 'marker-one' as m`)
      expect(rows[0]).toEqual({ n: i + 1, m: "marker-one" })
    }
    expect(await kept(client, "marker-one")).toBe(1)
  })

  it("a transaction's queries are prepared too", async () => {
    const db = drizzle(preparing(client))
    await db.transaction(async (tx) => {
      await tx.execute(sql`select ${1}::int as n, 'marker-tx' as m`)
      await tx.execute(sql`select ${2}::int as n, 'marker-tx' as m`)
    })
    expect(await kept(client, "marker-tx")).toBe(1)
  })

  it("a query without parameters is kept too (postgres-js would send it over the simple protocol, planned anew each time)", async () => {
    const db = drizzle(preparing(client))
    for (let i = 0; i < 3; i++) expect((await db.execute(sql`select 1 as n, 'marker-none' as m`))[0]).toEqual({ n: 1, m: "marker-none" })
    expect(await kept(client, "marker-none")).toBe(1)
  })

  it("text with several statements keeps the simple protocol (it cannot be prepared)", async () => {
    const db = drizzle(preparing(client))
    await db.execute(sql.raw(`select 'marker-multi' as m; select 2 as n`))
    expect(await kept(client, "marker-multi")).toBe(0)
  })

  it("a query with more than 16 parameters (an IN list of a batch) is not kept", async () => {
    const db = drizzle(preparing(client))
    const ids = Array.from({ length: 17 }, (_, i) => i)
    const rows = await db.execute(sql`select count(*)::int as n, 'marker-many' as m from generate_series(0, 20) g where g in (${sql.join(ids.map((i) => sql`${i}`), sql`, `)})`)
    expect(rows[0]).toEqual({ n: 17, m: "marker-many" })
    expect(await kept(client, "marker-many")).toBe(0)
  })

  it("without the wrapper Drizzle keeps nothing (what this wrapper is for)", async () => {
    const db = drizzle(client)
    await db.execute(sql`select ${1}::int as n, 'marker-plain' as m`)
    expect(await kept(client, "marker-plain")).toBe(0)
  })
})
