import { Effect, Layer, Option } from "effect"
import { normalizeDiscountCode, type Discount } from "../../core/booking/pricing.ts"
import { Discounts } from "../../core/ports/discounts.ts"
import { MemoryDb, type MemoryDbShape } from "./memory-db.ts"

/** Active discounts by project id (the memory manifest writes them). */
export const discountsTable = (db: MemoryDbShape) =>
  db.table<ReadonlyMap<string, ReadonlyArray<Discount>>>("discounts", () => new Map())

export const DiscountsMemory = Layer.effect(
  Discounts,
  Effect.gen(function* () {
    const table = discountsTable(yield* MemoryDb)
    return Discounts.of({
      byCode: (projectId, code) =>
        Effect.sync(() =>
          Option.fromUndefinedOr(
            (table.get().get(projectId) ?? []).find((d) => d.code.toUpperCase() === normalizeDiscountCode(code)),
          ),
        ),
    })
  }),
)
