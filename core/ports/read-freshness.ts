import { Context } from "effect"

/**
 * When the request being served arrived, on the process's monotonic clock (`performance.now()`):
 * its reads must see every commit made before then. A store that keeps answers across requests
 * (adapters/postgres/cache-epoch.ts `SnapshotMemo`), and the bearer check, may then rely on any
 * cache-epoch read sent after this instant instead of sending one of their own. Undefined
 * outside a request: they wait for a read that starts after they ask.
 */
export const ReadsFreshFrom = Context.Reference<number | undefined>("keyspace/ports/ReadsFreshFrom", {
  defaultValue: () => undefined,
})

/**
 * Answers kept with the database snapshot they were read under, reused only while a sync made
 * after the caller asked reads the identical snapshot: nothing committed or aborted anywhere in
 * between, so the answer is exactly what the statement would return again, on any process. Only
 * the newest snapshot's answers are held (an older snapshot can never be current again);
 * concurrent misses on one key share one read; a failed read is not kept.
 */
export interface SnapshotMemo<V> {
  /**
   * The kept answer, or `load`'s. `freshFrom` (`performance.now()` when the caller's request
   * arrived): a sync sent after it already serves, else the memo syncs first.
   */
  readonly get: (key: string, load: () => Promise<V>, freshFrom?: number) => Promise<V>
  /**
   * The kept answer when it is known without waiting: a completed sync sent after `freshFrom`
   * read the snapshot it was kept under, and its read has completed (else undefined: `get`).
   */
  readonly settled: (key: string, freshFrom: number | undefined) => { readonly value: V } | undefined
  readonly size: () => number
}

/**
 * The process's named snapshot memos (adapters/postgres/cache-epoch.ts), for an edge that keeps
 * whole answers. Where the store gives no snapshot (the memory profile) nothing is ever kept.
 */
export class SnapshotMemos extends Context.Service<
  SnapshotMemos,
  { readonly named: <V>(name: string, max: number) => SnapshotMemo<V> }
>()("keyspace/ports/SnapshotMemos") {}
