import { Context, Effect, Option } from "effect"

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

/**
 * A request served on the caches as the last completed cache-epoch read left them, without
 * waiting for a read sent after it arrived (the create's bearer check: one round trip less).
 * Whatever it answers or writes must first be confirmed: by a write that checks `epoch` in its
 * own statement (the create batch), or by a read sent after `arrivedAt` that still finds
 * `epoch` (`CacheConfirmation.confirm`). `confirmed` is set by whichever did.
 */
export interface UnconfirmedCaches {
  readonly epoch: bigint
  readonly arrivedAt: number
  confirmed: boolean
}

/** The request's unconfirmed caches (undefined: the request's caches were confirmed first, as usual). */
export const CachesUnconfirmed = Context.Reference<UnconfirmedCaches | undefined>("keyspace/ports/CachesUnconfirmed", {
  defaultValue: () => undefined,
})

/**
 * The caches of an unconfirmed request changed before it could confirm them: nothing was
 * written, and the request is served again as any other (the edge catches this defect).
 */
export class StaleCaches extends Error {
  override readonly name = "StaleCaches"
  constructor() {
    super("the caches moved before the request confirmed them")
  }
}

export class CacheConfirmation extends Context.Service<
  CacheConfirmation,
  {
    /** The epoch the caches hold after a completed read, or undefined (none completed yet). */
    readonly held: () => bigint | undefined
    /** Waits for a read sent after `u.arrivedAt`; true (and `u.confirmed`) when the caches still hold `u.epoch`. */
    readonly confirm: (u: UnconfirmedCaches) => Promise<boolean>
  }
>()("keyspace/ports/CacheConfirmation") {}

/**
 * Before a write that does not check the cache epoch in its own statement: a request on
 * unconfirmed caches confirms them first, or stops with StaleCaches before anything is written
 * (the edge serves it again). Nothing to do without a confirmation service (the caches were
 * never left unconfirmed).
 */
export const confirmBeforeWrite = (confirmation: Option.Option<CacheConfirmation["Service"]>): Effect.Effect<void> =>
  Effect.gen(function* () {
    const u = yield* CachesUnconfirmed
    if (u === undefined || u.confirmed || Option.isNone(confirmation)) return
    const { confirm } = confirmation.value
    if (!(yield* Effect.promise(() => confirm(u)))) return yield* Effect.die(new StaleCaches())
  })
