import { Context, Effect, Layer } from "effect"

/** What the stored-state gauges show, read at scrape time (never kept up by call sites). */
export interface StoredState {
  readonly bookingsByStatus: Readonly<Record<string, number>>
  readonly deliveriesByState: Readonly<Record<string, number>>
  readonly pendingTicks: number
  /** Due time of the oldest pending tick due by `now`, if any. */
  readonly oldestDueAt: number | undefined
}

/**
 * Reads the stored state for /metrics. The PostgreSQL reader is adapters/postgres/gauges.ts;
 * a failing read is a defect the scrape logs and survives (previous values stay).
 */
export class StoredStateReader extends Context.Service<
  StoredStateReader,
  { readonly read: (now: number) => Effect.Effect<StoredState> }
>()("keyspace/observability/StoredStateReader") {
  /** The memory profile keeps no bookings of its own here yet: every known status reads 0. */
  static readonly layerEmpty = Layer.succeed(
    StoredStateReader,
    StoredStateReader.of({
      read: () => Effect.succeed({ bookingsByStatus: {}, deliveriesByState: {}, pendingTicks: 0, oldestDueAt: undefined }),
    }),
  )
}
