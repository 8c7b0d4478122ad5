import { and, eq, inArray, sql } from "drizzle-orm"
import { Result } from "effect"
import { actingUserId, canSeeProject, type Principal } from "../../core/auth/principal.ts"
import { resolveMeetingConfig, type AssetConfig } from "../../core/booking/asset-config.ts"
import {
  assetRuleViolations,
  resolveTimePeriod,
  unavailableReason,
  assetStatusViolations,
  type TimePeriod,
} from "../../core/booking/asset-rules.ts"
import { BookingRuleViolated } from "../../core/booking/errors.ts"
import { isPaid, type Discount, type PriceSummary } from "../../core/booking/pricing.ts"
import {
  currentOccurrence,
  expandOccurrences,
  formatRecurrenceRule,
  occurrenceEventId,
  parseRecurrenceRule,
  type Occurrence,
} from "../../core/booking/recurrence.ts"
import type { AssetKind, Attendee, Organizer } from "../../core/booking/state.ts"
import {
  createBooking,
  transition,
  type Actor,
  type BookingChanges,
  type BookingCommand,
} from "../../core/booking/transitions.ts"
import type { LifecycleSignal } from "../../core/ports/lifecycle-scheduler.ts"
import * as Interval from "../../core/shared/interval.ts"
import { NotFound, ValidationFailed } from "../../core/shared/errors.ts"
import {
  formatLocalDate,
  localDateOf,
  parseOffsetDateTime,
  startOfLocalDay,
} from "../../core/shared/local-time.ts"
import type {
  AttendeeInput,
  CreateMeetingRequest,
  ListMeetingsQuery,
  UpdateMeetingRequest,
} from "../http/schemas/meeting-requests.ts"
import {
  findMeetingRows,
  historiesOf,
  insertBooking,
  liveSlotsOverlapping,
  loadBooking,
  saveTransition,
  toCoreBooking,
  type HistoryRow,
  type SlotRow,
  type StoredBooking,
} from "../postgres/booking-repo.ts"
import type { Queryable } from "../postgres/database.ts"
import {
  appsTable,
  discountsTable,
  projectMembershipsTable,
  roomsTable,
  usersTable,
} from "../postgres/schema.ts"
import type { Services } from "../wiring/services.ts"
import { lifecycleCommitted, newBookingTicksInsert, scheduleStoredBooking } from "../scheduler/apply-tick.ts"
import { assetConfigOf, findAsset, findAssetCached, projectsById, requireProjectScope, type ProjectInfo } from "./asset-queries.ts"
import { meetingView, type MeetingView } from "./meeting-view.ts"
import { formatOffsetDateTime } from "../../core/shared/local-time.ts"
import { priceOf } from "../../core/booking/pricing.ts"
import { currentSlot, newPinCode, occurrenceIdOf, showPinTo } from "../../core/booking/meeting.ts"
import { displayName, isProjectAdmin, organizerOf } from "../postgres/directory-store.ts"
import { paymentsOf } from "../payments/payment-records.ts"
import type { PaymentRow } from "../postgres/tables/payments.ts"
import {
  assertUnpaidHoldAllowed,
  checkCancelPaymentId,
  extensionDiscounts,
  needsPayment,
  notifyGatewayVoided,
  openPayment,
  paidExtensionOf,
  voidPendingPayments,
} from "../payments/payment-service.ts"

/**
 * Booking use cases: every rule comes from core/booking (status machine, asset rules,
 * recurrence, pricing); this file loads, calls the core and persists in one transaction.
 * Double booking is refused by the database (booking_slots_no_overlap), never by a read.
 */

/** Validated upstream; a failure here would be a programming error, so it throws plainly. */
const instant = (text: string): number => {
  const r = parseOffsetDateTime(text)
  if (Result.isFailure(r)) throw new ValidationFailed({ messages: [r.failure] })
  return r.success
}

/**
 * organizerOf with the app's service identity cached per app (apps change only through the
 * manifest; see postgres/cache-epoch.ts). Members are read each time.
 */
const organizerFor = async (s: Services, principal: Principal): Promise<Organizer> =>
  principal.subjectUserId !== undefined
    ? organizerOf(s.database.db, principal)
    : (await s.caches
        .cache<string, Organizer>("app-organizers", { max: 1_000 })
        .getOrLoad(principal.appId, () => organizerOf(s.database.db, principal)))!

