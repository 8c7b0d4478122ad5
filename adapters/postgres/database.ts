import { existsSync, realpathSync } from "node:fs"
import { sql } from "drizzle-orm"
import type { PgDatabase, PgQueryResultHKT } from "drizzle-orm/pg-core"
import { drizzle as drizzlePostgres } from "drizzle-orm/postgres-js"
import postgres from "postgres"
import type { PGlite } from "@electric-sql/pglite"
import { preparing } from "./prepared-client.ts"
import { reconnectBackoff } from "./connection-loss.ts"
import { migrateDatabase } from "./migrations.ts"
import { buildTemplate, copyTemplateInto, startFromTemplate, templateDirOf, templateFits } from "./pglite-template.ts"
import * as schema from "./schema.ts"

export type Schema = typeof schema
/** The one database type repositories see; PGlite and postgres-js both satisfy it. */
export type Db = PgDatabase<PgQueryResultHKT, Schema>
/** A transaction handle has the same query surface as the database. */
export type Tx = Parameters<Parameters<Db["transaction"]>[0]>[0]
export type Queryable = Db | Tx

export interface Database {
  readonly db: Db
  readonly engine: "pglite" | "postgres"
  /**
   * Runs `onNotify` when work for the channel may have been committed: by this process (right
   * after the commit, see wakeAfterCommit; payload "", and `dueAt` when every writer named the
   * earliest time its work is due) or by another (NOTIFY with its payload, no `dueAt`).
   */
  readonly listen: (channel: string, onNotify: (payload: string, dueAt?: number) => void) => Promise<() => Promise<void>>
  readonly close: () => Promise<void>
}

/*
 * Wake-ups after commit, not NOTIFY inside the transaction. A transaction that NOTIFYs takes
 * a cluster-wide lock from its pre-commit until its commit ends, so every booking commit
 * queued behind every other one. Writers now name the channel (wakeAfterCommit); when the
 * transaction commits, this process's listeners run, and other processes get one
 * NOTIFY sent on its own, outside any booking transaction, coalesced per channel: while one is
 * in flight, any number of commits add exactly one more, sent after it (so every commit is
 * followed by a NOTIFY that starts after it). A lost NOTIFY costs latency, never work: the
 * workers keep their safety-net timers.
 */
/** Channels woken, each with the earliest due time its writers named (-Infinity: now). */
type Wake = (channels: ReadonlyMap<string, number>) => void
const pendingWakes = new WeakMap<object, Map<string, number>>()
const wakeOf = new WeakMap<object, Wake>()
const NOW = Number.NEGATIVE_INFINITY

const addWake = (into: Map<string, number>, channel: string, dueAt: number): void => {
  const had = into.get(channel)
  into.set(channel, had === undefined ? dueAt : Math.min(had, dueAt))
}

/**
 * Wakes the channel's workers once `q`'s transaction commits (at once outside one). `dueAt`
 * (service clock ms) says the committed work is not due before then, so a worker already
 * planning to run earlier need not look (the scheduler: a new booking's ticks are in the future).
 */
export const wakeAfterCommit = (q: Queryable, channel: string, dueAt: number = NOW): void => {
  const pending = pendingWakes.get(q)
  if (pending) addWake(pending, channel, dueAt)
  else wakeOf.get(q)?.(new Map([[channel, dueAt]]))
}

const withCommitWakes = (db: Db, wake: Wake): Db => {
  const transaction = db.transaction.bind(db)
  const wrapped: Db["transaction"] = async (work, config) => {
    const channels = new Map<string, number>()
    const result = await transaction(async (tx) => {
      pendingWakes.set(tx, channels)
      return work(tx)
    }, config)
    if (channels.size > 0) wake(channels)
    return result
  }
  Object.defineProperty(db, "transaction", { value: wrapped, configurable: true, writable: true })
  wakeOf.set(db, wake)
  return db
}

