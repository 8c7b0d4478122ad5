/** PostgreSQL's statement log, read back by the profiling tools (create-profile, meeting-ops-profile). */
import { existsSync, readFileSync } from "node:fs"

/** The local cluster's log file (Debian's default), where `log_min_duration_statement = 0` writes. */
export const LOG = process.env.PG_LOG ?? "/var/log/postgresql/postgresql-15-main.log"

/**
 * Prints the statements PostgreSQL logged for database `dbName` since `from` (bytes into the
 * log), grouped by text with their mean duration, per one of `per` requests.
 */
export const printStatements = (title: string, from: number, per: number, dbName: string): void => {
  const statements = new Map<string, { n: number; ms: number }>()
  if (existsSync(LOG)) {
    const text = readFileSync(LOG).subarray(from).toString("utf8")
    const re = new RegExp(`@${dbName} LOG:\\s+duration: ([\\d.]+) ms\\s+(?:(parse|bind|execute) [^:]*: )?(?:statement: )?(.*)`, "g")
    for (const m of text.matchAll(re)) {
      if (m[3]!.includes("pg_stat_")) continue // the tools' own sampling
      const key = `${m[2] ?? "simple"} ${m[3]!.replace(/\s+/g, " ").slice(0, 110)}`
      const s = statements.get(key) ?? { n: 0, ms: 0 }
      s.n++
      s.ms += Number(m[1])
      statements.set(key, s)
    }
  }
  console.log(title)
  const sorted = [...statements.entries()].sort((a, b) => b[1].n - a[1].n)
  let executes = 0
  for (const [k, s] of sorted) {
    if (k.startsWith("execute") || k.startsWith("simple")) executes += s.n
    console.log(`  ${(s.n / per).toFixed(2).padStart(6)} x ${(s.ms / s.n).toFixed(3).padStart(7)} ms  ${k}`)
  }
  console.log(`  = ${(executes / per).toFixed(1)} statements executed per request`)
}
