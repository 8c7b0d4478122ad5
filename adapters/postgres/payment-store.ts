import { and, asc, desc, eq, inArray, sql } from "drizzle-orm"
import { Effect, Layer, Option } from "effect"
import type { BookingStatus } from "../../core/booking/state.ts"
import { openedRecord, withStatus, type NewPayment, type PaymentRecord } from "../../core/payment/records.ts"
import { invoiceNoOf } from "../../core/payment/rules.ts"
import { PaymentStore } from "../../core/ports/payment-store.ts"
import type { PaymentKind, PaymentStatus } from "../../core/ports/payments.ts"
import { byBooking } from "./booking-repo.ts"
import { execute, type Queryable } from "./database.ts"
import { keptQuery, param, paramAs } from "./kept-query.ts"
import { paymentsTable, type PaymentRow } from "./tables/payments.ts"
import { read as readSql, SqlDatabase, write } from "./unit-of-work.ts"

/** Payment rows behind the PaymentStore port. */

export const toPaymentRecord = (p: PaymentRow): PaymentRecord => ({
  id: p.id,
  bookingId: p.bookingId,
  projectId: p.projectId,
  invoiceNo: p.invoiceNo,
  kind: p.kind as PaymentKind,
  amountMinor: p.amountMinor,
  summary: p.summary,
  discountCode: p.discountCode,
  channel: p.channel,
  status: p.status as PaymentStatus,
  expiresAt: p.expiredAt.getTime(),
  settledAt: p.settledAt?.getTime() ?? null,
  frontendRedirectUrl: p.frontendRedirectUrl,
  gateway: p.gateway,
  gatewayRef: p.gatewayRef,
  webPaymentUrl: p.webPaymentUrl,
  webPaymentQr: p.webPaymentQr,
  origin:
    p.kind === "extension" && p.previousStartAt && p.previousEndAt && p.previousStatus
      ? {
          start: p.previousStartAt.getTime(),
          end: p.previousEndAt.getTime(),
          status: p.previousStatus as BookingStatus,
          timePeriod: p.previousTimePeriod,
        }
      : undefined,
  newStartAt: p.newStartAt?.getTime() ?? null,
  newEndAt: p.newEndAt?.getTime() ?? null,
  createdAt: p.createdAt.getTime(),
  updatedAt: p.updatedAt.getTime(),
})

const rowOf = (p: NewPayment) => {
  const o = p.origin
  return {
    id: p.id,
    bookingId: p.bookingId,
    projectId: p.projectId,
    invoiceNo: p.invoiceNo,
    kind: p.kind,
    amountMinor: p.amountMinor,
    summary: p.summary,
    discountCode: p.discountCode,
    channel: p.channel,
    status: "pending",
    expiredAt: new Date(p.expiresAt),
    frontendRedirectUrl: p.frontendRedirectUrl,
    gateway: p.gateway,
    gatewayRef: p.gatewayRef,
    webPaymentUrl: p.webPaymentUrl,
    webPaymentQr: p.webPaymentQr,
    previousStartAt: o ? new Date(o.start) : null,
    previousEndAt: o ? new Date(o.end) : null,
    previousStatus: o ? o.status : null,
    previousTimePeriod: o ? o.timePeriod : null,
    newStartAt: p.newStartAt === null ? null : new Date(p.newStartAt),
    newEndAt: p.newEndAt === null ? null : new Date(p.newEndAt),
    createdAt: new Date(p.at),
    updatedAt: new Date(p.at),
  }
}

// --- statements (also the legacy Promise code's, until it is gone) ---------------------------

export const nextInvoiceSequence = async (tx: Queryable): Promise<string> => {
  const [row] = await execute<{ n: string | number }>(tx, sql`select nextval('payment_invoice_no_seq')::text as n`)
  return String(row!.n)
}

export const insertPayment = async (tx: Queryable, p: NewPayment): Promise<void> => {
  await tx.insert(paymentsTable).values(rowOf(p))
}

export const lockPaymentRow = async (tx: Queryable, paymentId: string): Promise<PaymentRow | undefined> => {
  const [row] = await tx.select().from(paymentsTable).where(eq(paymentsTable.id, paymentId)).for("update")
  return row
}

