import type { Principal } from "../auth/principal.ts"
import { currentSlotOf, showsPin } from "./meeting-records.ts"
import type { PriceSummary } from "./pricing.ts"
import type { TimelineBooking } from "./timeline.ts"
import { occurrenceEventId, type Occurrence } from "./recurrence.ts"
import type { AssetKind, Attendee, Booking, BookingStatus, CheckIn, Organizer } from "./state.ts"

/**
 * A stored meeting as the stores hand it over: the booking record (shared fields of a single
 * booking or a series master), its slots (one, or one per occurrence) and history records.
 * Field names and Date-valued times follow the tables, so a store returns its rows as they
 * are (no copy on the hot path) while no Drizzle type crosses a port.
 */
export interface BookingRecord {
  readonly id: string
  readonly projectId: string
  readonly assetKind: string
  readonly assetId: string
  readonly title: string
  readonly body: string | null
  readonly status: string
  readonly startAt: Date
  readonly endAt: Date
  readonly timePeriod: string | null
  readonly organizer: Organizer
  readonly organizerUserId: string
  readonly attendees: Attendee[]
  readonly estimatedAttendance: number | null
  readonly pinCode: string
  readonly checkIns: CheckIn[]
  readonly checkOutAt: Date | null
  readonly rrule: string | null
  readonly anchorStartAt: Date | null
  readonly anchorEndAt: Date | null
  readonly paymentChannel: string | null
  readonly discountCode: string | null
  readonly frontendRedirectUrl: string | null
  readonly price: PriceSummary | null
  readonly createdByAppId: string
  readonly createdAt: Date
  readonly updatedAt: Date
}

/** One occupied interval: a single booking's, or one occurrence of a series. */
export interface SlotRecord {
  readonly id: string
  readonly bookingId: string
  readonly projectId: string
  readonly assetId: string
  readonly occurrenceIndex: number
  readonly startAt: Date
  readonly endAt: Date
  readonly status: string
  readonly checkIns: CheckIn[]
  readonly checkOutAt: Date | null
  readonly createdAt: Date
  readonly updatedAt: Date
}

export interface HistoryRecord {
  readonly id: string
  readonly bookingId: string
  readonly action: string
  readonly at: Date
  readonly by: string | null
  readonly data: Record<string, unknown> | null
  readonly createdAt: Date
}

/** A booking with its occupied slots, in occurrence order. */
export interface StoredBooking {
  readonly row: BookingRecord
  readonly slots: ReadonlyArray<SlotRecord>
}

/** Fields of a booking record the core status machine does not model (payment hand-off, desk period). */
export interface BookingExtras {
  readonly timePeriod?: string | undefined
  readonly paymentChannel?: string | undefined
  readonly discountCode?: string | undefined
  readonly frontendRedirectUrl?: string | undefined
  readonly price?: PriceSummary | undefined
  readonly createdByAppId: string
}

/** The stored record of a booking just created (what both storage profiles write). */
export const newBookingRecord = (b: Booking, extras: BookingExtras): BookingRecord => ({
  id: b.id,
  projectId: b.projectId,
  assetKind: b.assetKind,
  assetId: b.assetId,
  title: b.title,
  body: b.body ?? null,
  status: b.status,
  startAt: new Date(b.start),
  endAt: new Date(b.end),
  timePeriod: extras.timePeriod ?? null,
  organizer: b.organizer,
  organizerUserId: b.organizer.userId,
  attendees: [...b.attendees],
  estimatedAttendance: b.estimatedAttendance ?? null,
  pinCode: b.pinCode,
  checkIns: [],
  checkOutAt: null,
  rrule: b.recurrence?.rrule ?? null,
  anchorStartAt: b.recurrence ? new Date(b.recurrence.anchorStart) : null,
  anchorEndAt: b.recurrence ? new Date(b.recurrence.anchorEnd) : null,
  paymentChannel: extras.paymentChannel ?? null,
  discountCode: extras.discountCode ?? null,
  frontendRedirectUrl: extras.frontendRedirectUrl ?? null,
  price: extras.price ?? null,
  createdByAppId: extras.createdByAppId,
  createdAt: new Date(b.createdAt),
  updatedAt: new Date(b.updatedAt),
})

/** The slot fields a transition of one occurrence sets (what both storage profiles write). */
export const transitionedSlotFields = (b: Booking) => ({
  status: b.status,
  startAt: new Date(b.start),
  endAt: new Date(b.end),
  checkIns: [...b.checkIns],
  checkOutAt: b.checkOutAt === undefined ? null : new Date(b.checkOutAt),
  updatedAt: new Date(b.updatedAt),
})

