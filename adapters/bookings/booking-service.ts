import { Result } from "effect"
import { canSeeProject, type Principal } from "../../core/auth/principal.ts"
import { currentSlot, showPinTo } from "../../core/booking/meeting.ts"
import { NotFound, ValidationFailed } from "../../core/shared/errors.ts"
import { parseOffsetDateTime } from "../../core/shared/local-time.ts"
import { inArray } from "drizzle-orm"
import type { ListMeetingsQuery } from "../http/schemas/meeting-requests.ts"
import { findMeetingRows, historiesOf, loadBooking, type HistoryRow, type StoredBooking } from "../postgres/booking-repo.ts"
import type { Queryable } from "../postgres/database.ts"
import { roomsTable } from "../postgres/schema.ts"
import type { Services } from "../wiring/services.ts"
import { projectsById, requireProjectScope, type ProjectInfo } from "./asset-queries.ts"
import { meetingView, type MeetingView } from "./meeting-view.ts"
import { paymentsOf } from "../payments/payment-records.ts"
import type { PaymentRow } from "../postgres/tables/payments.ts"

/**
 * The meeting reads (GET /meetings, GET /meetings/{id}) until they move to core/booking
 * (stream S1b). The writes are the Bookings use case (core/booking/bookings.ts).
 */

/** Validated upstream; a failure here would be a programming error, so it throws plainly. */
const instant = (text: string): number => {
  const r = parseOffsetDateTime(text)
  if (Result.isFailure(r)) throw new ValidationFailed({ messages: [r.failure] })
  return r.success
}

const roomNames = async (q: Queryable, ids: ReadonlyArray<string>): Promise<Map<string, string>> => {
  if (ids.length === 0) return new Map()
  const rows = await q
    .select({ id: roomsTable.id, name: roomsTable.name })
    .from(roomsTable)
    .where(inArray(roomsTable.id, [...new Set(ids)]))
  return new Map(rows.map((r) => [r.id, r.name]))
}

/** The Meeting of one booking: a master shows its current occurrence (spec rule 7). */
export const renderMeeting = async (
  s: Services,
  principal: Principal | "operator",
  stored: StoredBooking,
  /** What the caller already holds (a create has just written or read all of it). */
  known: {
    readonly project?: ProjectInfo
    readonly assetName?: string | undefined
    readonly histories?: ReadonlyArray<HistoryRow>
    readonly payments?: ReadonlyArray<PaymentRow>
  } = {},
): Promise<MeetingView> => {
  const db = s.database.db
  const project = known.project ?? (await projectsById(db, [stored.row.projectId])).get(stored.row.projectId)
  const tz = project?.timezone ?? "UTC"
  const names =
    stored.row.assetKind !== "room"
      ? new Map<string, string>()
      : known.assetName !== undefined
        ? new Map([[stored.row.assetId, known.assetName]])
        : await roomNames(db, [stored.row.assetId])
  const histories = known.histories ?? (await historiesOf(db, [stored.row.id])).get(stored.row.id) ?? []
  const payments = known.payments ?? (await paymentsOf(db, [stored.row.id])).get(stored.row.id) ?? []
  return meetingView(stored.row, currentSlot(stored, tz, s.clock.now()), {
    timeZone: tz,
    assetName: names.get(stored.row.assetId),
    histories,
    payments,
    showPin: showPinTo(principal, stored.row),
  })
}

/** A booking inside the caller's projects; any other id is "not found" (no existence leak). */
const loadVisible = async (s: Services, principal: Principal | "operator", id: string): Promise<StoredBooking> => {
  const stored = await loadBooking(s.database.db, id)
  if (!stored || (principal !== "operator" && !canSeeProject(principal, stored.row.projectId)))
    throw new NotFound({ entity: "meeting", id })
  return stored
}

/** A visible booking with its asset, the project's timezone and the asset's configuration. */
export const getMeeting = async (s: Services, principal: Principal, id: string): Promise<MeetingView> =>
  renderMeeting(s, principal, await loadVisible(s, principal, id))

/** GET /meetings: one row per booking or per occurrence overlapping [from, to). */
export const listMeetings = async (s: Services, principal: Principal, q: ListMeetingsQuery) => {
  const from = instant(q.from)
  const to = instant(q.to)
  if (to < from) throw new ValidationFailed({ messages: ["to: must not be before from"] })
  if (q.projectId !== undefined) requireProjectScope(principal, q.projectId)
  const db = s.database.db
  const limit = q.limit === undefined ? s.config.defaultPageSize : Number(q.limit)
  const offset = q.offset === undefined ? 0 : Number(q.offset)
  const roomIds = q.meetingRoomId !== undefined || q.meetingRoomIds !== undefined
    ? [...(q.meetingRoomId === undefined ? [] : [q.meetingRoomId]), ...(q.meetingRoomIds ?? [])]
    : undefined
  const deskIds = q.deskId !== undefined || q.deskIds !== undefined
    ? [...(q.deskId === undefined ? [] : [q.deskId]), ...(q.deskIds ?? [])]
    : undefined
  const { rows, total } = await findMeetingRows(db, {
    projectIds: q.projectId !== undefined ? [q.projectId] : principal.projectIds,
    from,
    to,
    roomIds,
    deskIds,
    organizerId: q.organizerId,
    organizerEmails: q.organizerEmails,
    attendeeEmails: q.attendeeEmails,
    statuses: q.statuses,
    assetType: q.assetType,
    limit,
    offset,
  })
  const projects = await projectsById(db, rows.map((r) => r.booking.projectId))
  const names = await roomNames(db, rows.filter((r) => r.booking.assetKind === "room").map((r) => r.booking.assetId))
  const histories = await historiesOf(db, rows.map((r) => r.booking.id))
  const payments = await paymentsOf(db, rows.map((r) => r.booking.id))
  const data = rows.map(({ booking, slot }) =>
    meetingView(
      booking,
      slot,
      {
        timeZone: projects.get(booking.projectId)?.timezone ?? "UTC",
        assetName: names.get(booking.assetId),
        histories: histories.get(booking.id) ?? [],
        payments: payments.get(booking.id) ?? [],
        showPin: showPinTo(principal, booking),
      },
      { expanded: true },
    ),
  )
  return { data, meta: { limit, offset, total } }
}
