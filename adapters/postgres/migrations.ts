import { readMigrationFiles } from "drizzle-orm/migrator"
import type { Sql } from "postgres"

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
  await client.begin(async (tx) => {
    await tx
      .unsafe(
        `create schema if not exists drizzle; ` +
          `create table if not exists drizzle.__drizzle_migrations (id serial primary key, hash text not null, created_at bigint)`,
      )
      .simple()
    const [last] = await tx.unsafe<Array<{ created_at: string }>>(
      `select created_at from drizzle.__drizzle_migrations order by created_at desc limit 1`,
    )
    const pending = migrations.filter((m) => last === undefined || Number(last.created_at) < m.folderMillis)
    if (pending.length === 0) return
    // A statement may end in a line comment: the separator starts a new line before its `;`.
    const journal = pending.map((m) => `insert into drizzle.__drizzle_migrations (hash, created_at) values ('${m.hash}', ${m.folderMillis})`)
    await tx.unsafe([...pending.flatMap((m) => m.sql), ...journal].join("\n;\n")).simple()
  })
}
