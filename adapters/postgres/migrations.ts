import { readMigrationFiles, type MigrationMeta } from "drizzle-orm/migrator"
import { readFileSync } from "node:fs"
import { join } from "node:path"
import postgres, { type Sql, type TransactionSql } from "postgres"

/**
 * Applies the pending migrations of `migrationsFolder` (drizzle/) to a PostgreSQL server the way
 * drizzle's migrator does: the same journal (`drizzle.__drizzle_migrations`, one row per
 * migration with drizzle's hash and timestamp), the same rule for what is pending (newer than the
 * last row), everything in one transaction. What differs is the wire: drizzle sends each of the
 * ~200 statements as its own query, and on a first start those round trips were half of the
 * migration's ~250 ms; here the pending statements and their journal rows travel as one
 * simple-protocol query (~120 ms).
 *
 * The caller holds the migration lock (several servers may start on one database).
 */
export const migratePostgres = async (client: Sql, migrationsFolder: string): Promise<void> => {
  const migrations = readMigrationFiles({ migrationsFolder })
  const pendingOf = async (tx: TransactionSql): Promise<MigrationMeta[]> => {
    await tx
      .unsafe(
        `create schema if not exists drizzle; ` +
          `create table if not exists drizzle.__drizzle_migrations (id serial primary key, hash text not null, created_at bigint)`,
      )
      .simple()
    const [last] = await tx.unsafe<Array<{ created_at: string }>>(
      `select created_at from drizzle.__drizzle_migrations order by created_at desc limit 1`,
    )
    return migrations.filter((m) => last === undefined || Number(last.created_at) < m.folderMillis)
  }
  try {
    await client.begin(async (tx) => {
      const pending = await pendingOf(tx)
      if (pending.length === 0) return
      // A statement may end in a line comment: the separator starts a new line before its `;`.
      await tx.unsafe([...pending.flatMap((m) => m.sql), ...pending.map(journalRow)].join("\n;\n")).simple()
    })
  } catch (e) {
    // Nothing was applied (one transaction). One text of ~200 statements names neither the
    // migration nor the statement that failed: replayed one by one, and rolled back again, they do.
    // A lost connection or a refused one keeps its own error (the start names it as such).
    if (!(e instanceof postgres.PostgresError)) throw e
    const located = await locateFailure(client, pendingOf, journalTags(migrationsFolder), e)
    throw new MigrationFailed(located instanceof Error ? located.message : String(located), {
      cause: located,
      foreignTables: FOREIGN_OBJECT_CODES.has(e.code),
    })
  }
}

const journalRow = (m: MigrationMeta): string =>
  `insert into drizzle.__drizzle_migrations (hash, created_at) values ('${m.hash}', ${m.folderMillis})`

/**
 * Brings the database at `databaseUrl` to the migrations of `migrationsFolder`, on a connection of
 * its own, under the migration lock: several servers may start at once on one database; the
 * later ones wait here and find nothing pending.
 */
/** How long the first answer may take: a server that is not PostgreSQL never gives one. */
export const HANDSHAKE_DEADLINE_MS = 10_000

/** The first query did not answer in time: whatever listens there does not speak PostgreSQL. */
export class HandshakeTimeout extends Error {
  readonly code = "HANDSHAKE_TIMEOUT"
  constructor() {
    super(`no PostgreSQL answer within ${HANDSHAKE_DEADLINE_MS / 1000} s`)
  }
}

export const migrateDatabase = async (databaseUrl: string, migrationsFolder: string): Promise<void> => {
  const migrator = postgres(databaseUrl, { max: 1, onnotice: () => {}, connect_timeout: 10 })
  try {
    // Bounded, unlike the lock after it (which waits for another process's migrations): an
    // HTTP server on that port kept the start spinning silently for 30-90 s.
    let timer: ReturnType<typeof setTimeout> | undefined
    try {
      await Promise.race([
        migrator.unsafe("select 1"),
        new Promise((_, reject) => (timer = setTimeout(() => reject(new HandshakeTimeout()), HANDSHAKE_DEADLINE_MS))),
      ])
    } finally {
      clearTimeout(timer)
    }
    await migrator.unsafe("select pg_advisory_lock(7419023)")
    await migratePostgres(migrator, migrationsFolder)
  } finally {
    await migrator.end({ timeout: 5 })
  }
}

/** The migrations of a Drizzle migrations folder as its journal lists them, in order. */
export const journalEntries = (migrationsFolder: string): ReadonlyArray<{ readonly tag: string; readonly when: number }> =>
  (JSON.parse(readFileSync(join(migrationsFolder, "meta/_journal.json"), "utf8")) as { entries: Array<{ tag: string; when: number }> }).entries

/** The journal's tag of each migration, by its timestamp (`folderMillis`). */
const journalTags = (migrationsFolder: string): Map<number, string> =>
  new Map(journalEntries(migrationsFolder).map((e) => [e.when, e.tag]))

/** SQLSTATEs of a migration meeting an object it was to create: duplicate table, object, schema. */
const FOREIGN_OBJECT_CODES = new Set(["42P07", "42710", "42P06"])

/** Migrations that could not be applied (nothing was: one transaction); the start stops, exit 2. */
export class MigrationFailed extends Error {
  readonly code = "MIGRATION_FAILED"
  /** The database already holds an object a migration creates: not a database Keyspace made. */
  readonly foreignTables: boolean
  constructor(message: string, options: { cause: unknown; foreignTables: boolean }) {
    super(message, { cause: options.cause })
    this.foreignTables = options.foreignTables
  }
}

/** A failed migration's error, named by migration and statement when a replay finds it. */
const locateFailure = async (
  client: Sql,
  pendingOf: (tx: TransactionSql) => Promise<MigrationMeta[]>,
  tags: Map<number, string>,
  original: unknown,
): Promise<unknown> => {
  const ROLLBACK = Symbol("rollback")
  let located: unknown = original
  await client
    .begin(async (tx) => {
      for (const m of await pendingOf(tx))
        for (const [i, statement] of m.sql.entries()) {
          try {
            await tx.unsafe(statement).simple()
          } catch (e) {
            located = new Error(`migration ${tags.get(m.folderMillis) ?? m.folderMillis}, statement ${i + 1}: ${(e as Error).message}`, { cause: e })
            throw ROLLBACK
          }
        }
      throw ROLLBACK
    })
    .catch(() => {})
  return located
}