/**
 * In-process listeners, and the coalesced cross-process NOTIFY: every channel woken since the
 * last one goes out in ONE statement, at most one statement per `minIntervalMs` and never two
 * at once. A commit's channel is either in the next statement or the one after the statement
 * in flight, so every commit is still followed by a NOTIFY that starts after it; other
 * processes learn of it within `minIntervalMs` plus a round trip. Before, a create sent one
 * statement per channel (2 round trips) even under load.
 *
 * The in-process listeners are coalesced in time too: a channel's listeners run at once when
 * they last ran `localIntervalMs` ago or more, else once at the end of that interval for every
 * commit in between (under load, one worker round per few ms instead of one per commit: each
 * round is a transaction of its own that competes with the creates for the CPU).
 */
const makeWaker = (
  notify: ((channels: string[]) => Promise<unknown>) | undefined,
  minIntervalMs = 10,
  localIntervalMs = 4,
) => {
  const listeners = new Map<string, Set<(dueAt: number) => void>>()
  const pending = new Set<string>()
  let timer: ReturnType<typeof setTimeout> | undefined
  let inFlight = false
  let lastSent = 0
  const flush = (): void => {
    timer = undefined
    if (!notify || inFlight || pending.size === 0) return
    const channels = [...pending]
    pending.clear()
    inFlight = true
    lastSent = Date.now()
    void notify(channels)
      .catch(() => {})
      .finally(() => {
        inFlight = false
        schedule()
      })
  }
  const schedule = (): void => {
    if (!notify || timer !== undefined || inFlight || pending.size === 0) return
    timer = setTimeout(flush, Math.max(0, lastSent + minIntervalMs - Date.now()))
  }

  // Per channel: when its listeners last ran, and the wake held back until the interval ends.
  const lastLocal = new Map<string, number>()
  const heldDue = new Map<string, number>()
  const localTimers = new Map<string, ReturnType<typeof setTimeout>>()
  const runLocal = (channel: string, dueAt: number): void => {
    lastLocal.set(channel, Date.now())
    for (const f of listeners.get(channel) ?? [])
      try {
        f(dueAt)
      } catch {
        // A listener's failure is its own; the committed work stays for its next round.
      }
  }
  const wakeLocal = (channel: string, dueAt: number): void => {
    if (!listeners.get(channel)?.size) return
    if (localTimers.has(channel)) {
      addWake(heldDue, channel, dueAt)
      return
    }
    const wait = (lastLocal.get(channel) ?? 0) + localIntervalMs - Date.now()
    if (wait <= 0) return runLocal(channel, dueAt)
    heldDue.set(channel, dueAt)
    localTimers.set(
      channel,
      setTimeout(() => {
        localTimers.delete(channel)
        const due = heldDue.get(channel) ?? NOW
        heldDue.delete(channel)
        runLocal(channel, due)
      }, wait),
    )
  }
  const wake: Wake = (channels) => {
    for (const [channel, dueAt] of channels) {
      wakeLocal(channel, dueAt)
      if (notify) pending.add(channel)
    }
    schedule()
  }
  const addListener = (channel: string, f: (dueAt: number) => void) => {
    const set = listeners.get(channel) ?? new Set()
    set.add(f)
    listeners.set(channel, set)
    return () => void set.delete(f)
  }
  const stop = () => {
    if (timer !== undefined) clearTimeout(timer)
    timer = undefined
    pending.clear()
    for (const t of localTimers.values()) clearTimeout(t)
    localTimers.clear()
    heldDue.clear()
  }
  return { wake, addListener, stop }
}

/** A local wake's due time as `listen` hands it on (none: due now). */
const dueOf = (dueAt: number): number | undefined => (dueAt === NOW ? undefined : dueAt)

/**
 * Settings of the embedded database, on its command line (its postgresql.conf is left alone).
 * min/max_wal_size bound the WAL a checkpoint keeps for reuse (80 MB / 1 GB by default):
 * - a directory: 32 MB, the least that 16 MB segments allow (directories created before
 *   PGLITE_INITDB have them);
 * - an in-memory database always has 1 MB segments, and holds its WAL in the process: 2-8 MB;
 * - the build's template keeps no more than 2 MB, since every new database starts as its copy.
 */
