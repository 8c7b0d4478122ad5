import { sql } from "drizzle-orm"
import { Context, Effect, Layer } from "effect"
import { retryingRead } from "./connection-loss.ts"
import { execute, type Db } from "./database.ts"
import { ReadsFreshFrom, SnapshotMemos, type SnapshotMemo } from "../../core/ports/read-freshness.ts"
import { CurrentTx, SqlDatabase } from "./unit-of-work.ts"
import { recentMap } from "../../core/shared/recent-map.ts"

/**
 * Caches of rows every request reads and few requests change (access tokens, apps, projects,
 * rooms, desks), kept correct across processes by one counter in the database: any committed
 * change to a cached table moves `cache_epoch` (a deferred trigger, migration 0011). A request
 * first learns the counter (`sync`, with a read that starts after the request arrived); when it
 * moved, every cache is emptied. So a change committed anywhere is seen by every request that
 * arrives after the commit, on every process, as without caches.
 *
 * Concurrent requests share reads: while one read is in flight, later callers wait for the
 * next one (which starts after they asked), so a process sends at most one read at a time.
 */
export interface Caches {
  /**
   * Makes the caches current as of a read that starts now; every request calls it first. With
   * `freshFrom` (`performance.now()` when the caller's request arrived) a read sent after that
   * instant, in flight or the last completed, serves instead: it sees every commit made before
   * the request arrived.
   */
  readonly sync: (freshFrom?: number) => Promise<void>
  /** The named cache (created on first use with these bounds; one per name). */
  readonly cache: <K, V>(name: string, options: { max: number; ttlMs?: number }) => EpochCache<K, V>
  /** Entries per cache, for the memory notes in bench/README.md. */
  readonly sizes: () => Record<string, number>
  /**
   * The database snapshot (`pg_current_snapshot()` as text) read by the last completed sync, or
   * undefined when the reader gives none (the memory profile). Two equal texts mean no
   * transaction committed or aborted anywhere in between, so an answer read at one is still
   * the answer at the other: caches of data that changes on every booking key on it.
   */
  readonly snapshot: () => string | undefined
  /**
   * The named memo of answers that change with every booking, kept by database snapshot (one
   * per name, created on first use with this bound). Only for reads outside a transaction.
   */
  readonly bySnapshot: <V>(name: string, max: number) => SnapshotMemo<V>
  /** The counter the caches hold (the last completed read's), undefined before the first. */
  readonly epoch: () => bigint | undefined
}

/**
 * `read` answered through `memo` under `key`, run with the caller's context; fresh from the
 * caller's request arrival (`ReadsFreshFrom`). Inside a transaction the statement runs as is:
 * it sees that transaction's own writes and snapshot, never the memo's, and is never kept.
 */
export const readBySnapshot = <V>(memo: SnapshotMemo<V>, key: string, read: Effect.Effect<V>): Effect.Effect<V> =>
  Effect.gen(function* () {
    if ((yield* CurrentTx) !== undefined) return yield* read
    const freshFrom = yield* ReadsFreshFrom
    // A hit settled under the current snapshot: no promise for the fiber to wait on.
    const hit = memo.settled(key, freshFrom)
    if (hit !== undefined) return hit.value
    const ctx = yield* Effect.context<never>()
    return yield* Effect.promise(() => memo.get(key, () => Effect.runPromiseWith(ctx)(read), freshFrom))
  })

export interface EpochCache<K, V> {
  readonly get: (key: K) => V | undefined
  /**
   * Looks the key up, or loads it (after a sync: the load then reads data at least as new as
   * the counter the cache holds) and keeps it unless the counter moved meanwhile.
   */
  readonly getOrLoad: (key: K, load: () => Promise<V | undefined>) => Promise<V | undefined>
  /**
   * Keeps a value read by the caller after `Caches.epoch()` returned `readUnder`, unless the
   * counter moved since (a read of several keys at once: each kept as `getOrLoad` would).
   */
  readonly keep: (key: K, value: V, readUnder: bigint | undefined) => void
  /** Every value still held (current, not expired), without counting it as a use. */
  readonly values: () => Iterable<V>
  readonly delete: (key: K) => void
  readonly size: () => number
}

