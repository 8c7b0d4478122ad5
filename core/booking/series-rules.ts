import { Result } from "effect"
import * as Interval from "../shared/interval.ts"
import { formatLocalDate, localDateOf } from "../shared/local-time.ts"
import type { AssetKind } from "./state.ts"
import type { AssetConfig } from "./asset-config.ts"
import { advanceWindowViolation, assetRuleViolations } from "./asset-rules.ts"
import {
  expandOccurrences,
  formatRecurrenceRule,
  MAX_OCCURRENCES,
  MAX_SERIES_DAYS,
  occurrenceEventId,
  parseRecurrenceRule,
  untilBeyondCaps,
  type Occurrence,
} from "./recurrence.ts"

/**
 * A create's occurrences: the booking alone, or the series its rule makes. A rule that is
 * malformed, on a paid asset, or past the caps (UNTIL past them, or a COUNT whose occurrences
 * run past the day cap: never stored as a COUNT the series does not have) leaves the booking
 * alone, with a message for each fault, reported with the times' rules (one 400).
 */
export const seriesOf = (input: {
  readonly masterId: string
  readonly recurrence: string | undefined
  readonly start: number
  readonly end: number
  readonly timeZone: string
  readonly paid: boolean
}): { readonly occurrences: ReadonlyArray<Occurrence>; readonly rrule?: string; readonly violations: ReadonlyArray<string> } => {
  const { masterId, start, end, timeZone } = input
  const alone = [{ seriesMasterId: masterId, occurrenceEventId: occurrenceEventId(masterId, start), index: 0, start, end }]
  if (input.recurrence === undefined) return { occurrences: alone, violations: [] }
  const rule = parseRecurrenceRule(input.recurrence)
  if (Result.isFailure(rule)) return { occurrences: alone, violations: rule.failure.map((m) => `recurrence: ${m}`) }
  const violations = input.paid ? ["recurrence: recurring series are only for free rooms"] : []
  if (untilBeyondCaps(rule.success, start, timeZone))
    return {
      occurrences: alone,
      violations: [...violations, `recurrence: UNTIL runs past the limit of ${MAX_OCCURRENCES} occurrences within ${MAX_SERIES_DAYS} days of the first`],
    }
  const expanded = expandOccurrences({ masterId, rule: rule.success, anchor: Interval.make(start, end), timeZone })
  const count = rule.success.count
  if (count !== undefined && expanded.length < count)
    return {
      occurrences: alone,
      violations: [
        ...violations,
        `recurrence: COUNT=${count} runs past the limit of ${MAX_SERIES_DAYS} days: ${expanded.length} occurrences start within ${MAX_SERIES_DAYS} days of the first`,
      ],
    }
  return { occurrences: expanded, rrule: formatRecurrenceRule(rule.success), violations }
}

/** Dates named in one message: the first three, then how many more. */
const listed = (days: ReadonlyArray<string>): string =>
  days.length <= 3 ? days.join(", ") : `${days.slice(0, 3).join(", ")} and ${days.length - 3} more`

/**
 * What the occurrences after a series' first break (the first is checked as a single booking,
 * and a rule it breaks is not named again for the rest). Later occurrences start after an
 * accepted first one, so the lead time holds; hours, breaks and duration hold for each, and so
 * does the advance window (spec rule 2: each occurrence is a booking starting then), named once
 * at the first occurrence beyond it. A rule several occurrences break is one message naming
 * their dates (a 366-day series past its room's hours is one message, not 365). One rule for a
 * create and for a draft's candidate ends.
 */
export const laterOccurrenceViolations = (
  config: AssetConfig | undefined,
  timeZone: string,
  occurrences: ReadonlyArray<Pick<Occurrence, "start" | "end">>,
  now: number,
  kind: AssetKind,
): string[] => {
  /** A rule as named for an occurrence: without the occurrence's own date (the message lists the dates). */
  const ruleOf = (message: string, day: string) => message.replaceAll(` ${day}`, "")
  const dayOf = (o: Pick<Occurrence, "start">) => formatLocalDate(localDateOf(o.start, timeZone))
  const first = occurrences[0]
  const firstBreaks = new Set(
    first === undefined ? [] : assetRuleViolations(config, timeZone, first.start, first.end, now, kind).map((m) => ruleOf(m, dayOf(first))),
  )
  // In order of first appearance: a rule with the dates that break it, or a finished message.
  const entries: Array<{ readonly rule: string; readonly days: string[] } | string> = []
  const byRule = new Map<string, string[]>()
  const broken = (rule: string, day: string) => {
    const days = byRule.get(rule)
    if (days !== undefined) return void days.push(day)
    const fresh = [day]
    byRule.set(rule, fresh)
    entries.push({ rule, days: fresh })
  }
  // A first occurrence beyond the advance window is named for the booking.
  let beyondAdvance = first !== undefined && advanceWindowViolation(config, timeZone, first.start, now) !== undefined
  for (const [i, o] of occurrences.entries()) {
    if (i === 0) continue
    const day = dayOf(o)
    for (const m of assetRuleViolations(config, timeZone, o.start, o.end, now, kind, { startUnchanged: true })) {
      const rule = ruleOf(m, day)
      if (!firstBreaks.has(rule)) broken(rule, day)
    }
    const ahead = beyondAdvance ? undefined : advanceWindowViolation(config, timeZone, o.start, now)
    if (ahead !== undefined) {
      beyondAdvance = true
      entries.push(`recurrence: occurrence on ${day} and later: ${ahead}`)
    }
    if (Interval.overlaps(occurrences[i - 1]!, o)) broken("overlaps the previous one", day)
  }
  return entries.map((e) =>
    typeof e === "string"
      ? e
      : e.days.length === 1
        ? `recurrence: occurrence on ${e.days[0]}: ${e.rule}`
        : `recurrence: occurrences on ${listed(e.days)}: ${e.rule}`,
  )
}
