import { eq } from "drizzle-orm"
import { Effect, Layer } from "effect"
import { admit } from "../../core/auth/rate-limit.ts"
import { Clock } from "../../core/ports/clock.ts"
import { RateLimiter } from "../../core/ports/rate-limiter.ts"
import { RateLimited } from "../../core/shared/errors.ts"
import { AppConfig } from "../config/config.ts"
import { partnerRateLimitsTable } from "./schema.ts"
import { SqlDatabase } from "./unit-of-work.ts"

/**
 * Partner surface rate limit (spec Limits: 30 requests per 60 seconds per app, across all
 * partner member routes). The log lives in one row per app, read under a row lock in its own
 * short transaction, so every server process on one PostgreSQL shares the budget; instants
 * come from the service clock.
 */
export const RateLimiterPostgres = Layer.effect(
  RateLimiter,
  Effect.gen(function* () {
    const { db } = yield* SqlDatabase
    const clock = yield* Clock
    const { partnerRateLimit } = yield* AppConfig
    const consume = async (appId: string) => {
      const now = clock.now()
      return db.transaction(async (tx) => {
        await tx.insert(partnerRateLimitsTable).values({ appId, hits: [] }).onConflictDoNothing()
        const [row] = await tx
          .select()
          .from(partnerRateLimitsTable)
          .where(eq(partnerRateLimitsTable.appId, appId))
          .for("update")
        const decision = admit(row?.hits ?? [], now, partnerRateLimit)
        if (decision.admitted)
          await tx.update(partnerRateLimitsTable).set({ hits: decision.hits }).where(eq(partnerRateLimitsTable.appId, appId))
        return decision
      })
    }
    return RateLimiter.of({
      consume: (appId) =>
        Effect.promise(() => consume(appId)).pipe(
          Effect.flatMap((d) => (d.admitted ? Effect.void : Effect.fail(new RateLimited({ retryAfterSeconds: d.retryAfterSeconds })))),
        ),
    })
  }),
)