/** The counter as committed now (one primary-key read). */
export const readCacheEpoch = async (db: Db): Promise<bigint> => {
  const [row] = await execute<{ value: string | number }>(db, sql`select value from cache_epoch where id = 1`)
  return BigInt(row?.value ?? 0)
}

/** What a sync learns: the counter, and the snapshot the same statement read it in. */
export interface EpochRead {
  readonly epoch: bigint
  readonly snapshot?: string | undefined
}

/**
 * The sync's statement, prepared once per database handle: a sync is sent for most requests
 * (shared by the requests that arrive meanwhile), so its SQL is not rebuilt and re-parsed each
 * time (postgres-js keeps the named statement per connection).
 */
const epochStatements = new WeakMap<Db, { execute: () => Promise<Array<{ value: string | number; snapshot: string }>> }>()
const epochStatement = (db: Db) => {
  let statement = epochStatements.get(db)
  if (statement === undefined) {
    statement = db
      .select({ value: sql<string | number>`value`, snapshot: sql<string>`pg_current_snapshot()::text` })
      .from(sql`cache_epoch`)
      .where(sql`id = 1`)
      .prepare("cache_epoch_sync")
    epochStatements.set(db, statement)
  }
  return statement
}

/** The counter and the statement's snapshot, in the one primary-key read a sync makes. */
export const readCacheEpochAndSnapshot = async (db: Db): Promise<EpochRead> => {
  const [row] = await epochStatement(db).execute()
  return { epoch: BigInt(row?.value ?? 0), snapshot: row?.snapshot }
}

/**
 * Caches over `db`. The sync's read is retried while its connection is lost (a restarted or
 * terminated backend): nearly every request waits for one.
 */
export const makeCaches = (db: Db, now: () => number = () => Date.now()): Caches =>
  makeEpochCaches(() => retryingRead(() => readCacheEpochAndSnapshot(db)), now)

