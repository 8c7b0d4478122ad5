import { PGlite } from "@electric-sql/pglite"
import { btree_gist } from "@electric-sql/pglite/contrib/btree_gist"
import { sql } from "drizzle-orm"
import type { PgDatabase, PgQueryResultHKT } from "drizzle-orm/pg-core"
import { drizzle as drizzlePglite } from "drizzle-orm/pglite"
import { migrate as migratePglite } from "drizzle-orm/pglite/migrator"
import { drizzle as drizzlePostgres } from "drizzle-orm/postgres-js"
import { migrate as migratePostgres } from "drizzle-orm/postgres-js/migrator"
import postgres from "postgres"
import * as schema from "./schema.ts"

export type Schema = typeof schema
/** The one database type repositories see; PGlite and postgres-js both satisfy it. */
export type Db = PgDatabase<PgQueryResultHKT, Schema>
/** A transaction handle has the same query surface as the database. */
export type Tx = Parameters<Parameters<Db["transaction"]>[0]>[0]
export type Queryable = Db | Tx

export interface Database {
  readonly db: Db
  readonly engine: "pglite" | "postgres"
  /** Listens for NOTIFY on a channel: wakes workers when another transaction commits work. */
  readonly listen: (channel: string, onNotify: (payload: string) => void) => Promise<() => Promise<void>>
  readonly close: () => Promise<void>
}

const migrationsFolder = new URL("../../drizzle", import.meta.url).pathname

export interface OpenOptions {
  readonly databaseUrl?: string | undefined
  /** PGlite data directory, or "memory". */
  readonly dataDir?: string
  readonly maxConnections?: number
}

export const openDatabase = async (options: OpenOptions): Promise<Database> => {
  if (options.databaseUrl) {
    const client = postgres(options.databaseUrl, {
      max: options.maxConnections ?? 10,
      onnotice: () => {},
      connect_timeout: 10,
      // Long-lived process: keep prepared statements per connection.
      prepare: true,
    })
    const db = drizzlePostgres(client, { schema }) as unknown as Db
    // Several servers may start at once on one database: migrate under an advisory lock.
    const migrator = postgres(options.databaseUrl, { max: 1, onnotice: () => {}, connect_timeout: 10 })
    try {
      await migrator`select pg_advisory_lock(7419023)`
      await migratePostgres(drizzlePostgres(migrator), { migrationsFolder })
    } finally {
      await migrator.end({ timeout: 5 })
    }
    return {
      db,
      engine: "postgres",
      listen: async (channel, onNotify) => {
        const sub = await client.listen(channel, (payload) => onNotify(payload))
        return () => sub.unlisten()
      },
      close: () => client.end({ timeout: 5 }),
    }
  }
  const dataDir = options.dataDir ?? "memory"
  const pg = await PGlite.create({
    ...(dataDir === "memory" ? {} : { dataDir }),
    extensions: { btree_gist },
  })
  const db = drizzlePglite(pg, { schema }) as unknown as Db
  await migratePglite(drizzlePglite(pg), { migrationsFolder })
  return {
    db,
    engine: "pglite",
    listen: async (channel, onNotify) => {
      const unlisten = await pg.listen(channel, (payload) => onNotify(payload))
      return () => unlisten()
    },
    close: () => pg.close(),
  }
}

/** Rows of a raw `db.execute` result: postgres-js returns an array, PGlite `{ rows }`. */
export const rowsOf = <T>(result: unknown): T[] =>
  (Array.isArray(result) ? result : (result as { rows: T[] }).rows) as T[]

export const execute = async <T>(q: Queryable, query: ReturnType<typeof sql>): Promise<T[]> =>
  rowsOf<T>(await q.execute(query))

/** The PostgreSQL error behind a driver or Drizzle error, if any. */
export const pgErrorOf = (e: unknown): { code: string; constraint: string | undefined } | undefined => {
  let cur: unknown = e
  for (let i = 0; i < 4 && cur; i++) {
    const c = cur as { code?: unknown; constraint?: string; constraint_name?: string; cause?: unknown }
    if (typeof c.code === "string" && /^[0-9A-Z]{5}$/.test(c.code))
      return { code: c.code, constraint: c.constraint ?? c.constraint_name }
    cur = c.cause
  }
  return undefined
}

export const PG_UNIQUE_VIOLATION = "23505"
export const PG_EXCLUSION_VIOLATION = "23P01"
export const PG_DEADLOCK_DETECTED = "40P01"
export const PG_SERIALIZATION_FAILURE = "40001"
