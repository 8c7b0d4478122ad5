import { Cause, Effect, Exit, Layer, ManagedRuntime, Option } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { PaymentStoreMemory } from "../../../adapters/memory/payment-store.ts"
import { MemoryDb, UnitOfWorkMemory } from "../../../adapters/memory/memory-db.ts"
import type { NewPayment } from "../../../core/payment/records.ts"
import { PaymentStore } from "../../../core/ports/payment-store.ts"
import { UnitOfWork } from "../../../core/ports/unit-of-work.ts"
import { ENGINES } from "../../support/databases.ts"
import { startHarness, type Harness } from "../../support/harness.ts"
import { at, bookRoom, setUpPaymentsWorld } from "./payment-fixtures.ts"

/**
 * The PaymentStore port behaves alike on PostgreSQL/PGlite and in memory: records come back as
 * written, writes need a unit of work, a failed unit of work leaves nothing behind.
 */
type Run = <A, E>(effect: Effect.Effect<A, E, PaymentStore | UnitOfWork>) => Promise<Exit.Exit<A, E>>

let n = 0
const newPayment = (bookingId: string, invoiceNo: string): NewPayment => ({
  id: `65a0000000000000000${String(++n).padStart(5, "0")}`,
  bookingId,
  projectId: "65a000000000000000000001",
  invoiceNo,
  kind: "extension",
  amountMinor: 15050,
  summary: { subtotal: 150.5, total: 150.5, discounts: [] },
  discountCode: null,
  channel: "prompt-pay",
  expiresAt: at("09:05"),
  frontendRedirectUrl: "https://app.example/done",
  gateway: "sandbox",
  gatewayRef: null,
  webPaymentUrl: "http://localhost/pay/x",
  webPaymentQr: "data:image/png;base64,AAAA",
  origin: { start: at("10:00"), end: at("11:00"), status: "active", timePeriod: null },
  newStartAt: at("10:00"),
  newEndAt: at("12:00"),
  at: at("09:00"),
})

const contract = (label: string, setup: () => Promise<{ run: Run; bookingId: string; close: () => Promise<void> }>) =>
  describe(`PaymentStore on ${label}`, () => {
    let run: Run
    let bookingId: string
    let close = async () => {}
    beforeAll(async () => ({ run, bookingId, close } = await setup()))
    afterAll(() => close())

    const tx = <A, E>(f: (store: PaymentStore["Service"]) => Effect.Effect<A, E>) =>
      run(Effect.gen(function* () {
        const store = yield* PaymentStore
        const uow = yield* UnitOfWork
        return yield* uow.transaction(f(store))
      }))

    it("writes die outside a unit of work", async () => {
      const exit = await run(PaymentStore.use((s) => s.open(newPayment(bookingId, "INV-X-1"))))
      expect(Exit.isFailure(exit) && Cause.pretty(exit.cause)).toMatch(/PaymentStore.open outside a transaction/)
    })

    it("open returns the record as written; reads and locks see it; invoice numbers follow the project's local date", async () => {
      const before = await run(PaymentStore.use((s) => s.byBookings([bookingId])))
      const count = Exit.isSuccess(before) ? (before.value.get(bookingId)?.length ?? 0) : -1
      const opened = await tx((s) =>
        Effect.gen(function* () {
          const invoiceNo = yield* s.nextInvoiceNo(at("09:00"), "Asia/Bangkok")
          return yield* s.open(newPayment(bookingId, invoiceNo))
        }),
      )
      if (!Exit.isSuccess(opened)) throw new Error(String(opened.cause))
      const p = opened.value
      expect(p.invoiceNo).toMatch(/^INV-20300107-\d{6}$/)
      expect(p).toMatchObject({ status: "pending", settledAt: null, createdAt: at("09:00"), newStartAt: at("10:00"), newEndAt: at("12:00") })
      const got = await run(PaymentStore.use((s) => Effect.all([s.byId(p.id), s.pendingOf(bookingId), s.byBookings([bookingId, "65a0000000000000000fffff"])])))
      if (!Exit.isSuccess(got)) throw new Error(String(got.cause))
      const [byId, pending, grouped] = got.value
      expect(Option.getOrThrow(byId)).toEqual(p)
      expect(Option.getOrThrow(pending)).toEqual(p)
      expect(grouped.get(bookingId)).toHaveLength(count + 1)
      expect(grouped.get(bookingId)!.at(-1)).toEqual(p)
      expect(grouped.has("65a0000000000000000fffff")).toBe(false)
      const locked = await tx((s) => Effect.all([s.lockById(p.id), s.lockOf(bookingId)]))
      if (!Exit.isSuccess(locked)) throw new Error(String(locked.cause))
      expect(locked.value.map(Option.getOrThrow)).toEqual([p, p])
    })

    it("setStatus and voidPending return what they wrote; a failed unit of work leaves nothing", async () => {
      const pending = await run(PaymentStore.use((s) => s.pendingOf(bookingId)))
      if (!Exit.isSuccess(pending)) throw new Error(String(pending.cause))
      const p = Option.getOrThrow(pending.value)
      const failed = await tx((s) => Effect.flatMap(s.setStatus(p, "failed", at("09:01")), () => Effect.fail("no" as const)))
      expect(Exit.isFailure(failed)).toBe(true)
      const still = await run(PaymentStore.use((s) => s.byId(p.id)))
      expect(Exit.isSuccess(still) && Option.getOrThrow(still.value).status).toBe("pending")
      const voided = await tx((s) => s.voidPending(bookingId, at("09:02")))
      if (!Exit.isSuccess(voided)) throw new Error(String(voided.cause))
      expect(voided.value).toEqual([{ ...p, status: "voided", settledAt: at("09:02"), updatedAt: at("09:02") }])
      const after = await run(PaymentStore.use((s) => Effect.all([s.pendingOf(bookingId), s.byId(p.id)])))
      if (!Exit.isSuccess(after)) throw new Error(String(after.cause))
      expect(Option.isNone(after.value[0])).toBe(true)
      expect(Option.getOrThrow(after.value[1]).status).toBe("voided")
      const set = await tx((s) => s.setStatus(p, "paid", at("09:03")))
      expect(Exit.isSuccess(set) && set.value).toEqual({ ...p, status: "paid", settledAt: at("09:03"), updatedAt: at("09:03") })
    })
  })

for (const engine of ENGINES)
  contract(engine, async () => {
    const h: Harness = await startHarness(engine)
    const w = await setUpPaymentsWorld(h)
    // A free booking: no payment of its own yet.
    const m = await bookRoom(h, w, "free", "10:00", "11:00", 1)
    return { run: (e) => h.booted.runtime.runPromiseExit(e), bookingId: m._id, close: () => h.close() }
  })

contract("memory", async () => {
  const runtime = ManagedRuntime.make(
    Layer.mergeAll(PaymentStoreMemory, UnitOfWorkMemory).pipe(Layer.provide(MemoryDb.layer)),
  )
  return { run: (e) => runtime.runPromiseExit(e), bookingId: "65a0000000000000000b0001", close: () => runtime.dispose() }
})