/** The booking row fields a transition sets: shared fields and a mirror of the occurrence (both storage profiles). */
export const transitionedRowFields = (b: Booking) => ({
  ...transitionedSlotFields(b),
  title: b.title,
  body: b.body ?? null,
  attendees: [...b.attendees],
  estimatedAttendance: b.estimatedAttendance ?? null,
})

/** The slot records of a booking just created, one per occurrence (what both storage profiles write). */
export const newSlotRecords = (newId: () => string, b: Booking, occurrences: ReadonlyArray<Occurrence>): SlotRecord[] =>
  occurrences.map((o) => ({
    id: newId(),
    bookingId: b.id,
    projectId: b.projectId,
    assetId: b.assetId,
    occurrenceIndex: o.index,
    startAt: new Date(o.start),
    endAt: new Date(o.end),
    status: b.status,
    checkIns: [],
    checkOutAt: null,
    createdAt: new Date(b.createdAt),
    updatedAt: new Date(b.updatedAt),
  }))

/** The core record of one occurrence (a single booking has exactly one). */
export const toCoreBooking = (row: BookingRecord, slot: SlotRecord): Booking => ({
  id: row.id,
  projectId: row.projectId,
  assetKind: row.assetKind as AssetKind,
  assetId: row.assetId,
  title: row.title,
  ...(row.body === null ? {} : { body: row.body }),
  status: slot.status as BookingStatus,
  start: slot.startAt.getTime(),
  end: slot.endAt.getTime(),
  organizer: row.organizer,
  attendees: row.attendees,
  ...(row.estimatedAttendance === null ? {} : { estimatedAttendance: row.estimatedAttendance }),
  pinCode: row.pinCode,
  checkIns: slot.checkIns,
  ...(slot.checkOutAt === null ? {} : { checkOutAt: slot.checkOutAt.getTime() }),
  ...(row.rrule === null || row.anchorStartAt === null || row.anchorEndAt === null
    ? {}
    : {
        recurrence: {
          rrule: row.rrule,
          anchorStart: row.anchorStartAt.getTime(),
          anchorEnd: row.anchorEndAt.getTime(),
        },
      }),
  createdAt: row.createdAt.getTime(),
  updatedAt: row.updatedAt.getTime(),
})

/** The occurrence a master shows and actions act on (spec rule 7: the first not yet ended). */
export const currentSlot = (stored: StoredBooking, timeZone: string, now: number): SlotRecord =>
  currentSlotOf(stored, timeZone, now)

/** The occurrence event id of a series' slot; undefined for a single booking. */
export const occurrenceIdOf = (stored: StoredBooking, slot: SlotRecord): string | undefined =>
  stored.row.rrule === null ? undefined : occurrenceEventId(stored.row.id, slot.startAt.getTime())

/** pinCode is a secret: the operator, the organizer and the app that booked (as itself) see it. */
export const showPinTo: (principal: Principal | "operator", row: BookingRecord) => boolean = showsPin

/**
 * A uniform 6-digit PIN, by rejection sampling (2^32 is not a multiple of 10^6). Web Crypto is
 * a global of every runtime Keyspace runs on (Node, Bun, Deno): no import, no port needed.
 */
export const newPinCode = (): string => {
  for (;;) {
    const n = nextRandomWord()
    if (n < PIN_LIMIT) return String(n % 1_000_000).padStart(6, "0")
  }
}

const PIN_LIMIT = Math.floor(0x1_0000_0000 / 1_000_000) * 1_000_000

/**
 * Random words drawn from a pool the CSPRNG fills 256 at a time: one getRandomValues call per
 * create was 3% of the server's CPU under load (each call crosses into the native RNG). Every
 * word is used once, so the PINs stay as unpredictable as per-call draws.
 */
const randomPool = new Uint32Array(256)
let randomNext = randomPool.length
const nextRandomWord = (): number => {
  if (randomNext === randomPool.length) {
    globalThis.crypto.getRandomValues(randomPool)
    randomNext = 0
  }
  const word = randomPool[randomNext]!
  randomPool[randomNext++] = 0
  return word
}

/** The lifecycle view of one occurrence; `paymentExpiresAt` is the pending payment's window end. */
export const timelineOf = (booking: Booking, paymentExpiresAt?: number | undefined): TimelineBooking => ({
  id: booking.id,
  status: booking.status,
  start: booking.start,
  end: booking.end,
  createdAt: booking.createdAt,
  paymentExpiresAt,
  checkedIn: booking.checkIns.length > 0,
})
