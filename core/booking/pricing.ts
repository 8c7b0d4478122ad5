import { addDays, localDateOf, startOfLocalDay } from "../shared/local-time.ts"

/**
 * Price of a paid room or desk booking. Money is integer satang (1/100 THB) inside, so sums
 * and caps are exact; the API's THB numbers (e.g. 150.5) exist only at the edges.
 *
 * Rule: the booking is split into day portions (by default consecutive 24-hour blocks from the
 * start; `subtotalMinorByDays` takes calendar-day portions from a caller that knows the
 * property's timezone). Each portion costs perHour prorated per minute, rounded half-up to the
 * satang, capped at perDay when perDay > 0. With perHour 0 and perDay > 0 a started portion
 * costs perDay. The price is the sum over portions.
 */

export interface ChargeRate {
  /** THB per hour. */
  readonly perHour: number
  /** THB per day; 0 means no daily cap (or no daily rate). */
  readonly perDay: number
}

export interface Discount {
  readonly code: string
  readonly name: string
  /** Percent of the subtotal, 0-100. */
  readonly percentOff?: number | undefined
  /** THB off. */
  readonly amountOff?: number | undefined
}

/** One line of Payment.summary.discounts; value is the amount taken off. */
export interface AppliedDiscount {
  readonly code: string
  readonly value: number
  readonly name: string
}

/** The Payment.summary shape, in THB. */
export interface PriceSummary {
  readonly subtotal: number
  readonly total: number
  readonly discounts: ReadonlyArray<AppliedDiscount>
}

/** The same summary in satang, for storage and arithmetic. */
export type PriceSummaryMinor = PriceSummary

const MINUTES_PER_DAY = 24 * 60

/**
 * THB -> satang. Rates carry at most two decimals, so x * 100 lies within float error of an
 * integer and rounding recovers it. Negative or non-finite amounts count as 0: a price is
 * never negative.
 */
export const toMinor = (thb: number): number =>
  Number.isFinite(thb) && thb > 0 ? Math.round(thb * 100) : 0

/** Satang -> THB, e.g. 15050 -> 150.5. */
export const fromMinor = (satang: number): number => satang / 100

/** A booking of this asset needs payment when any rate is non-zero. */
export const isPaid = (rate: ChargeRate): boolean =>
  toMinor(rate.perHour) > 0 || toMinor(rate.perDay) > 0

/** Integer half-up division for non-negative integers. */
const divHalfUp = (numerator: number, denominator: number): number =>
  Math.floor((2 * numerator + denominator) / (2 * denominator))

const portionMinor = (perHour: number, perDay: number, minutes: number): number => {
  if (minutes <= 0) return 0
  if (perHour === 0) return perDay
  const prorated = divHalfUp(perHour * minutes, 60)
  return perDay > 0 ? Math.min(prorated, perDay) : prorated
}

const wholeMinutes = (minutes: number): number =>
  Number.isFinite(minutes) && minutes > 0 ? Math.floor(minutes) : 0

/** Subtotal in satang for the given day portions (minutes each, e.g. per calendar day). */
export const subtotalMinorByDays = (
  rate: ChargeRate,
  minutesPerDay: ReadonlyArray<number>,
): number => {
  const perHour = toMinor(rate.perHour)
  const perDay = toMinor(rate.perDay)
  return minutesPerDay.reduce((sum, m) => sum + portionMinor(perHour, perDay, wholeMinutes(m)), 0)
}

/** Subtotal in satang for a duration, day portions being 24-hour blocks from the start. */
export const subtotalMinor = (rate: ChargeRate, durationMinutes: number): number => {
  const minutes = wholeMinutes(durationMinutes)
  const fullDays = Math.floor(minutes / MINUTES_PER_DAY)
  const portions = Array.from({ length: fullDays }, () => MINUTES_PER_DAY)
  portions.push(minutes - fullDays * MINUTES_PER_DAY)
  return subtotalMinorByDays(rate, portions)
}

/**
 * Applies discounts in order. A percentOff is taken of the subtotal (discounts do not
 * compound); a discount with both parts takes percent plus amount. Each value is capped at what
 * is left, so the values never sum above the subtotal and the total never goes negative.
 */
export const applyDiscounts = (
  subtotal: number,
  discounts: ReadonlyArray<Discount>,
): PriceSummaryMinor => {
  let left = subtotal
  const applied = discounts.map((d) => {
    const percent = Math.min(Math.max(d.percentOff ?? 0, 0), 100)
    const byPercent = divHalfUp(Math.round(subtotal * percent * 100), 10_000)
    const wanted = byPercent + toMinor(d.amountOff ?? 0)
    const value = Math.min(wanted, left)
    left -= value
    return { code: d.code, value, name: d.name }
  })
  return { subtotal, total: left, discounts: applied }
}

/** The Payment.summary of a booking, in THB. */
export const priceSummary = (
  rate: ChargeRate,
  durationMinutes: number,
  discounts: ReadonlyArray<Discount> = [],
): PriceSummary => {
  const minor = applyDiscounts(subtotalMinor(rate, durationMinutes), discounts)
  return {
    subtotal: fromMinor(minor.subtotal),
    total: fromMinor(minor.total),
    discounts: minor.discounts.map((d) => ({ ...d, value: fromMinor(d.value) })),
  }
}

/**
 * Minutes of [start, end) on each property-local calendar day: the day portions
 * `subtotalMinorByDays` prices (perDay caps each local day, not each 24-hour block).
 */
export const minutesPerLocalDay = (start: number, end: number, timeZone: string): number[] => {
  const out: number[] = []
  let cursor = start
  let date = localDateOf(start, timeZone)
  while (cursor < end) {
    date = addDays(date, 1)
    const nextMidnight = Math.min(startOfLocalDay(date, timeZone), end)
    out.push(Math.floor((nextMidnight - cursor) / 60_000))
    cursor = nextMidnight
  }
  return out
}

/** The Payment.summary (THB) of booking [start, end) in the property's zone, with the given discounts. */
export const priceOf = (
  rate: ChargeRate,
  start: number,
  end: number,
  timeZone: string,
  discounts: ReadonlyArray<Discount> = [],
): PriceSummary => {
  const minor = applyDiscounts(subtotalMinorByDays(rate, minutesPerLocalDay(start, end, timeZone)), discounts)
  return {
    subtotal: fromMinor(minor.subtotal),
    total: fromMinor(minor.total),
    discounts: minor.discounts.map((d) => ({ ...d, value: fromMinor(d.value) })),
  }
}

/**
 * The one form a discount code is looked up in: trimmed, upper case (codes match
 * case-insensitively; a pasted code with spaces around it still matches).
 */
export const normalizeDiscountCode = (code: string): string => code.trim().toUpperCase()
