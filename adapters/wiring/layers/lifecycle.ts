import { Layer } from "effect"
import type { Storage } from "../storage.ts"

/**
 * The lifecycle stream's part of the layer graph (adapters/wiring/app-layer.ts): its stores for
 * each storage profile, and its use cases (which need only ports).
 */
export const lifecycleStores = { postgres: Layer.empty, memory: Layer.empty }
export const lifecycleUseCases = Layer.empty
/** What the use cases signal after commit (wake latches; no dependencies). */
export const lifecycleSignals = Layer.empty
/** Background workers (embedded scheduler, webhook relay, Temporal sweep); they need the use cases. */
export const lifecycleWorkers = (_storage: Storage) => Layer.empty
