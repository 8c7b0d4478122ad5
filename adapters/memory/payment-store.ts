import { Effect, Layer, Option } from "effect"
import { openedRecord, withStatus, type PaymentRecord } from "../../core/payment/records.ts"
import { invoiceNoOf } from "../../core/payment/rules.ts"
import { PaymentStore } from "../../core/ports/payment-store.ts"
import { MemoryDb, requireTx } from "./memory-db.ts"

/** Payments in the memory profile: records in insertion order (= oldest first), and the invoice sequence. */
interface PaymentsTable {
  readonly byId: ReadonlyMap<string, PaymentRecord>
  readonly sequence: number
}

export const PaymentStoreMemory = Layer.effect(
  PaymentStore,
  Effect.gen(function* () {
    const db = yield* MemoryDb
    const table = db.table<PaymentsTable>("payments", () => ({ byId: new Map(), sequence: 0 }))
    const all = () => [...table.get().byId.values()]
    const put = (p: PaymentRecord) =>
      table.update((t) => ({ ...t, byId: new Map(t.byId).set(p.id, p) }))
    const ofBooking = (bookingId: string) => all().filter((p) => p.bookingId === bookingId)
    return PaymentStore.of({
      nextInvoiceNo: (at, timeZone) =>
        Effect.gen(function* () {
          yield* requireTx("PaymentStore.nextInvoiceNo")
          const sequence = table.get().sequence + 1
          table.update((t) => ({ ...t, sequence }))
          return invoiceNoOf(sequence, at, timeZone)
        }),
      open: (p) =>
        Effect.gen(function* () {
          yield* requireTx("PaymentStore.open")
          if (ofBooking(p.bookingId).some((q) => q.status === "pending"))
            return yield* Effect.die(new Error(`booking ${p.bookingId} already has a pending payment`))
          const record = openedRecord(p)
          put(record)
          return record
        }),
      byId: (paymentId) => Effect.sync(() => Option.fromNullishOr(table.get().byId.get(paymentId))),
      byBookings: (bookingIds) =>
        Effect.sync(() => {
          const wanted = new Set(bookingIds)
          const out = new Map<string, PaymentRecord[]>()
          for (const p of all()) if (wanted.has(p.bookingId)) out.set(p.bookingId, [...(out.get(p.bookingId) ?? []), p])
          return out
        }),
      pendingOf: (bookingId) =>
        Effect.sync(() => Option.fromNullishOr(ofBooking(bookingId).find((p) => p.status === "pending"))),
      lockById: (paymentId) =>
        Effect.gen(function* () {
          yield* requireTx("PaymentStore.lockById")
          return Option.fromNullishOr(table.get().byId.get(paymentId))
        }),
      lockOf: (bookingId) =>
        Effect.gen(function* () {
          yield* requireTx("PaymentStore.lockOf")
          return Option.fromNullishOr(ofBooking(bookingId).at(-1))
        }),
      setStatus: (payment, status, at) =>
        Effect.gen(function* () {
          yield* requireTx("PaymentStore.setStatus")
          const next = withStatus(payment, status, at)
          put(next)
          return next
        }),
      voidPending: (bookingId, at) =>
        Effect.gen(function* () {
          yield* requireTx("PaymentStore.voidPending")
          const voided = ofBooking(bookingId)
            .filter((p) => p.status === "pending")
            .map((p) => withStatus(p, "voided", at))
          voided.forEach(put)
          return voided
        }),
    })
  }),
)
