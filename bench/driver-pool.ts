/**
 * `npx tsx bench/driver-pool.ts [rounds] [queries]`: postgres-js's cost per query, round after
 * round, once a burst has opened every pooled connection and the load stays below the pool's
 * size (issue 13, session 19). As released, the pool's idle queue kept a hole per query and
 * every query scanned them all, so the cost rose with each round; with the install guard
 * (scripts/patch-dependencies.mjs) it stays flat. Runs on a fresh database.
 */
import postgres from "postgres"
import { freshPostgresDatabase } from "../test/support/databases.ts"

const rounds = Number(process.argv[2] ?? 8)
const queries = Number(process.argv[3] ?? 50_000)
const pg = await freshPostgresDatabase()
const sql = postgres(pg.url, { max: 10, onnotice: () => {} })
try {
  // The burst: all ten connections busy at once.
  await Promise.all(Array.from({ length: 10 }, () => sql`select pg_sleep(0.05)`))
  for (let round = 0; round < rounds; round++) {
    const started = performance.now()
    await Promise.all([0, 1].map(async () => {
      for (let i = 0; i < queries / 2; i++) await sql`select 1`
    }))
    const us = ((performance.now() - started) * 1000) / queries
    console.log(`round ${round + 1}: ${us.toFixed(1)} us per query (${((round + 1) * queries).toLocaleString("en")} queries since the burst)`)
  }
} finally {
  await sql.end()
  await pg.drop()
}
