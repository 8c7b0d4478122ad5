import { Context, type Effect, type Option } from "effect"
import type { NewPayment, PaymentRecord } from "../payment/records.ts"
import type { PaymentStatus } from "./payments.ts"

/**
 * Payment rows. Methods marked "in tx" die with "<PaymentStore.method> outside a transaction"
 * when no unit of work is open. Lock order everywhere: the booking row first (BookingStore),
 * then its payments, so a payer pressing Pay while the window's tick fires serializes instead
 * of deadlocking.
 */
export class PaymentStore extends Context.Service<
  PaymentStore,
  {
    /** Next invoice number, `INV-<project-local yyyymmdd of at>-<6-digit sequence>`; in tx. */
    readonly nextInvoiceNo: (at: number, timeZone: string) => Effect.Effect<string>
    /** Writes a pending payment; in tx. Returns the record as written (no read-back). */
    readonly open: (p: NewPayment) => Effect.Effect<PaymentRecord>
    readonly byId: (paymentId: string) => Effect.Effect<Option.Option<PaymentRecord>>
    /** Payments of several bookings, oldest first, grouped by booking id (absent = none). */
    readonly byBookings: (
      bookingIds: ReadonlyArray<string>,
    ) => Effect.Effect<ReadonlyMap<string, ReadonlyArray<PaymentRecord>>>
    /** The booking's pending payment (at most one exists). */
    readonly pendingOf: (bookingId: string) => Effect.Effect<Option.Option<PaymentRecord>>
    /** One payment, row-locked; in tx. */
    readonly lockById: (paymentId: string) => Effect.Effect<Option.Option<PaymentRecord>>
    /** The booking's latest payment, row-locked; in tx (the lapse). */
    readonly lockOf: (bookingId: string) => Effect.Effect<Option.Option<PaymentRecord>>
    /** Moves a payment out of pending (every other status is final); in tx. Returns the record as written. */
    readonly setStatus: (payment: PaymentRecord, status: PaymentStatus, at: number) => Effect.Effect<PaymentRecord>
    /** Voids the booking's pending payments; in tx. Returns the voided records. */
    readonly voidPending: (bookingId: string, at: number) => Effect.Effect<ReadonlyArray<PaymentRecord>>
  }
>()("keyspace/ports/PaymentStore") {}
