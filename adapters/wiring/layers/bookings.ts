import { PinAttempts } from "../../../core/booking/pin-attempts.ts"
import { Effect, Layer } from "effect"
import { Assets } from "../../../core/booking/assets.ts"
import { Bookings } from "../../../core/booking/bookings.ts"
import { BookingLifecycle } from "../../../core/booking/lifecycle.ts"
import { Meetings } from "../../../core/booking/meeting-queries.ts"
import { BookingSettings } from "../../../core/ports/booking-settings.ts"
import { AppConfig } from "../../config/config.ts"
import { AssetStoreMemory } from "../../memory/asset-store.ts"
import { BookingStoreMemory } from "../../memory/booking-store.ts"
import { DirectoryMemory } from "../../memory/directory-store.ts"
import { DiscountsMemory } from "../../memory/discount-store.ts"
import { MeetingReadStoreMemory } from "../../memory/meeting-read-store.ts"
import { TickStoreMemory } from "../../memory/tick-store.ts"
import { AssetStorePostgres } from "../../postgres/asset-store.ts"
import { BookingStorePostgres } from "../../postgres/booking-store.ts"
import { DirectoryPostgres } from "../../postgres/directory-store.ts"
import { DiscountsPostgres } from "../../postgres/discount-store.ts"
import { MeetingReadStorePostgres } from "../../postgres/meeting-read-store.ts"

/**
 * The bookings stream's part of the layer graph (adapters/wiring/app-layer.ts): its stores for
 * each storage profile, and its use cases (which need only ports).
 */
export const bookingsStores = {
  postgres: Layer.mergeAll(
    AssetStorePostgres,
    BookingStorePostgres,
    DirectoryPostgres,
    DiscountsPostgres,
    MeetingReadStorePostgres,
  ),
  // The memory booking store writes a new booking's ticks through the tick store (its table is shared).
  memory: Layer.mergeAll(
    AssetStoreMemory,
    BookingStoreMemory.pipe(Layer.provide(TickStoreMemory)),
    DirectoryMemory,
    DiscountsMemory,
    MeetingReadStoreMemory,
  ),
}

/** The operator's booking settings, read from the configuration once. */
const bookingSettings = Layer.effect(
  BookingSettings,
  Effect.gen(function* () {
    const c = yield* AppConfig
    return BookingSettings.of({
      maxUnpaidHoldsPerOrganizer: c.maxUnpaidHoldsPerOrganizer,
      maxUnpaidHoldsPerApp: c.maxUnpaidHoldsPerApp,
      paymentWindowSeconds: c.paymentWindowSeconds,
    })
  }),
)

export const bookingsUseCases = Layer.mergeAll(
  Assets.layer,
  Meetings.layer,
  Layer.mergeAll(Bookings.layer, BookingLifecycle.layer).pipe(Layer.provide(Layer.mergeAll(bookingSettings, PinAttempts.layer))),
)
