import { Context } from "effect"

/**
 * When the request being served arrived, on the process's monotonic clock (`performance.now()`):
 * its reads must see every commit made before then. A store that keeps answers across requests
 * (adapters/postgres/cache-epoch.ts `SnapshotMemo`) may then rely on a cache-epoch sync that
 * started at or after this instant (the bearer check's) instead of syncing again. Undefined
 * outside a request: such stores sync themselves.
 */
export const ReadsFreshFrom = Context.Reference<number | undefined>("keyspace/ports/ReadsFreshFrom", {
  defaultValue: () => undefined,
})
