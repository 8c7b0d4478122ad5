import { Layer } from "effect"
import { Assets } from "../../../core/booking/assets.ts"
import { AssetStoreMemory } from "../../memory/asset-store.ts"
import { AssetStorePostgres } from "../../postgres/asset-store.ts"

/**
 * The bookings stream's part of the layer graph (adapters/wiring/app-layer.ts): its stores for
 * each storage profile, and its use cases (which need only ports).
 */
export const bookingsStores = {
  postgres: Layer.mergeAll(AssetStorePostgres),
  memory: Layer.mergeAll(AssetStoreMemory),
}
export const bookingsUseCases = Layer.mergeAll(Assets.layer)