/** Caches emptied whenever `read` returns a higher epoch than the last one seen. */
export const makeEpochCaches = (read: () => Promise<EpochRead>, now: () => number = () => Date.now()): Caches => {
  let epoch: bigint | undefined
  let snapshot: string | undefined
  // When the last completed read was sent (monotonic): reads run one at a time, so it is the newest.
  let snapshotReadFrom = Number.NEGATIVE_INFINITY
  const clears: Array<() => void> = []
  const resolved = Promise.resolve()
  let current: Promise<void> | undefined
  let currentSentAt = Number.NEGATIVE_INFINITY
  let queued: Promise<void> | undefined
  const start = (): Promise<void> => {
    const sentAt = performance.now()
    currentSentAt = sentAt
    const p: Promise<void> = read()
      .then((r) => {
        // Reads run one at a time, so the last one to complete holds the newest snapshot.
        snapshot = r.snapshot
        snapshotReadFrom = sentAt
        if (epoch === undefined || r.epoch > epoch) {
          for (const clear of clears) clear()
          epoch = r.epoch
        }
      })
      .finally(() => {
        if (current === p) current = undefined
      })
    current = p
    return p
  }
  /** Whether a completed read was sent after `freshFrom`: it saw every commit made before then. */
  const completedSince = (freshFrom: number | undefined): boolean => freshFrom !== undefined && snapshotReadFrom > freshFrom
  const sync = (freshFrom?: number): Promise<void> => {
    // The last completed read serves even while a newer one is in flight: waiting for that
    // one cost a memo-served request (the bearer check's read already done) a round trip.
    if (completedSince(freshFrom)) return resolved
    if (freshFrom !== undefined && current !== undefined && currentSentAt > freshFrom) return current
    if (current === undefined) return start()
    queued ??= current
      .catch(() => {})
      .then(() => {
        queued = undefined
        return start()
      })
    return queued
  }

  // One cache or memo per name (caches and memos share the names), made on first use.
  const byName = new Map<string, { readonly size: () => number }>()
  const named = <T extends { readonly size: () => number }>(name: string, make: () => T): T => {
    const existing = byName.get(name)
    if (existing) return existing as T
    const made = make()
    byName.set(name, made)
    return made
  }
  const cache = <K, V>(name: string, options: { max: number; ttlMs?: number }): EpochCache<K, V> =>
    named(name, () => makeCache<K, V>(options))
  const makeCache = <K, V>(options: { max: number; ttlMs?: number }): EpochCache<K, V> => {
    const entries = recentMap<K, { value: V; until: number }>(options.max)
    clears.push(entries.clear)
    const get = (key: K): V | undefined => {
      const e = entries.get(key)
      if (e === undefined) return undefined
      if (e.until <= now()) {
        entries.delete(key)
        return undefined
      }
      return e.value
    }
    const keep = (key: K, value: V, readUnder: bigint | undefined): void => {
      if (readUnder !== undefined && readUnder === epoch) entries.set(key, { value, until: now() + (options.ttlMs ?? Number.POSITIVE_INFINITY) })
    }
    const values = function* (): Generator<V> {
      const at = now()
      for (const e of entries.values()) if (e.until > at) yield e.value
    }
    return {
      get,
      values,
      getOrLoad: async (key, load) => {
        const hit = get(key)
        if (hit !== undefined) return hit
        const at = epoch
        const value = await load()
        if (value !== undefined) keep(key, value, at)
        return value
      },
      keep,
      delete: entries.delete,
      size: entries.size,
    }
  }
  const makeMemo = <V>(max: number): SnapshotMemo<V> => {
    type Entry = { readonly value: Promise<V>; settled?: { readonly value: V } }
    const held = recentMap<string, Entry>(max)
    // The snapshot every held answer was read under (one at a time: an older one is never current again).
    let heldSnapshot: string | undefined
    /** The kept answer under the current snapshot, or undefined. */
    const keptNow = (key: string): Entry | undefined =>
      snapshot !== undefined && snapshot === heldSnapshot ? held.get(key) : undefined
    /** After a sync that serves the caller: the kept answer, or `load`'s (kept when it succeeds). */
    const answer = (key: string, load: () => Promise<V>): Promise<V> => {
      const hit = keptNow(key)
      if (hit !== undefined) return hit.value
      const at = snapshot
      const value = load()
      if (at !== undefined) {
        const entry: Entry = { value }
        if (heldSnapshot !== at) {
          held.clear()
          heldSnapshot = at
        }
        held.set(key, entry)
        value.then(
          (v) => void (entry.settled = { value: v }),
          () => {
            if (held.peek(key) === entry) held.delete(key)
          },
        )
      }
      return value
    }
    return {
      // A snapshot read sent after the caller's request arrived (the bearer check's sync), or
      // its own sync (shared with concurrent callers): never an older snapshot than the caller's.
      get: (key, load, freshFrom) => sync(freshFrom).then(() => answer(key, load)),
      settled: (key, freshFrom) => (completedSince(freshFrom) ? keptNow(key)?.settled : undefined),
      size: held.size,
    }
  }
  const bySnapshot = <V>(name: string, max: number): SnapshotMemo<V> => named(name, () => makeMemo<V>(max))
  const sizes = () => Object.fromEntries([...byName].map(([name, c]) => [name, c.size()]))
  return { sync, cache, sizes, snapshot: () => snapshot, bySnapshot, epoch: () => epoch }
}

/**
 * The process's one set of caches as a service: the token store and the legacy asset queries
 * (through `Services.caches`) share it; adapters/wiring/app-layer.ts provides it once per runtime, so the bearer's one `sync` per request serves both.
 */
export class EpochCaches extends Context.Service<EpochCaches, Caches>()("keyspace/postgres/EpochCaches") {
  static readonly layer = Layer.effect(
    EpochCaches,
    Effect.gen(function* () {
      const { db } = yield* SqlDatabase
      return makeCaches(db)
    }),
  )
  /** The memory profile: one process, nothing to follow. */
  static readonly layerMemory = Layer.sync(EpochCaches, () => makeEpochCaches(() => Promise.resolve({ epoch: 0n })))
  /** The caches' snapshot memos as the port the HTTP edge keeps whole answers in. */
  static readonly memos = Layer.effect(
    SnapshotMemos,
    Effect.gen(function* () {
      const caches = yield* EpochCaches
      return SnapshotMemos.of({ named: caches.bySnapshot })
    }),
  )
}
