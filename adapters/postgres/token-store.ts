import { and, eq, gt, inArray, isNull, sql } from "drizzle-orm"
import { Effect, Layer, Option } from "effect"
import type { AppRecord, TokenGrant } from "../../core/auth/records.ts"
import { Ids } from "../../core/ports/ids.ts"
import { TokenStore } from "../../core/ports/token-store.ts"
import { ReadsFreshFrom } from "../../core/ports/read-freshness.ts"
import { EpochCaches } from "./cache-epoch.ts"
import { execute, type Queryable, type Tx } from "./database.ts"
import { appProjectsTable, appsTable, tokensTable } from "./schema.ts"
import { read, SqlDatabase, write } from "./unit-of-work.ts"

const lookupToken = async (q: Queryable, hash: string): Promise<TokenGrant | undefined> => {
  const rows = await q
    .select({
      appId: tokensTable.appId,
      kind: tokensTable.kind,
      grant: tokensTable.grant,
      subjectUserId: tokensTable.subjectUserId,
      tokenProjectId: tokensTable.projectId,
      expiresAt: tokensTable.expiresAt,
      revokedAt: tokensTable.revokedAt,
      appKey: appsTable.key,
      projectId: appProjectsTable.projectId,
    })
    .from(tokensTable)
    .innerJoin(appsTable, eq(appsTable.id, tokensTable.appId))
    .leftJoin(appProjectsTable, eq(appProjectsTable.appId, tokensTable.appId))
    .where(eq(tokensTable.tokenHash, hash))
  const first = rows[0]
  if (!first) return undefined
  return {
    appId: first.appId,
    kind: first.kind,
    grant: first.grant,
    subjectUserId: first.subjectUserId,
    tokenProjectId: first.tokenProjectId,
    expiresAt: first.expiresAt.getTime(),
    revokedAt: first.revokedAt?.getTime() ?? null,
    appKey: first.appKey,
    appProjects: rows.flatMap((r) => (r.projectId ? [r.projectId] : [])),
  }
}

/**
 * Revokes an app's live refresh tokens: its secret was replaced (the rotate call or the
 * manifest). Each refresh mints a new refresh token, so one leaked would outlive the secret.
 */
export const revokeRefreshTokens = async (tx: Tx, appId: string, at: Date): Promise<void> => {
  await tx
    .update(tokensTable)
    .set({ revokedAt: at })
    .where(and(eq(tokensTable.appId, appId), eq(tokensTable.kind, "refresh"), isNull(tokensTable.revokedAt)))
}

