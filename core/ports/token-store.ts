import { Context, type Effect, type Option } from "effect"
import type { AppRecord, NewToken, TokenGrant } from "../auth/records.ts"

/** Apps and their tokens (hashes only). */
export class TokenStore extends Context.Service<
  TokenStore,
  {
    /** The app a token grant names by its app_id. */
    readonly app: (appId: string) => Effect.Effect<Option.Option<AppRecord>>
    readonly insert: (token: NewToken) => Effect.Effect<void>
    /**
     * In tx: takes the app's row (by its id), shared, as a secret rotation takes it to write, and
     * tells whether its secret hash is still `secretHash`. Tokens minted after it in the same
     * transaction were granted by the secret the app has when they commit.
     */
    readonly holdSecret: (appId: string, secretHash: string) => Effect.Effect<boolean>
    /**
     * The grant behind a token hash, current as of a read that starts now (every process's
     * caches follow any committed revocation or app change): the hot path of every request.
     */
    readonly grantOf: (hash: string) => Effect.Effect<Option.Option<TokenGrant>>
    /**
     * The bearer check's hot path without a fiber (Tokens.authenticateHeld): resolves once the
     * store's kept grants are as current as `grantOf` would be for a request that arrived at
     * `freshFrom` (`performance.now()`; a cache-epoch read sent after it has completed).
     */
    readonly freshFor: (freshFrom: number | undefined) => Promise<void>
    /** The grant of a hash the store keeps (after `freshFor`), or undefined: ask `grantOf`. */
    readonly heldGrant: (hash: string) => TokenGrant | undefined
    /** Revokes a live, unexpired refresh token exactly once; its app when it did (in tx). */
    readonly rotateRefresh: (hash: string, now: number) => Effect.Effect<Option.Option<{ readonly appId: string }>>
    /**
     * Withdraws the member's delegated (act_as) tokens that may act in this project: those of
     * every app scoped to it, not only the offboarding app's (in tx).
     */
    readonly revokeDelegated: (projectId: string, userId: string, now: number) => Effect.Effect<void>
    /** Replaces the app's secret hash; false when no app has this app_id. */
    readonly setSecretHash: (appId: string, secretHash: string, now: number) => Effect.Effect<boolean>
  }
>()("keyspace/ports/TokenStore") {}
