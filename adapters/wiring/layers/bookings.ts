import { Layer } from "effect"
import { Assets } from "../../../core/booking/assets.ts"
import { Meetings } from "../../../core/booking/meeting-queries.ts"
import { AssetStoreMemory } from "../../memory/asset-store.ts"
import { BookingStoreMemory } from "../../memory/booking-store.ts"
import { DirectoryMemory } from "../../memory/directory-store.ts"
import { MeetingReadStoreMemory } from "../../memory/meeting-read-store.ts"
import { AssetStorePostgres } from "../../postgres/asset-store.ts"
import { BookingStorePostgres } from "../../postgres/booking-store.ts"
import { DirectoryPostgres } from "../../postgres/directory-store.ts"
import { MeetingReadStorePostgres } from "../../postgres/meeting-read-store.ts"

/**
 * The bookings stream's part of the layer graph (adapters/wiring/app-layer.ts): its stores for
 * each storage profile, and its use cases (which need only ports).
 */
export const bookingsStores = {
  postgres: Layer.mergeAll(AssetStorePostgres, BookingStorePostgres, DirectoryPostgres, MeetingReadStorePostgres),
  memory: Layer.mergeAll(AssetStoreMemory, BookingStoreMemory, DirectoryMemory, MeetingReadStoreMemory),
}
export const bookingsUseCases = Layer.mergeAll(Assets.layer, Meetings.layer)
