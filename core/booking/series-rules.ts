import * as Interval from "../shared/interval.ts"
import { formatLocalDate, localDateOf } from "../shared/local-time.ts"
import type { AssetKind } from "./state.ts"
import type { AssetConfig } from "./asset-config.ts"
import { advanceWindowViolation, assetRuleViolations } from "./asset-rules.ts"
import type { Occurrence } from "./recurrence.ts"

/**
 * What the occurrences after a series' first break (the first is checked as a single booking).
 * Later occurrences start after an accepted first one, so the lead time holds; hours, breaks and
 * duration hold for each, and so does the advance window (spec rule 2: each occurrence is a
 * booking starting then), named once at the first occurrence beyond it. One rule for a create
 * and for a draft's candidate ends.
 */
export const laterOccurrenceViolations = (
  config: AssetConfig | undefined,
  timeZone: string,
  occurrences: ReadonlyArray<Pick<Occurrence, "start" | "end">>,
  now: number,
  kind: AssetKind,
): string[] => {
  const violations: string[] = []
  let beyondAdvance = false
  for (const [i, o] of occurrences.entries()) {
    if (i === 0) continue
    const day = formatLocalDate(localDateOf(o.start, timeZone))
    for (const m of assetRuleViolations(config, timeZone, o.start, o.end, now, kind, { startUnchanged: true }))
      violations.push(`recurrence: occurrence on ${day}: ${m}`)
    const ahead = beyondAdvance ? undefined : advanceWindowViolation(config, timeZone, o.start, now)
    if (ahead !== undefined) {
      beyondAdvance = true
      violations.push(`recurrence: occurrence on ${day} and later: ${ahead}`)
    }
    if (Interval.overlaps(occurrences[i - 1]!, o)) violations.push(`recurrence: occurrence on ${day} overlaps the previous one`)
  }
  return violations
}