/** Attendees with known users resolved by id or (case-insensitive) email. */
const resolveAttendees = async (q: Queryable, inputs: ReadonlyArray<AttendeeInput>): Promise<Attendee[]> => {
  if (inputs.length === 0) return []
  const ids = inputs.flatMap((a) => (a.id ? [a.id] : []))
  const emails = inputs.map((a) => a.email.toLowerCase())
  const users = await q
    .select()
    .from(usersTable)
    .where(
      ids.length > 0
        ? sql`${inArray(usersTable.id, ids)} or ${inArray(usersTable.emailNorm, emails)}`
        : inArray(usersTable.emailNorm, emails),
    )
  const byId = new Map(users.map((u) => [u.id, u]))
  const byEmail = new Map(users.flatMap((u) => (u.emailNorm ? [[u.emailNorm, u] as const] : [])))
  const unknown = inputs.flatMap((a, i) => (a.id && !byId.has(a.id) ? [`attendees.${i}.id: no user has this id`] : []))
  if (unknown.length > 0) throw new ValidationFailed({ messages: unknown })
  return inputs.map((a) => {
    const user = a.id ? byId.get(a.id) : byEmail.get(a.email.toLowerCase())
    return {
      ...(user ? { userId: user.id, name: displayName(user).displayName } : {}),
      email: a.email,
      type: a.type ?? "required",
      responseStatus: "needsAction",
    }
  })
}

