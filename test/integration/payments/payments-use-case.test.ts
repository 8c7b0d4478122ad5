import { Effect, Option } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { lapseUnpaid } from "../../../core/payment/lapse.ts"
import { Payments } from "../../../core/payment/payments.ts"
import { BookingStore } from "../../../core/ports/booking-store.ts"
import { PaymentStore } from "../../../core/ports/payment-store.ts"
import { UnitOfWork } from "../../../core/ports/unit-of-work.ts"
import { ENGINES } from "../../support/databases.ts"
import { startHarness, type Harness } from "../../support/harness.ts"
import { at, bookRoom, eventsOf, getMeeting, setUpPaymentsWorld, type PaymentsWorld } from "./payment-fixtures.ts"

/**
 * The payer's use cases run on the runtime's ports (no Promise code in between): a settle
 * within the window confirms the booking once; the window's lapse cancels it.
 */
describe.each(ENGINES)("Payments use case on %s", (engine) => {
  let h: Harness
  let w: PaymentsWorld
  beforeAll(async () => {
    h = await startHarness(engine, { KEYSPACE_MAX_UNPAID_HOLDS: "100" })
    w = await setUpPaymentsWorld(h)
  })
  afterAll(async () => h?.close())

  const settle = (paymentId: string, outcome: "paid" | "failed") =>
    h.booted.runtime.runPromise(Payments.use((p) => p.settle(paymentId, outcome)))

  it("paid within the window: payment paid, booking active, one BOOK; a second press is refused as paid", async () => {
    const m = await bookRoom(h, w, "lotus", "10:00", "11:00", 1)
    const r = await settle(m.payment.paymentId, "paid")
    expect(r).toMatchObject({ _tag: "Paid", bookingStatus: "active", payment: { status: "paid", settledAt: at("09:00") } })
    const got = await getMeeting(h, w, m._id)
    expect(got.status).toBe("active")
    expect(got.billingSummaries).toMatchObject([{ status: "paid" }])
    expect((await eventsOf(h, m._id)).map((e) => e.type)).toEqual(["ROOM_BOOK"])
    expect(await settle(m.payment.paymentId, "paid")).toMatchObject({ _tag: "Refused", reason: "paid" })
  })

  it("a decline fails the payment only; an unknown payment is NotFound", async () => {
    const m = await bookRoom(h, w, "lotus", "12:00", "13:00", 1)
    expect(await settle(m.payment.paymentId, "failed")).toMatchObject({ _tag: "Declined", payment: { status: "failed" } })
    expect((await getMeeting(h, w, m._id)).status).toBe("unpaid")
    expect(await settle("65a0000000000000000fffff", "paid")).toEqual({ _tag: "NotFound" })
  })

  it("the pay page's model shows the booking in the project's zone", async () => {
    const m = await bookRoom(h, w, "orchid", "14:00", "15:30", 1)
    const page = await h.booted.runtime.runPromise(Payments.use((p) => p.payPage(m.payment.paymentId)))
    expect(Option.getOrThrow(page)).toMatchObject({
      assetName: "Orchid",
      assetKind: "room",
      bookingStatus: "unpaid",
      when: "Tue 2030-01-08 14:00-15:30 (Asia/Bangkok)",
      lapsed: false,
    })
  })

  it("the lapse at the window's end cancels an unpaid create and expires its payment; before it, nothing", async () => {
    const m = await bookRoom(h, w, "lotus", "16:00", "17:00", 1)
    const lapse = (when: number) =>
      h.booted.runtime.runPromise(
        Effect.gen(function* () {
          const bookings = yield* BookingStore
          const payments = yield* PaymentStore
          const uow = yield* UnitOfWork
          return yield* uow.transaction(
            Effect.gen(function* () {
              const stored = Option.getOrThrow(yield* bookings.loadForUpdate(m._id)).stored
              return yield* lapseUnpaid({ bookings, payments }, stored, when, () => Effect.void)
            }),
          )
        }),
      )
    expect(await lapse(at("09:04"))).toEqual({ _tag: "Skipped", reason: "window still open" })
    expect(await lapse(at("09:05"))).toEqual({ _tag: "Cancelled", to: "cancelled" })
    const got = await getMeeting(h, w, m._id)
    expect(got.status).toBe("cancelled")
    expect(got.billingSummaries).toMatchObject([{ status: "expired" }])
    expect(got.histories.map((x: any) => x.action)).toEqual(["create", "payment-lapsed"])
    expect(await lapse(at("09:06"))).toEqual({ _tag: "Skipped", reason: "booking is cancelled" })
  })
})
