import { Effect, type ManagedRuntime, Option } from "effect"
import type { StoredBooking } from "../../core/booking/meeting.ts"
import { lapseUnpaid, type LapseResult } from "../../core/payment/lapse.ts"
import { BookingStore } from "../../core/ports/booking-store.ts"
import { PaymentStore } from "../../core/ports/payment-store.ts"
import type { Queryable, Tx } from "../postgres/database.ts"
import { provideTx } from "../postgres/unit-of-work.ts"

/**
 * @deprecated bridge: the legacy scheduler's applyTick (adapters/scheduler/apply-tick.ts,
 * stream S2) calls this inside its Drizzle transaction; it runs core/payment/lapse.ts
 * `lapseUnpaid` on that transaction. BookingLifecycle.applyTick calls `lapseUnpaid` itself.
 */

export type { LapseResult }

export const lapseUnpaidBooking = (
  tx: Queryable,
  s: { readonly runtime: ManagedRuntime.ManagedRuntime<BookingStore | PaymentStore, never> },
  bookingId: string,
  at: number,
  reschedule: (tx: Queryable, saved: StoredBooking) => Promise<void>,
): Promise<LapseResult> =>
  s.runtime.runPromise(
    provideTx(
      tx as Tx,
      Effect.gen(function* () {
        const bookings = yield* BookingStore
        const payments = yield* PaymentStore
        const stored = yield* bookings.loadForUpdate(bookingId)
        if (Option.isNone(stored)) return { _tag: "Skipped", reason: "no such booking" } as const
        return yield* lapseUnpaid({ bookings, payments }, stored.value, at, (saved) =>
          Effect.promise(() => reschedule(tx, saved)),
        )
      }),
    ),
  )