const PGLITE_SETTINGS = {
  directory: ["shared_buffers=16MB", "min_wal_size=32MB", "max_wal_size=64MB"],
  memory: ["shared_buffers=16MB", "min_wal_size=2MB", "max_wal_size=8MB"],
  template: ["shared_buffers=16MB", "min_wal_size=2MB", "max_wal_size=2MB"],
} as const
/** initdb's for a new embedded database: 1 MB WAL segments instead of 16 (an in-memory database holds each whole). */
const PGLITE_INITDB = ["--wal-segsize=1"]

const migrationsFolder = new URL("../../drizzle", import.meta.url).pathname

export interface OpenOptions {
  readonly databaseUrl?: string | undefined
  /** PGlite data directory, or "memory". */
  readonly dataDir?: string
  readonly maxConnections?: number
  /**
   * The template a new PGlite data directory starts from (pglite-template.ts): by default the
   * build's, beside the migrations; `false` runs initdb.
   */
  readonly template?: string | false
  /** When the embedded database checkpoints (tests shorten it). */
  readonly walCheckpoint?: WalCheckpoint
}

export const openDatabase = async (options: OpenOptions): Promise<Database> => {
  if (options.databaseUrl) {
    const client = postgres(options.databaseUrl, {
      max: options.maxConnections ?? 10,
      onnotice: () => {},
      connect_timeout: 10,
      backoff: reconnectBackoff,
      // Long-lived process: keep prepared statements per connection.
      prepare: true,
    })
    // The payload names the sending process: its own listeners already ran after the commit,
    // so it ignores its own NOTIFY (no second round of the workers per commit).
    const self = crypto.randomUUID()
    const waker = makeWaker((channels) => client`select pg_notify(c, ${self}) from unnest(${client.array(channels)}::text[]) as c`)
    const db = withCommitWakes(drizzlePostgres(preparing(client), { schema }) as unknown as Db, waker.wake)
    await migrateDatabase(options.databaseUrl, migrationsFolder)
    return {
      db,
      engine: "postgres",
      listen: async (channel, onNotify) => {
        const local = waker.addListener(channel, (dueAt) => onNotify("", dueOf(dueAt)))
        const sub = await client.listen(channel, (payload) => {
          if (payload !== self) onNotify(payload)
        })
        return async () => {
          local()
          await sub.unlisten()
        }
      },
      close: () => {
        waker.stop()
        return client.end({ timeout: 5 })
      },
    }
  }
  const dataDir = options.dataDir ?? "memory"
  // A new database is a copy of the build's template when one fits (pglite-template.ts): a
  // directory is filled from it, an in-memory database gets its files.
  const template = options.template === false ? undefined : (options.template ?? templateDirOf(migrationsFolder))
  if (template !== undefined && dataDir !== "memory") startFromTemplate(dataDir, template, migrationsFolder)
  const memoryTemplate = template !== undefined && dataDir === "memory" && templateFits(template, migrationsFolder) ? template : undefined
  const { pg, drizzlePglite, migratePglite } = await createPglite(dataDir, { memoryTemplate })
  // One process owns a PGlite directory: in-process wake-ups are all there is to send.
  const waker = makeWaker(undefined)
  const db = withCommitWakes(drizzlePglite(pg, { schema }) as unknown as Db, waker.wake)
  await migratePglite(drizzlePglite(pg), { migrationsFolder })
  const checkpoints = walCheckpoints(pg, options.walCheckpoint ?? WAL_CHECKPOINT)
  return {
    db,
    engine: "pglite",
    listen: async (channel, onNotify) => {
      const local = waker.addListener(channel, (dueAt) => onNotify("", dueOf(dueAt)))
      const unlisten = await pg.listen(channel, (payload) => onNotify(payload))
      return async () => {
        local()
        await unlisten()
      }
    },
    close: async () => {
      await checkpoints.stop()
      await pg.close()
    },
  }
}

