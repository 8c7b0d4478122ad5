import { Layer } from "effect"

/**
 * The members stream's part of the layer graph (adapters/wiring/app-layer.ts): its stores for
 * each storage profile, and its use cases (which need only ports).
 */
export const membersStores = { postgres: Layer.empty, memory: Layer.empty }
export const membersUseCases = Layer.empty