export const updatePaymentStatus = async (tx: Queryable, paymentId: string, status: PaymentStatus, at: number) =>
  tx
    .update(paymentsTable)
    .set({ status, settledAt: new Date(at), updatedAt: new Date(at) })
    .where(eq(paymentsTable.id, paymentId))

/** Payments of bookings (`ids`), oldest first. */
const paymentsOfBookings = keptQuery((q) =>
  q
    .select()
    .from(paymentsTable)
    .where(sql`${paymentsTable.bookingId} = any(${param("ids")}::text[])`)
    .orderBy(asc(paymentsTable.createdAt), asc(paymentsTable.id)),
)

/** Payments of several bookings, oldest first, grouped by booking id. */
export const paymentRecordsOf = async (q: Queryable, bookingIds: ReadonlyArray<string>): Promise<Map<string, PaymentRecord[]>> =>
  bookingIds.length === 0 ? new Map() : byBooking(await paymentsOfBookings(q, { ids: [...new Set(bookingIds)] }), toPaymentRecord)

/** The booking's latest payment, row-locked. */
export const latestPaymentRowForUpdate = async (tx: Queryable, bookingId: string): Promise<PaymentRow | undefined> => {
  const [row] = await tx
    .select()
    .from(paymentsTable)
    .where(eq(paymentsTable.bookingId, bookingId))
    .orderBy(desc(paymentsTable.createdAt), desc(paymentsTable.id))
    .limit(1)
    .for("update")
  return row
}

export const paymentRowById = async (q: Queryable, paymentId: string): Promise<PaymentRow | undefined> =>
  (await q.select().from(paymentsTable).where(eq(paymentsTable.id, paymentId)))[0]

const voidPending = keptQuery((q) =>
  q
    .update(paymentsTable)
    .set({ status: "voided", settledAt: paramAs<Date>("at"), updatedAt: paramAs<Date>("at") })
    .where(and(eq(paymentsTable.bookingId, param("bookingId")), eq(paymentsTable.status, "pending")))
    .returning(),
)

export const voidPendingRows = (tx: Queryable, bookingId: string, at: number): Promise<PaymentRow[]> =>
  voidPending(tx, { bookingId, at: new Date(at) })

const pendingOfBooking = keptQuery((q) =>
  q
    .select()
    .from(paymentsTable)
    .where(and(eq(paymentsTable.bookingId, param("bookingId")), eq(paymentsTable.status, "pending"))),
)

// --- the port --------------------------------------------------------------------------------

const optionOf = (row: PaymentRow | undefined): Option.Option<PaymentRecord> =>
  row === undefined ? Option.none() : Option.some(toPaymentRecord(row))

export const PaymentStorePostgres = Layer.effect(
  PaymentStore,
  Effect.gen(function* () {
  const database = yield* SqlDatabase
  // Reads run on the open transaction if any, else on the database resolved here once.
  const read = <A>(f: (q: Queryable) => Promise<A>) => Effect.provideService(readSql(f), SqlDatabase, database)
  return PaymentStore.of({
    nextInvoiceNo: (at, timeZone) =>
      write("PaymentStore.nextInvoiceNo", (tx) => nextInvoiceSequence(tx)).pipe(
        Effect.map((n) => invoiceNoOf(n, at, timeZone)),
      ),
    open: (p) => write("PaymentStore.open", (tx) => insertPayment(tx, p)).pipe(Effect.as(openedRecord(p))),
    byId: (paymentId) =>
      read(async (q) => optionOf(await paymentRowById(q, paymentId))),
    byBookings: (bookingIds) => read((q) => paymentRecordsOf(q, bookingIds)),
    pendingOf: (bookingId) => read(async (q) => optionOf((await pendingOfBooking(q, { bookingId }))[0])),
    lockById: (paymentId) => write("PaymentStore.lockById", async (tx) => optionOf(await lockPaymentRow(tx, paymentId))),
    lockOf: (bookingId) =>
      write("PaymentStore.lockOf", async (tx) => optionOf(await latestPaymentRowForUpdate(tx, bookingId))),
    setStatus: (payment, status, at) =>
      write("PaymentStore.setStatus", (tx) => updatePaymentStatus(tx, payment.id, status, at)).pipe(
        Effect.as(withStatus(payment, status, at)),
      ),
    voidPending: (bookingId, at) =>
      write("PaymentStore.voidPending", async (tx) => (await voidPendingRows(tx, bookingId, at)).map(toPaymentRecord)),
  })
  }),
)