/** When the embedded database checkpoints: looked at every `everyMs`, done once `afterBytes` of WAL were written. */
export interface WalCheckpoint {
  readonly everyMs: number
  readonly afterBytes: number
}
const WAL_CHECKPOINT: WalCheckpoint = { everyMs: 30_000, afterBytes: 16 * 1024 * 1024 }

/**
 * PGlite runs PostgreSQL in single-user mode, where no checkpointer runs: nothing but a restart
 * ever checkpointed, so its WAL grew without end, on disk in a data directory and inside the
 * process for "memory" (about 0.5 MB per 1,000 rows written; measured 104 MB after 200,000
 * small rows, 20 MB with these checkpoints). A checkpoint of 16 MB of WAL takes a few ms.
 */
const walCheckpoints = (pg: PGlite, every: WalCheckpoint) => {
  let running: Promise<void> = Promise.resolve()
  // WAL written since the last checkpoint's redo point, as PostgreSQL itself records it.
  const look = async () => {
    const { rows } = await pg.query<{ due: boolean }>(
      "select pg_wal_lsn_diff(pg_current_wal_lsn(), (select redo_lsn from pg_control_checkpoint())) >= $1 as due",
      [every.afterBytes],
    )
    if (rows[0]?.due) await pg.exec("checkpoint")
  }
  const timer = setInterval(() => {
    // A failed look (the database closing) is retried at the next period.
    running = running.then(look).catch(() => {})
  }, every.everyMs)
  ;(timer as { unref?: () => void }).unref?.()
  return {
    stop: async () => {
      clearInterval(timer)
      await running
    },
  }
}

/** Where PGlite keeps its data directory in its own (Emscripten) file system. */
const PGLITE_PGDATA = "/pglite/data"

/**
 * A PGlite instance on `dataDir` ("memory": none); an in-memory one starts with `memoryTemplate`'s
 * files when given. Settings by kind of database unless named (the template build).
 */
const createPglite = async (
  dataDir: string,
  options: { readonly memoryTemplate?: string | undefined; readonly settings?: keyof typeof PGLITE_SETTINGS } = {},
) => {
  const { memoryTemplate } = options
  const settings = options.settings ?? (dataDir === "memory" ? "memory" : "directory")
  // Loaded only here: a server on PostgreSQL never loads PGlite's WebAssembly and data bundle.
  const [{ PGlite, MemoryFS }, { btree_gist }, { drizzle: drizzlePglite }, { migrate: migratePglite }] = await Promise.all([
    import("@electric-sql/pglite"),
    import("@electric-sql/pglite/contrib/btree_gist"),
    import("drizzle-orm/pglite"),
    import("drizzle-orm/pglite/migrator"),
  ])
  // PGlite syncs its file system in before it looks for PG_VERSION: the template's files are
  // then the database it finds and resumes, as a restart does.
  const fromTemplate = (template: string) =>
    new (class extends MemoryFS {
      override async initialSyncFs(): Promise<void> {
        await super.initialSyncFs()
        copyTemplateInto(this.pg!.Module.FS, template, PGLITE_PGDATA)
      }
    })()
  const pg = await PGlite.create({
    // PGlite's NODEFS mount does not follow a symlinked directory (ENOENT inside WebAssembly):
    // an operator's link to a volume is opened at the directory it names.
    ...(dataDir === "memory" ? {} : { dataDir: existsSync(dataDir) ? realpathSync(dataDir) : dataDir }),
    ...(dataDir === "memory" && memoryTemplate !== undefined ? { fs: fromTemplate(memoryTemplate) } : {}),
    extensions: { btree_gist },
    // PostgreSQL's default 128 MB of shared buffers lives in the WebAssembly heap, which never
    // shrinks: it was a quarter of the idle RSS. The data files are in memory or the OS page
    // cache anyway, so a page outside the buffers costs a copy, not a disk read.
    startParams: [...PGlite.defaultStartParams, ...PGLITE_SETTINGS[settings].flatMap((kv) => ["-c", kv])],
    initDbStartParams: PGLITE_INITDB,
  })
  return { pg, drizzlePglite, migratePglite }
}

