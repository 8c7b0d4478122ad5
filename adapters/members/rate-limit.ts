import { eq } from "drizzle-orm"
import { RateLimited } from "../../core/shared/errors.ts"
import { partnerRateLimitsTable } from "../postgres/schema.ts"
import type { Services } from "../wiring/services.ts"

/**
 * Decides one request against a sliding log of the app's admitted requests. Pure, so the
 * window arithmetic is tested without a database. A refused request is not logged: a client
 * that backs off as told gets in when Retry-After says.
 */
export const admit = (
  hits: ReadonlyArray<number>,
  now: number,
  limit: { readonly requests: number; readonly windowSeconds: number },
): { admitted: true; hits: number[] } | { admitted: false; retryAfterSeconds: number } => {
  const windowMs = limit.windowSeconds * 1000
  const recent = hits.filter((t) => t > now - windowMs).sort((a, b) => a - b)
  if (recent.length < limit.requests) return { admitted: true, hits: [...recent, now] }
  // The next slot frees when the oldest hit that keeps the log full leaves the window.
  const frees = recent[recent.length - limit.requests]! + windowMs
  return { admitted: false, retryAfterSeconds: Math.max(1, Math.ceil((frees - now) / 1000)) }
}

/**
 * Partner surface rate limit (spec Limits: 30 requests per 60 seconds per app, across all
 * partner member routes). The log lives in one row per app, read under a row lock, so every
 * server process on one PostgreSQL shares the budget; instants come from the service clock.
 * Throws RateLimited (429 SV036 with Retry-After).
 */
export const consumePartnerBudget = async (s: Services, appId: string): Promise<void> => {
  const now = s.clock.now()
  const verdict = await s.database.db.transaction(async (tx) => {
    await tx.insert(partnerRateLimitsTable).values({ appId, hits: [] }).onConflictDoNothing()
    const [row] = await tx
      .select()
      .from(partnerRateLimitsTable)
      .where(eq(partnerRateLimitsTable.appId, appId))
      .for("update")
    const decision = admit(row?.hits ?? [], now, s.config.partnerRateLimit)
    if (decision.admitted)
      await tx
        .update(partnerRateLimitsTable)
        .set({ hits: decision.hits })
        .where(eq(partnerRateLimitsTable.appId, appId))
    return decision
  })
  if (!verdict.admitted) throw new RateLimited({ retryAfterSeconds: verdict.retryAfterSeconds })
}
