import { Layer } from "effect"

/**
 * The bookings stream's part of the layer graph (adapters/wiring/app-layer.ts): its stores for
 * each storage profile, and its use cases (which need only ports).
 */
export const bookingsStores = { postgres: Layer.empty, memory: Layer.empty }
export const bookingsUseCases = Layer.empty