/** Apps and tokens on PostgreSQL / PGlite. */
export const TokenStorePostgres = Layer.effect(
  TokenStore,
  Effect.gen(function* () {
    const database = yield* SqlDatabase
    const caches = yield* EpochCaches
    const ids = yield* Ids
    const r = <A>(f: (q: Queryable) => Promise<A>) => read(f).pipe(Effect.provideService(SqlDatabase, database))
    /**
     * Live access tokens by hash (never the token itself), with their app and its projects:
     * the lookup every authenticated request makes. Bounded; an entry lives 60 s at most, and
     * any revocation, app or app-project change anywhere empties the cache before the next
     * request (cache-epoch.ts). Expiry is checked against the service clock on every use.
     */
    const tokenCache = caches.cache<string, TokenGrant>("tokens", { max: 10_000, ttlMs: 60_000 })
    /** One sync (shared with concurrent requests) then the cache: no round trip on a hit. */
    const grantOf = async (hash: string, freshFrom: number | undefined): Promise<TokenGrant | undefined> => {
      await caches.sync(freshFrom)
      // Only live access tokens are kept; anything else is looked up (and refused) each time.
      let looked: TokenGrant | undefined
      const cached = await tokenCache.getOrLoad(hash, async () => {
        looked = await lookupToken(database.db, hash)
        return looked?.kind === "access" && looked.revokedAt === null ? looked : undefined
      })
      return cached ?? looked
    }
    return TokenStore.of({
      app: (appId) =>
        r(async (q) => {
          const [app] = await q.select().from(appsTable).where(eq(appsTable.appId, appId)).limit(1)
          return app
        }).pipe(
          Effect.map((app) =>
            Option.fromUndefinedOr(app).pipe(
              Option.map((a): AppRecord => ({ id: a.id, appId: a.appId, key: a.key, secretHash: a.secretHash, canActAs: a.canActAs })),
            ),
          ),
        ),
      insert: (t) =>
        r(async (q) => {
          await q.insert(tokensTable).values({
            id: ids.newId(),
            tokenHash: t.hash,
            kind: t.kind,
            appId: t.appId,
            grant: t.grant,
            subjectUserId: t.subjectUserId ?? null,
            projectId: t.projectId ?? null,
            expiresAt: new Date(t.expiresAt),
            createdAt: new Date(t.createdAt),
          })
        }),
      holdSecret: (appId, secretHash) =>
        write("TokenStore.holdSecret", async (tx) => {
          const [app] = await tx.select({ secretHash: appsTable.secretHash }).from(appsTable).where(eq(appsTable.id, appId)).for("share")
          return app?.secretHash === secretHash
        }),
      grantOf: (hash) =>
        Effect.gen(function* () {
          const freshFrom = yield* ReadsFreshFrom
          return Option.fromUndefinedOr(yield* Effect.promise(() => grantOf(hash, freshFrom)))
        }),
      freshFor: (freshFrom) => caches.sync(freshFrom),
      heldGrant: (hash) => tokenCache.get(hash),
      rotateRefresh: (hash, now) =>
        write("TokenStore.rotateRefresh", async (tx) => {
          const at = new Date(now)
          // The app's row first, shared: a secret rotation (which updates that row, then revokes
          // the refresh tokens) either waits for this refresh to commit and then revokes the
          // token it mints, or commits first and this refresh finds its token revoked. Without
          // it a refresh beside a rotation kept a live chain (the review's race, 9 of 15 runs).
          await execute(
            tx,
            sql`select 1 from ${appsTable} a join ${tokensTable} t on t.app_id = a.id where t.token_hash = ${hash} for share of a`,
          )
          const [row] = await tx
            .update(tokensTable)
            .set({ revokedAt: at })
            .where(
              and(
                eq(tokensTable.tokenHash, hash),
                eq(tokensTable.kind, "refresh"),
                isNull(tokensTable.revokedAt),
                gt(tokensTable.expiresAt, at),
              ),
            )
            .returning({ appId: tokensTable.appId })
          return row
        }).pipe(Effect.map(Option.fromUndefinedOr)),
      revokeDelegated: (projectId, userId, now) =>
        write("TokenStore.revokeDelegated", async (tx) => {
          await tx
            .update(tokensTable)
            .set({ revokedAt: new Date(now) })
            .where(
              and(
                inArray(
                  tokensTable.appId,
                  tx.select({ appId: appProjectsTable.appId }).from(appProjectsTable).where(eq(appProjectsTable.projectId, projectId)),
                ),
                eq(tokensTable.subjectUserId, userId),
                eq(tokensTable.grant, "act_as"),
                isNull(tokensTable.revokedAt),
              ),
            )
        }),
      // The update of the apps row moves cache_epoch when it commits (a trigger), so every
      // process stops accepting the old secret before its next request. The app's refresh
      // tokens go with it, in the same transaction (a rare write: no index on app_id needed).
      setSecretHash: (appId, secretHash, now) =>
        write("TokenStore.setSecretHash", async (tx) => {
          const at = new Date(now)
          const [app] = await tx
            .update(appsTable)
            .set({ secretHash, updatedAt: at })
            .where(eq(appsTable.appId, appId))
            .returning({ id: appsTable.id })
          if (app === undefined) return false
          await revokeRefreshTokens(tx, app.id, at)
          return true
        }),
    })
  }),
)