const discountsFor = async (q: Queryable, projectId: string, code: string | undefined): Promise<Discount[]> => {
  if (code === undefined || code === "") return []
  const [d] = await q
    .select()
    .from(discountsTable)
    .where(
      and(
        eq(discountsTable.projectId, projectId),
        sql`upper(${discountsTable.code}) = ${code.toUpperCase()}`,
        eq(discountsTable.active, true),
      ),
    )
  if (!d) throw new ValidationFailed({ messages: ["discountCode: unknown or inactive discount code"] })
  return [{ code: d.code, name: d.name, percentOff: d.percentOff ?? undefined, amountOff: d.amountOff ?? undefined }]
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
const loadForChange = async (s: Services, principal: Principal | "operator", id: string) => {
  const visible = await loadVisible(s, principal, id)
  const kind = visible.row.assetKind as AssetKind
  const asset = await findAsset(s.database.db, undefined, kind, visible.row.assetId)
  return { visible, kind, asset, tz: asset.project.timezone, config: assetConfigOf(asset.row.config) }
}

interface Candidate {
  readonly endDateTime: string
  readonly available: boolean
  /** When not available: SLOT_TAKEN, or OPERATING_HOURS / BREAK_TIME / BOOKING_RULES. */
  readonly unavailableReason?: string
  /** The Payment.summary this end would cost; `price` is the same object (kept for clients). */
  readonly summary: PriceSummary
  readonly price: PriceSummary
  /** What would be paid (summary.total). */
  readonly amount: number
  readonly violations: string[]
}

/** Whether any live booking other than `exceptBookingId` overlaps one of the intervals. */
const anyConflict = async (
  q: Queryable,
  assetId: string,
  intervals: ReadonlyArray<Interval.Interval>,
  exceptBookingId?: string,
): Promise<boolean> => {
  if (intervals.length === 0) return false
  const lo = Math.min(...intervals.map((i) => i.start))
  const hi = Math.max(...intervals.map((i) => i.end))
  const slots = (await liveSlotsOverlapping(q, [assetId], lo, hi)).filter((x) => x.bookingId !== exceptBookingId)
  return slots.some((x) =>
    intervals.some((i) => Interval.overlaps(i, Interval.make(x.startAt.getTime(), x.endAt.getTime()))),
  )
}

interface PreviewInput {
  readonly kind: AssetKind
  readonly assetId: string
  readonly assetName: string
  readonly project: ProjectInfo
  readonly config: AssetConfig | undefined
  readonly chargeRate: { perHour: number; perDay: number }
  readonly start: number
  readonly end: number
  readonly occurrences: ReadonlyArray<Occurrence>
  readonly discounts: ReadonlyArray<Discount>
  readonly draftEnds: ReadonlyArray<string>
  readonly exceptBookingId?: string | undefined
  readonly startUnchanged?: boolean
}

/**
 * The draft answer (spec rule 3 leaves it open): what create/update would do, with the price,
 * whether the slot is free now, and the same for each draftEndDateTimes candidate.
 */
const preview = async (s: Services, p: PreviewInput) => {
  const db = s.database.db
  const tz = p.project.timezone
  const now = s.clock.now()
  const paid = isPaid(p.chargeRate)
  const candidates: Candidate[] = []
  for (const text of p.draftEnds) {
    const end = instant(text)
    const violations = [...assetRuleViolations(p.config, tz, p.start, end, now, p.kind, { startUnchanged: p.startUnchanged ?? false })]
    // The asset's own rules first (as create reports them), then other bookings.
    const unavailable =
      violations.length > 0
        ? (unavailableReason(p.config, tz, p.start, end) ?? "BOOKING_RULES")
        : (await anyConflict(db, p.assetId, [Interval.make(p.start, end)], p.exceptBookingId))
          ? "SLOT_TAKEN"
          : undefined
    const price = end > p.start ? priceOf(p.chargeRate, p.start, end, tz, p.discounts) : priceOf(p.chargeRate, 0, 0, tz)
    candidates.push({
      endDateTime: formatOffsetDateTime(end, tz),
      available: unavailable === undefined,
      ...(unavailable === undefined ? {} : { unavailableReason: unavailable }),
      summary: price,
      price,
      amount: price.total,
      violations,
    })
  }
  const price = priceOf(p.chargeRate, p.start, p.end, tz, p.discounts)
  return {
    draft: true,
    ...(p.kind === "room" ? { meetingRoomId: p.assetId, meetingRoomName: p.assetName } : { deskId: p.assetId }),
    startDateTime: formatOffsetDateTime(p.start, tz),
    endDateTime: formatOffsetDateTime(p.end, tz),
    // A 100% discount leaves nothing to pay: such a create is active at once.
    status: paid && needsPayment(price) ? "unpaid" : "active",
    available: !(await anyConflict(db, p.assetId, p.occurrences, p.exceptBookingId)),
    summary: price,
    price,
    amount: price.total,
    ...(p.occurrences.length > 1 ? { occurrences: p.occurrences.length } : {}),
    ...(p.draftEnds.length > 0 ? { draftEndDateTimes: candidates } : {}),
  }
}

const timePeriodInterval = (
  config: AssetConfig | undefined,
  tz: string,
  start: number,
  period: TimePeriod,
): Interval.Interval => {
  const r = resolveTimePeriod(config, tz, start, period)
  if (Result.isFailure(r)) throw new BookingRuleViolated({ messages: [`timePeriod: ${r.failure}`] })
  return r.success
}

/** POST /meetings. Returns the created Meeting, or a draft preview (nothing written). */
export const createMeeting = async (
  s: Services,
  principal: Principal,
  req: CreateMeetingRequest,
): Promise<{ created: true; meeting: MeetingView } | { created: false; preview: unknown }> => {
  const now = s.clock.now()
  const db = s.database.db
  const kind: AssetKind = req.meetingRoomId !== undefined ? "room" : "desk"
  const assetId = (req.meetingRoomId ?? req.deskId)!
  const asset = await findAssetCached(s, principal, kind, assetId)
  const tz = asset.project.timezone
  const config = assetConfigOf(asset.row.config)
  const paid = isPaid(asset.row.chargeRate)

  const requestedStart = instant(req.startDateTime)
  const { start, end } =
    req.timePeriod !== undefined
      ? timePeriodInterval(config, tz, requestedStart, req.timePeriod)
      : { start: requestedStart, end: instant(req.endDateTime!) }

  const id = s.newId()
  let occurrences: Occurrence[] = [{ seriesMasterId: id, occurrenceEventId: occurrenceEventId(id, start), index: 0, start, end }]
  let rrule: string | undefined
  if (req.recurrence !== undefined) {
    const rule = parseRecurrenceRule(req.recurrence)
    if (Result.isFailure(rule)) throw new ValidationFailed({ messages: rule.failure.map((m) => `recurrence: ${m}`) })
    if (paid) throw new ValidationFailed({ messages: ["recurrence: recurring series are only for free rooms"] })
    rrule = formatRecurrenceRule(rule.success)
    occurrences = [
      ...expandOccurrences({ masterId: id, rule: rule.success, anchor: Interval.make(start, end), timeZone: tz }),
    ]
  }

  const violations = [...assetStatusViolations(kind, asset.row.status), ...assetRuleViolations(config, tz, start, end, now, kind)]
  for (const [i, o] of occurrences.entries()) {
    if (i === 0) continue
    const day = formatLocalDate(localDateOf(o.start, tz))
    // Later occurrences start after an accepted first one: lead time and advance window are
    // the first occurrence's; hours, breaks and duration hold for each.
    for (const m of assetRuleViolations(config, tz, o.start, o.end, now, kind, { startUnchanged: true }))
      violations.push(`recurrence: occurrence on ${day}: ${m}`)
    if (Interval.overlaps(occurrences[i - 1]!, o)) violations.push(`recurrence: occurrence on ${day} overlaps the previous one`)
  }
  if (violations.length > 0) throw new BookingRuleViolated({ messages: [...new Set(violations)] })

  const discounts = paid ? await discountsFor(db, asset.project.id, req.discountCode) : []
  const price = paid ? priceOf(asset.row.chargeRate, start, end, tz, discounts) : undefined
  // A 100% discount leaves nothing to pay: the booking is confirmed at once, like a free one.
  const payable = price !== undefined && needsPayment(price)
  if (req.draft === true)
    return {
      created: false,
      preview: await preview(s, {
        kind,
        assetId,
        assetName: asset.row.name,
        project: asset.project,
        config,
        chargeRate: asset.row.chargeRate,
        start,
        end,
        occurrences,
        discounts,
        draftEnds: req.draftEndDateTimes ?? [],
      }),
    }

  const organizer = await organizerFor(s, principal)
  const attendees = await resolveAttendees(db, req.attendees ?? [])
  const created = createBooking(
    {
      id,
      projectId: asset.project.id,
      assetKind: kind,
      assetId,
      title: req.title,
      ...(req.body === undefined ? {} : { body: req.body }),
      start,
      end,
      organizer,
      attendees,
      ...(req.estimatedAttendance === undefined ? {} : { estimatedAttendance: req.estimatedAttendance }),
      pinCode: newPinCode(),
      ...(rrule === undefined ? {} : { recurrence: { rrule, anchorStart: start, anchorEnd: end } }),
      paid: payable,
    },
    now,
  )
  if (Result.isFailure(created)) throw created.failure
  const meetingConfig = resolveMeetingConfig(config)
  const stored = await db.transaction(async (tx) => {
    if (payable)
      await assertUnpaidHoldAllowed(tx, s, {
        userId: organizer.userId,
        kind: organizer.userId === principal.appId ? "app" : "person",
      })
    // A booking that pays later needs its payment's expiry for its ticks; any other one's
    // ticks need nothing the inserts return and go out in the same round trip.
    const ticks = payable ? undefined : newBookingTicksInsert(s, tx, created.success.booking, occurrences, meetingConfig)
    const inserted = await insertBooking(tx, s.newId, created.success, occurrences, {
      timePeriod: req.timePeriod,
      // The spec's default channel applies to paid bookings; free ones never pay.
      paymentChannel: paid ? (req.paymentChannel ?? "prompt-pay") : req.paymentChannel,
      discountCode: req.discountCode,
      frontendRedirectUrl: req.frontendRedirectUrl,
      price,
      createdByAppId: principal.appId,
    }, ticks)
    // The payment first: its expiredAt is the unpaid-timeout tick's due time.
    if (payable && price !== undefined)
      await openPayment(tx, s, {
        booking: created.success.booking,
        kind: "create",
        summary: price,
        discountCode: discounts[0]?.code,
        channel: req.paymentChannel,
        frontendRedirectUrl: req.frontendRedirectUrl,
        timeZone: tz,
        assetName: asset.row.name,
        now,
      })
    // The asset's meetingConfig is in hand; a new booking has no ticks to replace.
    if (payable) await scheduleStoredBooking(s, tx, inserted, { meetingConfig, created: true })
    return inserted
  })
  await lifecycleCommitted(s, stored.row.id, "create")
  s.metrics.bookingStatusChanged("none", stored.row.status)
  // Rendered from what was just written; only a payment opened in the transaction is read back.
  const known = {
    project: asset.project,
    assetName: asset.row.name,
    histories: stored.histories,
    ...(payable ? {} : { payments: [] }),
  }
  return { created: true, meeting: await renderMeeting(s, principal, stored, known) }
}

/** PATCH /meetings/{id}: the core Update on the current occurrence, then asset rules. */
export const updateMeeting = async (
  s: Services,
  principal: Principal,
  id: string,
  req: UpdateMeetingRequest,
): Promise<{ updated: true; meeting: MeetingView } | { updated: false; preview: unknown }> => {
  const now = s.clock.now()
  const db = s.database.db
  const { visible, kind, asset, tz, config } = await loadForChange(s, principal, id)
  const timesRequested =
    req.startDateTime !== undefined || req.endDateTime !== undefined || req.timePeriod !== undefined
  if (kind === "room" && req.timePeriod !== undefined)
    throw new ValidationFailed({ messages: ["timePeriod: is only for desks"] })
  if (visible.row.rrule !== null && timesRequested)
    throw new ValidationFailed({
      messages: ["startDateTime, endDateTime: the times of a recurring series cannot be changed; cancel an occurrence or book a new series"],
    })
  const attendees = req.attendees === undefined ? undefined : await resolveAttendees(db, req.attendees)
  // An extension is priced with the PATCH's code, else the one the booking was made with.
  const discounts = isPaid(asset.row.chargeRate)
    ? await extensionDiscounts(db, asset.project.id, req.discountCode, visible.row.discountCode)
    : []

  const plan = (stored: StoredBooking) => {
    const slot = currentSlot(stored, tz, now)
    const current = toCoreBooking(stored.row, slot)
    let start = req.startDateTime === undefined ? undefined : instant(req.startDateTime)
    let end = req.endDateTime === undefined ? undefined : instant(req.endDateTime)
    let timePeriod: string | null | undefined
    if (req.timePeriod !== undefined) {
      // Without a new start the period is taken on the booking's current local day.
      const base = start ?? startOfLocalDay(localDateOf(current.start, tz), tz)
      const period = timePeriodInterval(config, tz, base, req.timePeriod)
      start = period.start
      end = period.end
      timePeriod = req.timePeriod
    } else if (start !== undefined || end !== undefined) {
      timePeriod = null
    }
    const changes: BookingChanges = {
      ...(req.title === undefined ? {} : { title: req.title }),
      ...(req.body === undefined ? {} : { body: req.body }),
      ...(start === undefined ? {} : { start }),
      ...(end === undefined ? {} : { end }),
      ...(attendees === undefined ? {} : { attendees }),
      ...(req.estimatedAttendance === undefined ? {} : { estimatedAttendance: req.estimatedAttendance }),
    }
    const actor: Actor = {
      userId: actingUserId(principal),
      isProjectAdmin: false,
      ...(req.pinCode === undefined ? {} : { pinCode: req.pinCode }),
    }
    const result = transition(current, { _tag: "Update", changes }, now, actor)
    if (Result.isFailure(result)) throw result.failure
    const next = result.success.booking
    const startUnchanged = next.start === current.start
    if (!startUnchanged || next.end !== current.end) {
      const violations = assetRuleViolations(config, tz, next.start, next.end, now, kind, { startUnchanged })
      if (violations.length > 0) throw new BookingRuleViolated({ messages: [...violations] })
    }
    return { slot, result: result.success, timePeriod, startUnchanged }
  }

  if (req.draft === true) {
    const p = plan(visible)
    const b = p.result.booking
    return {
      updated: false,
      preview: await preview(s, {
        kind,
        assetId: b.assetId,
        assetName: asset.row.name,
        project: asset.project,
        config,
        chargeRate: asset.row.chargeRate,
        start: b.start,
        end: b.end,
        occurrences: [{ seriesMasterId: id, occurrenceEventId: "", index: 0, start: b.start, end: b.end }],
        discounts,
        draftEnds: req.draftEndDateTimes ?? [],
        exceptBookingId: id,
        startUnchanged: p.startUnchanged,
      }),
    }
  }

  let statusChange: [string, string] = ["", ""]
  const saved = await db.transaction(async (tx) => {
    const stored = await loadBooking(tx, id, { lock: true })
    if (!stored) throw new NotFound({ entity: "meeting", id })
    const p = plan(stored)
    const changed = Object.keys(req).filter((k) => !["pinCode", "draft", "draftEndDateTimes"].includes(k)).sort()
    // Spec: extending a paid booking makes it unpaid, with a payment for the difference.
    const before = toCoreBooking(stored.row, p.slot)
    const extension = paidExtensionOf({ chargeRate: asset.row.chargeRate, timeZone: tz, discounts, before, updated: p.result })
    if (extension)
      await assertUnpaidHoldAllowed(tx, s, {
        userId: stored.row.organizerUserId,
        // An app organizes only the bookings it made as itself.
        kind: stored.row.organizerUserId === stored.row.createdByAppId ? "app" : "person",
      })
    const next = await saveTransition(tx, s.newId, stored, p.slot, extension?.result ?? p.result, {
      occurrenceEventId: occurrenceIdOf(stored, p.slot),
      timePeriod: p.timePeriod,
      historyData: { fields: changed },
      rowPatch: {
        ...(req.paymentChannel === undefined ? {} : { paymentChannel: req.paymentChannel }),
        ...(req.discountCode === undefined ? {} : { discountCode: req.discountCode }),
        ...(req.frontendRedirectUrl === undefined ? {} : { frontendRedirectUrl: req.frontendRedirectUrl }),
      },
    })
    if (extension)
      await openPayment(tx, s, {
        booking: extension.result.booking,
        kind: "extension",
        summary: extension.summary,
        discountCode: discounts[0]?.code,
        channel: req.paymentChannel ?? stored.row.paymentChannel,
        frontendRedirectUrl: req.frontendRedirectUrl ?? stored.row.frontendRedirectUrl,
        timeZone: tz,
        assetName: asset.row.name,
        origin: { start: before.start, end: before.end, status: before.status, timePeriod: stored.row.timePeriod },
        now,
      })
    await reschedule(s, tx, next, p.slot)
    statusChange = [p.slot.status, next.row.status]
    return next
  })
  await lifecycleCommitted(s, id, "update")
  if (statusChange[0] !== statusChange[1]) s.metrics.bookingStatusChanged(statusChange[0], statusChange[1])
  return { updated: true, meeting: await renderMeeting(s, principal, saved) }
}

export type MeetingAction = "Cancel" | "CheckIn" | "CheckOut" | "Reject"

const LIFECYCLE_SIGNAL = {
  Cancel: "cancel",
  CheckIn: "check-in",
  CheckOut: "check-out",
  // A reject ends the booking like a cancel: its pending ticks go.
  Reject: "cancel",
} as const satisfies Record<MeetingAction, LifecycleSignal>

/** The scheduler's ticks follow the changed occurrence (a series keeps the others' ticks). */
const reschedule = (s: Services, tx: Queryable, stored: StoredBooking, slot: SlotRow) =>
  scheduleStoredBooking(s, tx, stored, stored.row.rrule === null ? {} : { occurrenceIndexes: [slot.occurrenceIndex] })

/**
 * cancel, check-in, check-out (and the operator's reject) on the current occurrence, under a
 * row lock so two concurrent actions see each other's result.
 */
export const actOnMeeting = async (
  s: Services,
  principal: Principal | "operator",
  id: string,
  action: MeetingAction,
  body: { pinCode?: string | undefined; reason?: string | undefined; paymentId?: string | undefined } = {},
): Promise<MeetingView> => {
  const now = s.clock.now()
  const db = s.database.db
  const { visible, kind, asset, tz, config } = await loadForChange(s, principal, id)
  const actor: Actor =
    principal === "operator"
      ? { userId: "operator", isProjectAdmin: true }
      : {
          userId: actingUserId(principal),
          isProjectAdmin: action === "Cancel" ? await isProjectAdmin(db, principal, visible.row.projectId) : false,
          ...(body.pinCode === undefined ? {} : { pinCode: body.pinCode }),
        }
  const command: BookingCommand =
    action === "CheckIn"
      ? { _tag: "CheckIn", preStartMinutes: resolveMeetingConfig(config).preStartMinutes }
      : { _tag: action }
  let voided: PaymentRow[] = []
  let statusChange: [string, string] = ["", ""]
  const saved = await db.transaction(async (tx) => {
    const stored = await loadBooking(tx, id, { lock: true })
    if (!stored) throw new NotFound({ entity: "meeting", id })
    const slot = currentSlot(stored, tz, now)
    const result = transition(toCoreBooking(stored.row, slot), command, now, actor)
    if (Result.isFailure(result)) throw result.failure
    // Checked after authorization and state, so a stranger learns nothing about payments.
    if (action === "Cancel") await checkCancelPaymentId(tx, id, slot.status, body.paymentId)
    const next = await saveTransition(tx, s.newId, stored, slot, result.success, {
      occurrenceEventId: occurrenceIdOf(stored, slot),
      historyData: body.reason === undefined ? undefined : { reason: body.reason },
    })
    // Spec: cancel (and a reject) voids the pending payments.
    if (action === "Cancel" || action === "Reject") voided = await voidPendingPayments(tx, s, id, now)
    await reschedule(s, tx, next, slot)
    statusChange = [slot.status, result.success.booking.status]
    return next
  })
  await notifyGatewayVoided(s, voided)
  await lifecycleCommitted(s, id, LIFECYCLE_SIGNAL[action])
  s.metrics.bookingStatusChanged(statusChange[0], statusChange[1])
  return renderMeeting(s, principal, saved)
}
