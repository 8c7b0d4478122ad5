import { Context, type Effect } from "effect"
import type { RateLimited } from "../shared/errors.ts"

/** The partner surface's per-app request budget, shared by every process on one database. */
export class RateLimiter extends Context.Service<
  RateLimiter,
  {
    /** Spends one request of the app's budget, or fails RateLimited (nothing spent). */
    readonly consume: (appId: string) => Effect.Effect<void, RateLimited>
  }
>()("keyspace/ports/RateLimiter") {}
