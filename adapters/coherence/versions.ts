import { sql } from "drizzle-orm"
import { execute, type Database, type Queryable } from "../postgres/database.ts"
import type { Logger } from "../runtime/logger.ts"

/**
 * Coherence versions: the one mechanism by which something a process holds in memory (a
 * cache of tokens, assets, configuration, prepared JSON) learns that another process, on the
 * same database, changed what it was derived from (docs/deployment.md, "Coherence").
 *
 * - A writer calls `bumpVersion(tx, scope)` inside its own transaction; the bump commits or
 *   rolls back with the change, and a NOTIFY (delivered at commit) tells every process.
 * - A process keeps the last version it saw per scope (`version`), hears bumps through
 *   LISTEN and a poll (the safety net for a dropped LISTEN connection), and calls `onChange`
 *   listeners: a cache drops what the scope covers.
 * - A cache that must be exact at a request's start (not within the NOTIFY latency) calls
 *   `refresh()`: one small query for every scope's version, far cheaper than reloading.
 *
 * Scopes are plain strings; the ones the service bumps are named in SCOPES.
 */
export const COHERENCE_CHANNEL = "keyspace_coherence"

export const SCOPES = {
  /**
   * PUT /admin/v1/manifest: projects, assets and their config, apps and secrets, webhooks; also
   * POST /admin/v1/apps/{appId}/secret (a rotated secret is a change to the apps it covers).
   */
  manifest: "manifest",
} as const

/** In the writer's transaction: the scope's version goes up by one when it commits. */
export const bumpVersion = async (tx: Queryable, scope: string): Promise<number> => {
  const [row] = await execute<{ version: string | number }>(
    tx,
    sql`insert into coherence_versions (scope, version) values (${scope}, 1)
        on conflict (scope) do update set version = coherence_versions.version + 1
        returning version`,
  )
  const version = Number(row?.version ?? 0)
  await tx.execute(sql`select pg_notify(${COHERENCE_CHANNEL}, ${`${version} ${scope}`})`)
  return version
}

/** Every scope's version (one round trip). */
export const readVersions = async (q: Queryable): Promise<Map<string, number>> => {
  const rows = await execute<{ scope: string; version: string | number }>(
    q,
    sql`select scope, version from coherence_versions`,
  )
  return new Map(rows.map((r) => [r.scope, Number(r.version)]))
}

export type CoherenceListener = (scope: string, version: number) => void

export interface Coherence {
  /** The last version this process saw for a scope (0: never bumped). */
  readonly version: (scope: string) => number
  /** Called when a scope's version moves (any process); returns the unsubscribe function. */
  readonly onChange: (listener: CoherenceListener) => () => void
  /** Reads every version now and reports those that moved; resolves when listeners ran. */
  readonly refresh: () => Promise<void>
  readonly stop: () => Promise<void>
}

export const startCoherence = (
  database: Database,
  logger: Logger,
  options: { readonly pollMs?: number } = {},
): Coherence => {
  const seen = new Map<string, number>()
  const listeners = new Set<CoherenceListener>()
  const log = logger.child({ component: "coherence" })

  const observe = (scope: string, version: number): void => {
    if (version <= (seen.get(scope) ?? 0)) return
    seen.set(scope, version)
    for (const listener of listeners) {
      try {
        listener(scope, version)
      } catch (e) {
        log.log("error", "coherence listener failed", { scope, error: String(e) })
      }
    }
  }
  const refresh = async (): Promise<void> => {
    for (const [scope, version] of await readVersions(database.db)) observe(scope, version)
  }

  const listening = database
    .listen(COHERENCE_CHANNEL, (payload) => {
      const space = payload.indexOf(" ")
      const version = Number(payload.slice(0, space))
      if (space > 0 && Number.isFinite(version)) observe(payload.slice(space + 1), version)
    })
    .catch((e: unknown) => {
      log.log("warn", "coherence LISTEN failed; following by polling", { error: String(e) })
      return async () => {}
    })
  // PGlite is one process: every bump is heard through its in-process NOTIFY; no poll needed.
  const timer =
    database.engine === "postgres"
      ? setInterval(() => void refresh().catch(() => {}), options.pollMs ?? 1_000)
      : undefined
  timer?.unref?.()
  void refresh().catch(() => {})

  return {
    version: (scope) => seen.get(scope) ?? 0,
    onChange: (listener) => {
      listeners.add(listener)
      return () => listeners.delete(listener)
    },
    refresh,
    stop: async () => {
      if (timer !== undefined) clearInterval(timer)
      await (await listening)()
    },
  }
}
