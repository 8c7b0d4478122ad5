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
