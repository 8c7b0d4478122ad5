import { and, eq, sql } from "drizzle-orm"
import { Effect, Layer, Option } from "effect"
import { normalizeDiscountCode } from "../../core/booking/pricing.ts"
import { Discounts } from "../../core/ports/discounts.ts"
import { discountsTable } from "./tables/tenancy.ts"
import { read, SqlDatabase } from "./unit-of-work.ts"

export const DiscountsPostgres = Layer.effect(
  Discounts,
  Effect.gen(function* () {
    const database = yield* SqlDatabase
    return Discounts.of({
      byCode: (projectId, code) =>
        read(async (q) => {
          const [d] = await q
            .select()
            .from(discountsTable)
            .where(
              and(
                eq(discountsTable.projectId, projectId),
                sql`upper(${discountsTable.code}) = ${normalizeDiscountCode(code)}`,
                eq(discountsTable.active, true),
              ),
            )
          return d
            ? Option.some({ code: d.code, name: d.name, percentOff: d.percentOff ?? undefined, amountOff: d.amountOff ?? undefined })
            : Option.none()
        }).pipe(Effect.provideService(SqlDatabase, database)),
    })
  }),
)
