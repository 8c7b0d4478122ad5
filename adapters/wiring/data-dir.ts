import { existsSync, mkdirSync, readdirSync, statSync } from "node:fs"
import { dirname, resolve } from "node:path"
import { StartupError } from "../config/startup-error.ts"
import { FILLING } from "../postgres/pglite-template.ts"

/**
 * `mkdir -p`, one level at a time from the deepest directory that exists: Node's recursive
 * mkdir never returned for a path under /proc (KEYSPACE_DATA_DIR=/proc/nope/data hung the start
 * at full CPU); one level at a time fails at once (ENOENT, EACCES, ENOTDIR).
 */
const makeDirectories = (dir: string): void => {
  const missing: string[] = []
  for (let at = resolve(dir); !existsSync(at); at = dirname(at)) {
    missing.push(at)
    if (dirname(at) === at) break
  }
  for (const d of missing.reverse())
    try {
      mkdirSync(d)
    } catch (e) {
      // Another process starting beside this one made it first.
      if ((e as NodeJS.ErrnoException).code !== "EEXIST" || !statSync(d).isDirectory()) throw e
    }
  if (!statSync(dir).isDirectory()) throw new Error("it is not a directory")
}

/** What may sit in a data directory besides the database: a volume's lost+found, dotfiles. */
const belongsAnywhere = (entry: string): boolean => entry === "lost+found" || entry.startsWith(".")

/** The embedded database's directory, created if missing; StartupError (exit 2) if it cannot be. */
export const makeDataDir = (dataDir: string): void => {
  try {
    makeDirectories(dataDir)
  } catch (e) {
    throw new StartupError(`KEYSPACE_DATA_DIR ${dataDir} cannot be created (${(e as Error).message}).`)
  }
}

/**
 * StartupError (exit 2) if the data directory holds files that are not an embedded database:
 * PGlite would write a new cluster in among another application's files. Checked under the
 * directory's lock (a start filling it meanwhile is not mistaken for foreign files).
 */
export const refuseForeignDataDir = (dataDir: string): void => {
  const entries = readdirSync(dataDir)
  // A fill from the template cut short: startFromTemplate empties it and fills it again.
  if (entries.includes(FILLING)) return
  const foreign = entries.filter((e) => !belongsAnywhere(e))
  if (!entries.includes("PG_VERSION") && foreign.length > 0)
    throw new StartupError(
      `KEYSPACE_DATA_DIR ${dataDir} holds files that are not an embedded database (${foreign.slice(0, 3).join(", ")}${foreign.length > 3 ? ", ..." : ""}). Name an empty directory, or the one the server ran on.`,
    )
}
