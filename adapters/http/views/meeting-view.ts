import { occurrenceEventId } from "../../../core/booking/recurrence.ts"
import { formatOffsetDateTime } from "../../../core/shared/local-time.ts"
import type { MeetingShown } from "../../../core/booking/meeting-queries.ts"
import type {
  HistoryRecord as HistoryRow,
  MeetingRecord as BookingRow,
  PaymentRecord as PaymentRow,
  SlotRecord as SlotRow,
} from "../../../core/booking/meeting-records.ts"
import { paymentFields } from "../../../core/payment/billing.ts"
import { repeatedAnswers, sameEach, type PageMeta } from "../envelope.ts"

/**
 * The spec's Meeting resource. Booking times carry the project's UTC offset
 * (2030-01-07T10:00:00+07:00), so a client reads the property-local wall clock directly;
 * createdAt/updatedAt and history times are UTC instants.
 */

const iso = (d: Date | null): string | null => (d === null ? null : d.toISOString())

export interface MeetingViewContext {
  readonly timeZone: string
  /** Room name for meetingRoomName; desks have none in the spec. */
  readonly assetName?: string | undefined
  readonly histories: ReadonlyArray<HistoryRow>
  /** The booking's payments, oldest first: `payment` (while unpaid) and billingSummaries. */
  readonly payments?: ReadonlyArray<PaymentRow> | undefined
  /** pinCode is a secret: shown to the organizer (and the app that booked) only; so is the pay hand-off (payment). */
  readonly showPin: boolean
}

export const historyView = (h: HistoryRow) => ({
  action: h.action,
  at: h.at.toISOString(),
  ...(h.by === null ? {} : { by: h.by }),
  ...(h.data ?? {}),
})

/**
 * What reproduces a series from its rule alone: the first occurrence (RFC 5545 DTSTART and
 * DTEND) and the zone the rule is expanded in (TZID; occurrences keep the local time of day).
 * The master's startDateTime rolls forward, so it cannot serve as DTSTART.
 */
const seriesAnchor = (row: BookingRow, tz: string) =>
  row.anchorStartAt === null || row.anchorEndAt === null
    ? {}
    : {
        recurrenceStart: formatOffsetDateTime(row.anchorStartAt.getTime(), tz),
        recurrenceEnd: formatOffsetDateTime(row.anchorEndAt.getTime(), tz),
        recurrenceTimeZone: tz,
      }

/**
 * A booking as the API returns it. `slot` is the occurrence to show: for a single booking its
 * one slot; for a series master the current occurrence; for an expanded row (`expanded`) the
 * row's occurrence, which also adds seriesMasterId and occurrenceEventId (spec rules 7-8).
 */
export const meetingView = (
  row: BookingRow,
  slot: SlotRow,
  ctx: MeetingViewContext,
  options: { expanded?: boolean } = {},
) => {
  const tz = ctx.timeZone
  const isSeries = row.rrule !== null
  const assetField = row.assetKind === "room" ? { meetingRoomId: row.assetId } : { deskId: row.assetId }
  const checkIns = slot.checkIns
  return {
    _id: row.id,
    ...assetField,
    ...(row.assetKind === "room" ? { meetingRoomName: ctx.assetName ?? "" } : {}),
    projectId: row.projectId,
    title: row.title,
    body: row.body ?? "",
    status: slot.status,
    startDateTime: formatOffsetDateTime(slot.startAt.getTime(), tz),
    endDateTime: formatOffsetDateTime(slot.endAt.getTime(), tz),
    ...(row.timePeriod === null ? {} : { timePeriod: row.timePeriod }),
    ...(ctx.showPin ? { pinCode: row.pinCode } : {}),
    organizer: {
      userId: row.organizer.userId,
      email: row.organizer.email ?? null,
      name: row.organizer.name ?? null,
      displayName: row.organizer.displayName ?? row.organizer.name ?? null,
    },
    attendees: row.attendees.map((a) => ({
      userId: a.userId ?? null,
      email: a.email,
      name: a.name ?? a.email,
      type: a.type,
      responseStatus: a.responseStatus,
    })),
    ...(row.estimatedAttendance === null ? {} : { estimatedAttendance: row.estimatedAttendance }),
    ...paymentFields(ctx.payments ?? [], slot.status, ctx.showPin),
    histories: ctx.histories.map(historyView),
    checkInDateTime: checkIns.length === 0 ? null : formatOffsetDateTime(checkIns[0]!.at, tz),
    checkIns: checkIns.map((c) => ({ userId: c.userId, checkInDateTime: formatOffsetDateTime(c.at, tz) })),
    checkOutDateTime: slot.checkOutAt === null ? null : formatOffsetDateTime(slot.checkOutAt.getTime(), tz),
    ...(isSeries ? { recurrence: row.rrule, ...seriesAnchor(row, tz) } : {}),
    ...(isSeries && options.expanded
      ? { seriesMasterId: row.id, occurrenceEventId: occurrenceEventId(row.id, slot.startAt.getTime()) }
      : {}),
    createdAt: iso(row.createdAt),
    updatedAt: iso(slot.updatedAt > row.updatedAt ? slot.updatedAt : row.updatedAt),
  }
}

export type MeetingView = ReturnType<typeof meetingView>

/** The Meeting of what a read use case found (Meetings.get / Meetings.list rows). */
export const shownMeetingView = (m: MeetingShown): MeetingView =>
  meetingView(
    m.booking,
    m.slot,
    { timeZone: m.timeZone, assetName: m.assetName, histories: m.histories, payments: m.payments, showPin: m.showPin },
    { expanded: m.expanded },
  )

/**
 * A listing page's whole envelope as bytes, resent while the same key shows the very same
 * stored records (by identity: a `SnapshotMemo` hit hands back the same rows), zones, names and
 * pin visibility, and the same meta: exact, and a poll between commits costs no rendering.
 */
const lastPages = repeatedAnswers(
  sameEach<MeetingShown>(
    (x, y) =>
      x.booking === y.booking &&
      x.slot === y.slot &&
      x.histories === y.histories &&
      x.payments === y.payments &&
      x.timeZone === y.timeZone &&
      x.assetName === y.assetName &&
      x.showPin === y.showPin &&
      x.expanded === y.expanded,
  ),
)

export const meetingListingBytes = (key: string, data: ReadonlyArray<MeetingShown>, meta: PageMeta): Uint8Array =>
  lastPages.bytes(key, data, (d) => JSON.stringify(d.map(shownMeetingView)), meta)
