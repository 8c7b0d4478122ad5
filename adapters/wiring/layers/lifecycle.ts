import { Layer } from "effect"
import { OutboxMemory } from "../../memory/outbox-store.ts"
import { TickStoreMemory } from "../../memory/tick-store.ts"
import { OutboxPostgres } from "../../postgres/outbox-store.ts"
import { TickStorePostgres } from "../../postgres/tick-store.ts"
import { LifecycleSignalsLive } from "../../scheduler/signals.ts"
import type { Storage } from "../storage.ts"

/**
 * The lifecycle stream's part of the layer graph (adapters/wiring/app-layer.ts): its stores for
 * each storage profile, and its use cases (which need only ports).
 */
export const lifecycleStores = {
  postgres: Layer.mergeAll(TickStorePostgres, OutboxPostgres),
  memory: Layer.mergeAll(TickStoreMemory, OutboxMemory),
}
export const lifecycleUseCases = Layer.empty
/** What the use cases signal after commit (wake latches; no dependencies). */
export const lifecycleSignals = LifecycleSignalsLive
/** Background workers (embedded scheduler, webhook relay, Temporal sweep); they need the use cases. */
export const lifecycleWorkers = (_storage: Storage) => Layer.empty
