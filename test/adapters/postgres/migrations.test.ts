import { drizzle } from "drizzle-orm/postgres-js"
import { migrate as drizzleMigrate } from "drizzle-orm/postgres-js/migrator"
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import postgres, { type Sql } from "postgres"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { migratePostgres } from "../../../adapters/postgres/migrations.ts"
import { freshPostgresDatabase } from "../../support/databases.ts"

const migrationsFolder = new URL("../../../drizzle", import.meta.url).pathname

/** What a schema is made of, as text: columns, indexes, constraints, triggers, functions. */
const schemaOf = async (sql: Sql): Promise<string> => {
  const parts = await Promise.all([
    sql`select table_schema, table_name, column_name, data_type, is_nullable, column_default from information_schema.columns
        where table_schema in ('public', 'drizzle') order by 1, 2, 3`,
    sql`select schemaname, tablename, indexname, indexdef from pg_indexes where schemaname in ('public', 'drizzle') order by 1, 2, 3`,
    sql`select conrelid::regclass::text as rel, conname, pg_get_constraintdef(oid) as def from pg_constraint
        where connamespace = 'public'::regnamespace order by 1, 2`,
    sql`select tgrelid::regclass::text as rel, tgname, pg_get_triggerdef(oid) as def from pg_trigger where not tgisinternal order by 1, 2`,
    sql`select proname, pg_get_functiondef(oid) as def from pg_proc where pronamespace = 'public'::regnamespace and prokind = 'f' order by 1`,
  ])
  return JSON.stringify(parts)
}

const journalOf = (sql: Sql) => sql<Array<{ hash: string; created_at: string }>>`select hash, created_at from drizzle.__drizzle_migrations order by id`

/** A copy of drizzle/ holding only its first `n` migrations. */
const firstMigrations = (n: number): string => {
  const dir = mkdtempSync(join(tmpdir(), "ks-migrations-"))
  cpSync(migrationsFolder, dir, { recursive: true })
  const journalFile = join(dir, "meta/_journal.json")
  const journal = JSON.parse(readFileSync(journalFile, "utf8")) as { entries: unknown[] }
  writeFileSync(journalFile, JSON.stringify({ ...journal, entries: journal.entries.slice(0, n) }))
  return dir
}

describe("migrations run as drizzle's migrator runs them, in one query", () => {
  const dbs: Array<{ url: string; drop: () => Promise<void> }> = []
  const clients: Sql[] = []
  const open = async (): Promise<Sql> => {
    const db = await freshPostgresDatabase()
    dbs.push(db)
    const client = postgres(db.url, { max: 1, onnotice: () => {} })
    clients.push(client)
    return client
  }
  let byDrizzle: Sql
  beforeAll(async () => {
    byDrizzle = await open()
    await drizzleMigrate(drizzle(byDrizzle), { migrationsFolder })
  })
  afterAll(async () => {
    await Promise.all(clients.map((c) => c.end()))
    await Promise.all(dbs.map((d) => d.drop()))
  })

  it("a new database gets the schema and the journal drizzle's migrator gives it, in a handful of queries", async () => {
    const db = await freshPostgresDatabase()
    dbs.push(db)
    let queries = 0
    const counted = postgres(db.url, { max: 1, onnotice: () => {}, debug: () => void queries++ })
    await migratePostgres(counted, migrationsFolder)
    await counted.end()
    // The driver's type fetch, begin, the journal table, its last row, the migrations with their
    // rows, commit (drizzle's migrator sends each of the ~200 statements on its own).
    expect(queries).toBeLessThanOrEqual(6)
    const check = postgres(db.url, { max: 1, onnotice: () => {} })
    clients.push(check)
    const schema = await schemaOf(check)
    expect(schema).toContain("EXCLUDE USING gist (hashtextextended(asset_id, (0)::bigint) WITH =")
    expect(schema).toBe(await schemaOf(byDrizzle))
    expect(await journalOf(check)).toEqual(await journalOf(byDrizzle))
  })

  it("a database at an earlier migration gets only the pending ones, and a second run changes nothing", async () => {
    const ours = await open()
    const earlier = firstMigrations(6)
    try {
      await drizzleMigrate(drizzle(ours), { migrationsFolder: earlier })
    } finally {
      rmSync(earlier, { recursive: true, force: true })
    }
    expect(await journalOf(ours)).toHaveLength(6)
    await migratePostgres(ours, migrationsFolder)
    await migratePostgres(ours, migrationsFolder)
    expect(await schemaOf(ours)).toBe(await schemaOf(byDrizzle))
    expect(await journalOf(ours)).toEqual(await journalOf(byDrizzle))
  })

  it("a migration PostgreSQL refuses leaves the database as it was, and the error names the migration and statement", async () => {
    const brokenFolder = () => {
      const dir = firstMigrations(99)
      const file = join(dir, "0016_plan-ticks.sql")
      writeFileSync(file, readFileSync(file, "utf8") + "\n--> statement-breakpoint\nselect no_such_function();")
      return dir
    }
    // A new database: nothing at all, not even the journal.
    const empty = await open()
    const broken = brokenFolder()
    try {
      const failure = await migratePostgres(empty, broken).then(() => undefined, (e: unknown) => e as Error)
      expect(failure?.message).toMatch(/^migration 0016_plan-ticks, statement \d+: .*no_such_function/)
    } finally {
      rmSync(broken, { recursive: true, force: true })
    }
    expect(await empty`select to_regclass('public.bookings') as t, to_regclass('drizzle.__drizzle_migrations') as j`).toEqual([{ t: null, j: null }])

    // A database at an earlier migration: it stays there, its journal whole.
    const earlierDb = await open()
    const earlier = firstMigrations(6)
    const broken2 = brokenFolder()
    try {
      await drizzleMigrate(drizzle(earlierDb), { migrationsFolder: earlier })
      const before = await schemaOf(earlierDb)
      await expect(migratePostgres(earlierDb, broken2)).rejects.toThrow(/no_such_function/)
      expect(await journalOf(earlierDb)).toHaveLength(6)
      expect(await schemaOf(earlierDb)).toBe(before)
    } finally {
      rmSync(earlier, { recursive: true, force: true })
      rmSync(broken2, { recursive: true, force: true })
    }
  })
})
