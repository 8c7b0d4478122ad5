/**
 * GET /meetings expands a recurring series into one row per occurrence, all with the master
 * `_id` (spec Meetings rule 7). Key rows on occurrenceEventId when present, else _id.
 */
export const rowKey = (row: {
  readonly _id: string
  readonly occurrenceEventId?: string | undefined
}): string => row.occurrenceEventId ?? row._id

/** Rows by their stable key; later rows with the same key replace earlier ones. */
export const keyRows = <
  R extends { readonly _id: string; readonly occurrenceEventId?: string | undefined },
>(
  rows: readonly R[],
): Map<string, R> => new Map(rows.map((r) => [rowKey(r), r]))
