import { sql } from "drizzle-orm"
import { describe, expect, it } from "vitest"
import { execute, openDatabase } from "../../../adapters/postgres/database.ts"

const redo = async (db: Parameters<typeof execute>[0]) =>
  (await execute<{ redo: string }>(db, sql`select redo_lsn::text as redo from pg_control_checkpoint()`))[0]!.redo

describe("the embedded database's WAL is bounded (single-user PostgreSQL never checkpoints on its own)", () => {
  it("a checkpoint follows once the set amount of WAL was written, and not before", async () => {
    const database = await openDatabase({ dataDir: "memory", template: false, walCheckpoint: { everyMs: 50, afterBytes: 1024 * 1024 } })
    try {
      const db = database.db
      await new Promise((r) => setTimeout(r, 150))
      const before = await redo(db)
      await new Promise((r) => setTimeout(r, 150))
      expect(await redo(db)).toBe(before) // nothing written: no checkpoint
      await execute(db, sql`create table wal_filler (v text)`)
      await execute(db, sql`insert into wal_filler select repeat('x', 500) from generate_series(1, 5000)`)
      let after = before
      for (let i = 0; i < 100 && after === before; i++) {
        await new Promise((r) => setTimeout(r, 50))
        after = await redo(db)
      }
      expect(after).not.toBe(before)
    } finally {
      await database.close()
    }
  }, 60_000)
})
