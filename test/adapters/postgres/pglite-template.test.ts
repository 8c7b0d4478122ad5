import { sql } from "drizzle-orm"
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { buildPgliteTemplate, execute, openDatabase } from "../../../adapters/postgres/database.ts"
import { startFromTemplate, templateFits } from "../../../adapters/postgres/pglite-template.ts"

const migrationsFolder = new URL("../../../drizzle", import.meta.url).pathname
const journal = JSON.parse(readFileSync(join(migrationsFolder, "meta/_journal.json"), "utf8")) as { entries: Array<{ tag: string }> }

let root: string
let template: string
const MARKER = "started-from-this-template"

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), "keyspace-template-"))
  template = join(root, "template")
  await buildPgliteTemplate(template)
  // PostgreSQL ignores a file it does not know; a database started from the template shows it.
  writeFileSync(join(template, MARKER), "")
}, 60_000)
afterAll(() => rmSync(root, { recursive: true, force: true }))

describe("a new embedded database starts from the build's template (no initdb in the server)", () => {
  it("the template is a whole migrated data directory, stamped with its migrations, holding one database and little WAL", () => {
    expect(existsSync(join(template, "PG_VERSION"))).toBe(true)
    // `postgres` only (template0 and template1 dropped), and at most a few 1 MB WAL segments.
    expect(readdirSync(join(template, "base"))).toHaveLength(1)
    expect(readdirSync(join(template, "pg_wal")).filter((f) => /^[0-9A-F]{24}$/.test(f)).length).toBeLessThanOrEqual(3)
    const stamp = JSON.parse(readFileSync(`${template}.json`, "utf8")) as { migrations: string[] }
    expect(stamp.migrations).toEqual(journal.entries.map((e) => e.tag))
    expect(templateFits(template, migrationsFolder)).toBe(true)
    expect(readdirSync(root).some((n) => n.includes(".building-"))).toBe(false)
  })

  it.each([
    ["a new data directory", () => join(root, "new", "data")],
    ["a new in-memory database (the template's files written into it)", () => "memory"],
  ])("%s opens from the template with every migration applied and the slot constraint in force", async (_name, dir) => {
    const dataDir = dir()
    const db = await openDatabase({ dataDir, template })
    try {
      const [applied] = await execute<{ n: number }>(db.db, sql`select count(*)::int as n from drizzle.__drizzle_migrations`)
      expect(applied!.n).toBe(journal.entries.length)
      const [exclusion] = await execute<{ n: number }>(
        db.db,
        sql`select count(*)::int as n from pg_constraint where conname = 'booking_slots_no_overlap'`,
      )
      expect(exclusion!.n).toBe(1)
      const [marker] = await execute<{ n: number }>(db.db, sql`select count(*)::int as n from pg_ls_dir('.') as f where f = ${MARKER}`)
      expect(marker!.n).toBe(1)
    } finally {
      await db.close()
    }
    if (dataDir !== "memory") expect(readdirSync(join(root, "new"))).toEqual(["data"])
  }, 30_000)

  it("an empty data directory (made by the start's lock) is filled from the template", () => {
    const dataDir = join(root, "empty")
    mkdirSync(dataDir)
    expect(startFromTemplate(dataDir, template, migrationsFolder)).toBe(true)
    expect(existsSync(join(dataDir, "PG_VERSION"))).toBe(true)
  })

  it("a data directory given with a trailing slash is filled in place", () => {
    const dataDir = join(root, "slash")
    expect(startFromTemplate(`${dataDir}/`, template, migrationsFolder)).toBe(true)
    expect(existsSync(join(dataDir, "PG_VERSION"))).toBe(true)
    expect(readdirSync(root).filter((n) => n.startsWith("slash"))).toEqual(["slash"])
  })

  it("a fill cut short before PG_VERSION is emptied and done again; one cut short after it is whole", () => {
    const cut = join(root, "cut")
    mkdirSync(cut)
    writeFileSync(join(cut, ".keyspace-filling-from-template"), "")
    cpSync(join(template, "global"), join(cut, "global"), { recursive: true })
    writeFileSync(join(cut, "half-copied"), "x")
    expect(startFromTemplate(cut, template, migrationsFolder)).toBe(true)
    expect(readdirSync(cut).sort()).toEqual(readdirSync(template).sort())

    writeFileSync(join(cut, ".keyspace-filling-from-template"), "")
    expect(startFromTemplate(cut, template, migrationsFolder)).toBe(true)
    expect(readdirSync(cut).sort()).toEqual(readdirSync(template).sort())
  })

  it("a data directory with anything in it is never touched", () => {
    const dataDir = join(root, "taken")
    mkdirSync(dataDir)
    writeFileSync(join(dataDir, "notes.txt"), "mine")
    expect(startFromTemplate(dataDir, template, migrationsFolder)).toBe(false)
    expect(readdirSync(dataDir)).toEqual(["notes.txt"])
  })

  it("a data directory that is a symlink to a directory (a volume) opens through the link and keeps its rows", async () => {
    const volume = join(root, "volume")
    mkdirSync(volume)
    const link = join(root, "linked-data")
    symlinkSync(volume, link)
    const first = await openDatabase({ dataDir: link, template })
    try {
      await execute(first.db, sql`create table kept_through_link (n int)`)
      await execute(first.db, sql`insert into kept_through_link values (7)`)
    } finally {
      await first.close()
    }
    // The files are in the volume, the link is still a link.
    expect(existsSync(join(volume, "PG_VERSION"))).toBe(true)
    const again = await openDatabase({ dataDir: link, template })
    try {
      const [row] = await execute<{ n: number }>(again.db, sql`select n from kept_through_link`)
      expect(row!.n).toBe(7)
    } finally {
      await again.close()
    }
  }, 30_000)

  it("a template of other migrations, or one without its stamp, is not used (initdb runs as before)", () => {
    const other = join(root, "other")
    cpSync(template, other, { recursive: true })
    writeFileSync(`${other}.json`, JSON.stringify({ migrations: journal.entries.slice(0, -1).map((e) => e.tag) }))
    expect(templateFits(other, migrationsFolder)).toBe(false)
    rmSync(`${other}.json`)
    expect(templateFits(other, migrationsFolder)).toBe(false)
    const dataDir = join(root, "untouched")
    expect(startFromTemplate(dataDir, other, migrationsFolder)).toBe(false)
    expect(existsSync(dataDir)).toBe(false)
  })
})
