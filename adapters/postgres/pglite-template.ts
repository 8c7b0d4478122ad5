import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs"
import { join, resolve } from "node:path"
import { journalEntries } from "./migrations.ts"

/*
 * A new embedded database starts as a copy of a data directory that the build initialised and
 * migrated (dist/pglite-template, scripts/build.mjs), not from PGlite's initdb in the server;
 * an in-memory one (KEYSPACE_DATA_DIR=memory) gets the same files written into its in-memory
 * file system (`copyTemplateInto`).
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

const journalTags = (migrationsFolder: string): ReadonlyArray<string> => journalEntries(migrationsFolder).map((e) => e.tag)

/** Where the build puts the template: beside the migrations folder it was built from. */
export const templateDirOf = (migrationsFolder: string): string => join(migrationsFolder, "..", "pglite-template")

/**
 * Whether `templateDir` is a template of exactly these migrations. A template of other
 * migrations (a build older or newer than the sources) is not used: the database is created by
 * initdb and migrated as before.
 */
export const templateFits = (templateDir: string, migrationsFolder: string): boolean => {
  if (![join(templateDir, "PG_VERSION"), stampOf(templateDir)].every((f) => existsSync(f))) return false
  try {
    const stamp = JSON.parse(readFileSync(stampOf(templateDir), "utf8")) as TemplateStamp
    const current = journalTags(migrationsFolder)
    return stamp.migrations.length === current.length && stamp.migrations.every((tag, i) => tag === current[i])
  } catch {
    return false
  }
}

/** Written first into a directory being filled and removed last: its presence means a fill was cut short. */
export const FILLING = ".keyspace-filling-from-template"

/**
 * Fills a new data directory (missing or empty) with a copy of the template, when one fits. The
 * directory itself is kept (a mount point, a symlink, the operator's owner and mode): its entries
 * are copied in with `PG_VERSION` last, since PGlite takes a directory with `PG_VERSION` for a
 * database, between a marker written first and removed last. A fill cut short (the marker
 * without `PG_VERSION`) is emptied and done again; one cut short after `PG_VERSION` is whole. A
 * directory with anything else in it is never touched. Returns whether the template was used.
 */
export const startFromTemplate = (dataDir: string, templateDir: string, migrationsFolder: string): boolean => {
  const dir = resolve(dataDir)
  const marker = join(dir, FILLING)
  const entries = existsSync(dir) ? readdirSync(dir) : []
  if (entries.includes(FILLING)) {
    if (entries.includes("PG_VERSION")) {
      rmSync(marker)
      return true
    }
    // Everything here was copied by the fill that was cut short (it began on an empty directory).
    for (const e of entries) if (e !== FILLING) rmSync(join(dir, e), { recursive: true, force: true })
  } else if (entries.length > 0) return false
  if (!templateFits(templateDir, migrationsFolder)) {
    rmSync(marker, { force: true })
    return false
  }
  mkdirSync(dir, { recursive: true })
  writeFileSync(marker, "")
  for (const e of readdirSync(templateDir)) if (e !== "PG_VERSION") cpSync(join(templateDir, e), join(dir, e), { recursive: true })
  cpSync(join(templateDir, "PG_VERSION"), join(dir, "PG_VERSION"))
  rmSync(marker)
  return true
}

/** The part of an Emscripten file system (PGlite's in-memory one) the template is written into. */
export interface EmscriptenFiles {
  readonly analyzePath: (path: string) => { exists: boolean }
  readonly mkdirTree: (path: string) => void
  readonly writeFile: (path: string, data: Uint8Array) => void
}

/**
 * Writes the template's files into an in-memory file system at `to`, one file at a time. PGlite's
 * own way (`loadDataDir`, a gzipped tar) held the archive, the whole unpacked tar and each file's
 * copy at once: glibc kept the ~80 MB freed afterwards, and an in-memory server idled at 327-361
 * MB against 255-261 MB this way (issue 13, session 12).
 */
export const copyTemplateInto = (fs: EmscriptenFiles, templateDir: string, to: string): void => {
  if (!fs.analyzePath(to).exists) fs.mkdirTree(to)
  for (const name of readdirSync(templateDir)) {
    const from = join(templateDir, name)
    // statSync follows a symbolic link, as the directory copy (cpSync) does.
    if (statSync(from).isDirectory()) copyTemplateInto(fs, from, `${to}/${name}`)
    else fs.writeFile(`${to}/${name}`, readFileSync(from))
  }
}

/**
 * Builds a template of these migrations at `templateDir`: `create` writes a new migrated database
 * into the directory it is given. Built beside and renamed into place, the stamp last, so a
 * template without its stamp is never used.
 */
export const buildTemplate = async (
  templateDir: string,
  migrationsFolder: string,
  create: (dataDir: string) => Promise<void>,
): Promise<void> => {
  const staging = `${templateDir}.building-${process.pid}`
  rmSync(staging, { recursive: true, force: true })
  rmSync(stampOf(templateDir), { force: true })
  // Earlier builds also wrote an archive of the template (for in-memory databases).
  rmSync(`${templateDir}.tar.gz`, { force: true })
  try {
    await create(staging)
    rmSync(templateDir, { recursive: true, force: true })
    renameSync(staging, templateDir)
    writeFileSync(stampOf(templateDir), JSON.stringify({ migrations: journalTags(migrationsFolder) } satisfies TemplateStamp) + "\n")
  } finally {
    rmSync(staging, { recursive: true, force: true })
  }
}
