import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs"
import { dirname, join } from "node:path"

/*
 * A new embedded database starts as a copy of a data directory that the build initialised and
 * migrated (dist/pglite-template, scripts/build.mjs), not from PGlite's initdb in the server;
 * an in-memory one (KEYSPACE_DATA_DIR=memory) loads the same files from the archive beside it.
 * PGlite's initdb runs a second PostgreSQL instance, an initdb WebAssembly instance and a copy
 * of the first one's heap inside the process: hundreds of MB that stayed in the server's RSS
 * after the first `npm start` (411-781 MB idle, against about 250 MB after a restart; issue 13,
 * session 11) and about 2.5 s of its start-up. A copied directory is opened exactly as a
 * restart opens its own ("found DB, resuming").
 */

/** The stamp beside a template: which migrations it holds (the journal's tags, in order). */
interface TemplateStamp {
  readonly migrations: ReadonlyArray<string>
}

const stampOf = (templateDir: string): string => `${templateDir}.json`
const archiveOf = (templateDir: string): string => `${templateDir}.tar.gz`

/** The migrations of a Drizzle migrations folder, as its journal lists them. */
const journalTags = (migrationsFolder: string): ReadonlyArray<string> => {
  const journal = JSON.parse(readFileSync(join(migrationsFolder, "meta/_journal.json"), "utf8")) as { entries: Array<{ tag: string }> }
  return journal.entries.map((e) => e.tag)
}

/** Where the build puts the template: beside the migrations folder it was built from. */
export const templateDirOf = (migrationsFolder: string): string => join(migrationsFolder, "..", "pglite-template")

/**
 * Whether `templateDir` is a template of exactly these migrations. A template of other
 * migrations (a build older or newer than the sources) is not used: the database is created by
 * initdb and migrated as before.
 */
export const templateFits = (templateDir: string, migrationsFolder: string): boolean => {
  if (![join(templateDir, "PG_VERSION"), archiveOf(templateDir), stampOf(templateDir)].every((f) => existsSync(f))) return false
  try {
    const stamp = JSON.parse(readFileSync(stampOf(templateDir), "utf8")) as TemplateStamp
    const current = journalTags(migrationsFolder)
    return stamp.migrations.length === current.length && stamp.migrations.every((tag, i) => tag === current[i])
  } catch {
    return false
  }
}

/**
 * Fills a new data directory (missing or empty) with a copy of the template, when one fits.
 * The copy is made beside it and renamed into place, so a start cut short leaves either no
 * database or a whole one, never half a directory that would look like a database. A directory
 * with anything in it is never touched. Returns whether the template was used.
 */
export const startFromTemplate = (dataDir: string, templateDir: string, migrationsFolder: string): boolean => {
  if (existsSync(dataDir) && readdirSync(dataDir).length > 0) return false
  if (!templateFits(templateDir, migrationsFolder)) return false
  const staging = `${dataDir}.from-template-${process.pid}`
  rmSync(staging, { recursive: true, force: true })
  mkdirSync(dirname(staging), { recursive: true })
  cpSync(templateDir, staging, { recursive: true })
  rmSync(dataDir, { recursive: true, force: true })
  renameSync(staging, dataDir)
  return true
}

/** The template's files as the archive PGlite loads into a new in-memory database, when one fits. */
export const templateArchive = (templateDir: string, migrationsFolder: string): Blob | undefined =>
  templateFits(templateDir, migrationsFolder) ? new Blob([readFileSync(archiveOf(templateDir))]) : undefined

/**
 * Builds a template of these migrations at `templateDir`: `create` writes a new migrated database
 * into the directory it is given and answers the same files as a gzipped tar archive. Built
 * beside and renamed into place, the stamp last, so a template without its stamp is never used.
 */
export const buildTemplate = async (
  templateDir: string,
  migrationsFolder: string,
  create: (dataDir: string) => Promise<Uint8Array>,
): Promise<void> => {
  const staging = `${templateDir}.building-${process.pid}`
  rmSync(staging, { recursive: true, force: true })
  rmSync(stampOf(templateDir), { force: true })
  const archive = await create(staging)
  rmSync(templateDir, { recursive: true, force: true })
  renameSync(staging, templateDir)
  writeFileSync(archiveOf(templateDir), archive)
  writeFileSync(stampOf(templateDir), JSON.stringify({ migrations: journalTags(migrationsFolder) } satisfies TemplateStamp) + "\n")
}