/**
 * Builds the template of this build's migrations (scripts/build.mjs): a database created and
 * migrated in the template's directory, holding only the `postgres` database, checkpointed.
 */
export const buildPgliteTemplate = (templateDir = templateDirOf(migrationsFolder)): Promise<void> =>
  buildTemplate(templateDir, migrationsFolder, async (directory) => {
    const { pg, drizzlePglite, migratePglite } = await createPglite(directory, { settings: "template" })
    try {
      await migratePglite(drizzlePglite(pg), { migrationsFolder })
      // The server never creates a database: template0 and template1 were 16 of the template's
      // 32 MB, copied into every new database (and held in the process by an in-memory one).
      for (const name of ["template0", "template1"]) {
        await pg.query(`alter database ${name} is_template false`)
        await pg.query(`drop database ${name}`)
      }
      // Written out first, so a database started from the template has no WAL to replay.
      await pg.exec("CHECKPOINT")
    } finally {
      await pg.close()
    }
  })

/** A lazy Drizzle query (a builder or `execute(sql)`): `.execute()` sends it. */
export interface Sendable<T> {
  readonly execute: () => Promise<T>
}

/**
 * Sends statements back to back on the transaction's connection, in this order, and waits for
 * all answers: one round trip instead of one each (postgres-js pipelines them; PGlite runs
 * them in order). A failing statement rejects the batch with its own error (the statements
 * after it fail as "transaction aborted" and are ignored).
 */
export const pipeline = <T extends ReadonlyArray<Sendable<unknown>>>(
  ...queries: T
): Promise<{ -readonly [K in keyof T]: Awaited<ReturnType<T[K]["execute"]>> }> =>
  inSendOrder(queries.map((q) => q.execute())) as never

/**
 * The answers of statements sent together on one transaction's connection, listed in the order
 * they were sent (kept queries send when called; Drizzle's builders and `execute` a few
 * microtasks later, so where order matters send those through `pipeline`). A failure is the
 * first failing statement's: those after it fail with "current transaction is aborted" (25P02),
 * and Promise.all rejected with whichever rejection settled first, sometimes one of those.
 */
export const inSendOrder = async <const T extends ReadonlyArray<Promise<unknown>>>(
  sent: T,
): Promise<{ -readonly [K in keyof T]: Awaited<T[K]> }> => {
  const settled = await Promise.allSettled(sent)
  for (const s of settled) if (s.status === "rejected") throw s.reason
  return settled.map((s) => (s as PromiseFulfilledResult<unknown>).value) as never
}

/** The timestamptz of an expression in epoch milliseconds (exact for whole milliseconds). */
export const EPOCH_MS = (ms: string): string => `(timestamptz 'epoch' + ${ms} * interval '1 millisecond')`

/** Rows of a raw `db.execute` result: postgres-js returns an array, PGlite `{ rows }`. */
export const rowsOf = <T>(result: unknown): T[] =>
  (Array.isArray(result) ? result : (result as { rows: T[] }).rows) as T[]

export const execute = async <T>(q: Queryable, query: ReturnType<typeof sql>): Promise<T[]> =>
  rowsOf<T>(await q.execute(query))

/** The PostgreSQL error behind a driver or Drizzle error, if any. */
export const pgErrorOf = (e: unknown): { code: string; constraint: string | undefined } | undefined => {
  let cur: unknown = e
  for (let i = 0; i < 4 && cur; i++) {
    const c = cur as { code?: unknown; constraint?: string; constraint_name?: string; cause?: unknown }
    if (typeof c.code === "string" && /^[0-9A-Z]{5}$/.test(c.code))
      return { code: c.code, constraint: c.constraint ?? c.constraint_name }
    cur = c.cause
  }
  return undefined
}

export const PG_UNIQUE_VIOLATION = "23505"
export const PG_EXCLUSION_VIOLATION = "23P01"
export const PG_DEADLOCK_DETECTED = "40P01"
export const PG_SERIALIZATION_FAILURE = "40001"
