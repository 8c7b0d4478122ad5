/**
 * Compile-time proof that the error table is typed against the use cases' failures
 * (`npm run check` type-checks this file; it has no runtime part).
 */
import { Context, type Effect } from "effect"
import type { SlotTaken } from "../../core/booking/errors.ts"
import type { NotFound } from "../../core/shared/errors.ts"
import { errorTable, type RowsFor, type ServiceFailures } from "../../adapters/http/error-table.ts"

class Bookish extends Context.Service<
  Bookish,
  { readonly create: (id: string) => Effect.Effect<void, SlotTaken | NotFound> }
>()("test/Bookish") {}

type Failures = ServiceFailures<Bookish>

export const complete: RowsFor<Failures> = { SlotTaken: errorTable.SlotTaken, NotFound: errorTable.NotFound }

// @ts-expect-error a failure a use case declares, without a row, does not compile
export const missingRow: RowsFor<Failures> = { SlotTaken: errorTable.SlotTaken }

export const extraRow: RowsFor<Failures> = {
  SlotTaken: errorTable.SlotTaken,
  NotFound: errorTable.NotFound,
  // @ts-expect-error a row for a tag no use case raises does not compile
  StateConflict: errorTable.StateConflict,
}
