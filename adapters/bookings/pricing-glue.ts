import {
  applyDiscounts,
  fromMinor,
  subtotalMinorByDays,
  type ChargeRate,
  type Discount,
  type PriceSummary,
} from "../../core/booking/pricing.ts"
import { addDays, localDateOf, startOfLocalDay } from "../../core/shared/local-time.ts"

/**
 * Minutes of [start, end) on each property-local calendar day: the day portions
 * core/booking/pricing.ts prices (perDay caps each local day, not each 24-hour block).
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

/** The Payment.summary (THB) of booking [start, end) with the given discounts. */
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
