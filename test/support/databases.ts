import postgres from "postgres"

/** The PostgreSQL server tests use: TEST_DATABASE_URL, or the local CI server's `test` database. */
export const TEST_DATABASE_URL = process.env.TEST_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test"

/**
 * A fresh, empty PostgreSQL database for one test file, dropped by the returned function.
 * Test files run in parallel; each gets its own database so they never see each other's rows.
 */
export const freshPostgresDatabase = async (): Promise<{ url: string; drop: () => Promise<void> }> => {
  const name = `ks_test_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 8)}`
  const admin = postgres(TEST_DATABASE_URL, { max: 1, onnotice: () => {} })
  await admin.unsafe(`create database ${name}`)
  await admin.end()
  const url = new URL(TEST_DATABASE_URL)
  url.pathname = `/${name}`
  return {
    url: url.toString(),
    drop: async () => {
      const a = postgres(TEST_DATABASE_URL, { max: 1, onnotice: () => {} })
      await a.unsafe(`drop database if exists ${name} with (force)`)
      await a.end()
    },
  }
}

/** Both engines the service runs on; integration suites run once per engine. */
export const ENGINES = ["pglite", "postgres"] as const
export type Engine = (typeof ENGINES)[number]
