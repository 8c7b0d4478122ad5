import { existsSync } from "node:fs"
import { join } from "node:path"
import { parseConfig } from "../../adapters/config/config.ts"
import { moveToPostgres } from "../../adapters/postgres/move-to-postgres.ts"
import { lockDataDir } from "../../adapters/wiring/data-dir-lock.ts"
import { StartupError, startOrExit } from "../../adapters/config/startup-error.ts"

/**
 * `npm run db:move-to-postgres`: copies the embedded database of KEYSPACE_DATA_DIR (default
 * .keyspace/data) into the empty PostgreSQL database of DATABASE_URL. The server must be
 * stopped: the data directory's lock is taken for the whole move.
 */
const env = process.env
const exit = (code: number): never => process.exit(code)
await startOrExit(
  env,
  async () => {
    const config = parseConfig(env)
    if (!config.databaseUrl) throw new StartupError("DATABASE_URL: set it to the (empty) PostgreSQL database to move into.")
    if (config.dataDir === "memory") throw new StartupError("KEYSPACE_DATA_DIR: memory has nothing to move; name the data directory.")
    // A mistyped directory would otherwise become a new empty database, "moved" and kept as a
    // backup, leaving the target non-empty for the corrected run.
    if (!existsSync(join(config.dataDir, "PG_VERSION")))
      throw new StartupError(`KEYSPACE_DATA_DIR: ${config.dataDir} holds no embedded database; name the directory the server ran on.`)
    const lock = lockDataDir(config.dataDir)
    try {
      console.log(`Moving ${config.dataDir} into PostgreSQL ...`)
      const report = await moveToPostgres(config.dataDir, config.databaseUrl, (line) => console.log(`  ${line}`))
      const rows = report.tables.reduce((n, t) => n + t.rows, 0)
      console.log(`Moved ${rows} rows in ${report.tables.length} tables. Start the server with this DATABASE_URL; keep ${config.dataDir} as a backup.`)
    } finally {
      lock.release()
    }
  },
  exit,
)
exit(0)
