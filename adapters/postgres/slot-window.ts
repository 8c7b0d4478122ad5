import { and, gt, lt, sql, type SQL, type SQLWrapper } from "drizzle-orm"
import { bookingSlotsTable as slots } from "./tables/bookings.ts"

/*
 * The slots of a project overlapping a window [from, to), read as ranges of the start index
 * (booking_slots_project_start_idx) instead of everything that starts before `to` (which grows
 * with history) or everything that ends after `from` (which grows with the future bookings):
 *
 * - SHORT: a slot of at most LONG_SLOT that overlaps the window starts after from - LONG_SLOT
 *   (it ends after `from` and is no longer than LONG_SLOT), so the range (from - LONG_SLOT, to)
 *   holds every one of them, in start order: about the window's own slots.
 * - LONG: the slots longer than LONG_SLOT that start at or before from - LONG_SLOT, from their
 *   own partial index (booking_slots_project_long_idx, migration 0017): few (multi-day room
 *   bookings), and all of them start before every SHORT one.
 *
 * The two are disjoint and together exactly `start_at < to and end_at > from`. Both indexes
 * carry end_at, status and asset_id, so counts and busy sets are index-only scans.
 */

/** The length past which a slot is LONG; the partial index's predicate says the same. */
const LONG_SLOT = sql.raw(`interval '24 hours'`)

/** `value` as a timestamptz (parameters arrive as ISO text). */
const instant = (value: SQLWrapper): SQL => sql`${value}::timestamptz`

/** The two parts, as indexes into `overlapParts`. */
export const SHORT = 0
export const LONG = 1
export type SlotPart = typeof SHORT | typeof LONG

/** The conditions of each part for [from, to): [SHORT, LONG]. */
export const overlapParts = (from: SQLWrapper, to: SQLWrapper): readonly [SQL, SQL] => {
  const floor = sql`${instant(from)} - ${LONG_SLOT}`
  return [
    and(gt(slots.startAt, floor), lt(slots.startAt, instant(to)), gt(slots.endAt, instant(from)))!,
    and(
      sql`${slots.endAt} - ${slots.startAt} > ${LONG_SLOT}`,
      sql`${slots.startAt} <= ${floor}`,
      lt(slots.startAt, instant(to)),
      gt(slots.endAt, instant(from)),
    )!,
  ]
}

/**
 * A page of a window that is LONG rows first, then SHORT ones (the order of start_at), given
 * how many LONG rows the window has: where each part's page starts and how long it is.
 */
export const splitPage = (
  longTotal: number,
  limit: number,
  offset: number,
): { readonly long?: { limit: number; offset: number }; readonly short: { limit: number; offset: number } } => {
  const fromLong = Math.max(0, Math.min(limit, longTotal - offset))
  return {
    ...(fromLong > 0 ? { long: { limit: fromLong, offset } } : {}),
    short: { limit: limit - fromLong, offset: Math.max(0, offset - longTotal) },
  }
}

/**
 * A page (`limit` rows after `offset`, start order) of a window and its total, from the counts
 * of its parts and a reader of one part's page. The SHORT page is read beside the counts, which
 * is the whole answer when the window has no LONG slot (nearly always); otherwise both parts'
 * pages are read again as `splitPage` cuts them.
 */
export const windowPage = async <Row>(
  counts: Promise<{ readonly short: number; readonly long: number }>,
  page: (part: SlotPart, limit: number, offset: number) => Promise<ReadonlyArray<Row>>,
  limit: number,
  offset: number,
): Promise<{ rows: ReadonlyArray<Row>; total: number }> => {
  const [c, first] = await Promise.all([counts, limit === 0 ? Promise.resolve([]) : page(SHORT, limit, offset)])
  const total = c.short + c.long
  if (c.long === 0 || limit === 0) return { rows: first, total }
  const cut = splitPage(c.long, limit, offset)
  const [long, short] = await Promise.all([
    cut.long === undefined ? Promise.resolve([]) : page(LONG, cut.long.limit, cut.long.offset),
    cut.short.limit === 0 ? Promise.resolve([]) : page(SHORT, cut.short.limit, cut.short.offset),
  ])
  return { rows: [...long, ...short], total }
}
