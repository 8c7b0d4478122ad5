import { Layer } from "effect"

/**
 * The payments stream's part of the layer graph (adapters/wiring/app-layer.ts): its stores for
 * each storage profile, and its use cases (which need only ports).
 */
export const paymentsStores = { postgres: Layer.empty, memory: Layer.empty }
export const paymentsUseCases = Layer.empty
