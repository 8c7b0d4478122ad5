import { and, eq, gt, isNull } from "drizzle-orm"
import type { Principal } from "../../core/auth/principal.ts"
import { Unauthenticated } from "../../core/shared/errors.ts"
import type { Queryable } from "../postgres/database.ts"
import { appProjectsTable, appsTable, tokensTable } from "../postgres/schema.ts"
import type { Services } from "../wiring/services.ts"
import { newOpaqueToken, sha256Hex, verifySecret } from "./secret-hash.ts"

/** The spec's TokenResponse: no envelope, no token_type. */
export interface TokenResponse {
  readonly access_token: string
  readonly expires_in: number
  readonly refresh_token?: string
  readonly refresh_token_expires_in?: number
}

const badCredentials = () => new Unauthenticated({ reason: "invalid client credentials" })

export type AppRow = typeof appsTable.$inferSelect

/** Verifies app_id/app_secret in constant time; unknown ids still pay the hashing cost. */
export const authenticateApp = async (s: Services, appId: string, appSecret: string): Promise<AppRow> => {
  const [app] = await s.database.db.select().from(appsTable).where(eq(appsTable.appId, appId)).limit(1)
  const ok = await verifySecret(appSecret, app?.secretHash ?? DUMMY_HASH)
  if (!app || !ok) throw badCredentials()
  return app
}
const DUMMY_HASH = "pbkdf2$100000$AAAAAAAAAAAAAAAAAAAAAA==$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA="

const insertToken = async (
  s: Services,
  q: Queryable,
  fields: { kind: "access" | "refresh"; appId: string; grant: string; subjectUserId?: string | undefined; projectId?: string | undefined; ttlSeconds: number },
): Promise<string> => {
  const token = newOpaqueToken()
  await q.insert(tokensTable).values({
    id: s.newId(),
    tokenHash: await sha256Hex(token),
    kind: fields.kind,
    appId: fields.appId,
    grant: fields.grant,
    subjectUserId: fields.subjectUserId ?? null,
    projectId: fields.projectId ?? null,
    expiresAt: new Date(s.clock.now() + fields.ttlSeconds * 1000),
    createdAt: new Date(s.clock.now()),
  })
  return token
}

export const issueAppTokenPair = async (s: Services, q: Queryable, appId: string): Promise<TokenResponse> => {
  const { accessTokenTtlSeconds: access, refreshTokenTtlSeconds: refresh } = s.config
  return {
    access_token: await insertToken(s, q, { kind: "access", appId, grant: "app_credentials", ttlSeconds: access }),
    expires_in: access,
    refresh_token: await insertToken(s, q, { kind: "refresh", appId, grant: "app_credentials", ttlSeconds: refresh }),
    refresh_token_expires_in: refresh,
  }
}

/** A member-scoped token: no refresh token (the spec: re-run act_as on expiry). */
export const issueDelegatedToken = async (
  s: Services,
  appId: string,
  subjectUserId: string,
  projectId: string,
): Promise<TokenResponse> => ({
  access_token: await insertToken(s, s.database.db, {
    kind: "access",
    appId,
    grant: "act_as",
    subjectUserId,
    projectId,
    ttlSeconds: s.config.actAsTokenTtlSeconds,
  }),
  expires_in: s.config.actAsTokenTtlSeconds,
})

/** Refresh rotates: the presented refresh token is revoked exactly once, a new pair is minted. */
export const refreshTokenPair = async (s: Services, refreshToken: string): Promise<TokenResponse> => {
  const hash = await sha256Hex(refreshToken)
  const now = new Date(s.clock.now())
  return s.database.db.transaction(async (tx) => {
    const [row] = await tx
      .update(tokensTable)
      .set({ revokedAt: now })
      .where(
        and(
          eq(tokensTable.tokenHash, hash),
          eq(tokensTable.kind, "refresh"),
          isNull(tokensTable.revokedAt),
          gt(tokensTable.expiresAt, now),
        ),
      )
      .returning({ appId: tokensTable.appId })
    if (!row) throw new Unauthenticated({ reason: "invalid or expired refresh token" })
    return issueAppTokenPair(s, tx, row.appId)
  })
}

/** What a bearer token resolves to, before the clock and scope rules. */
interface TokenFacts {
  readonly appId: string
  readonly kind: string
  readonly grant: string
  readonly subjectUserId: string | null
  readonly tokenProjectId: string | null
  readonly expiresAt: Date
  readonly revokedAt: Date | null
  readonly appKey: string | null
  readonly appProjects: ReadonlyArray<string>
}

const lookupToken = async (s: Services, hash: string): Promise<TokenFacts | undefined> => {
  const rows = await s.database.db
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
  const { projectId: _, ...facts } = first
  return { ...facts, appProjects: rows.flatMap((r) => (r.projectId ? [r.projectId] : [])) }
}

/**
 * Live access tokens by hash (never the token itself), with their app and its projects: the
 * lookup every authenticated request made. Bounded; an entry lives 60 s at most, and any
 * revocation, app or app-project change anywhere empties the cache before the next request
 * (postgres/cache-epoch.ts). Expiry is checked against the service clock on every use.
 */
const tokenCache = (s: Services) => s.caches.cache<string, TokenFacts>("tokens", { max: 10_000, ttlMs: 60_000 })

/** Resolves a bearer token to its principal, or throws Unauthenticated (401 SV002). */
export const authenticateBearer = async (s: Services, header: string | undefined): Promise<Principal> => {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header ?? "")
  if (!match?.[1]) throw new Unauthenticated({ reason: "missing bearer token" })
  const [hash] = await Promise.all([sha256Hex(match[1]), s.caches.sync()])
  // Only live access tokens are kept; anything else is looked up (and refused) each time.
  let looked: TokenFacts | undefined
  const first =
    (await tokenCache(s).getOrLoad(hash, async () => {
      looked = await lookupToken(s, hash)
      return looked?.kind === "access" && looked.revokedAt === null ? looked : undefined
    })) ?? looked
  if (!first || first.kind !== "access" || first.revokedAt !== null)
    throw new Unauthenticated({ reason: "invalid token" })
  if (first.expiresAt.getTime() <= s.clock.now()) throw new Unauthenticated({ reason: "token expired" })
  const appProjects = first.appProjects
  // A delegated token's authority is the member's scope intersected with the app's.
  const projectIds =
    first.grant === "act_as" && first.tokenProjectId
      ? appProjects.filter((p) => p === first.tokenProjectId)
      : [...appProjects]
  return {
    appId: first.appId,
    appKey: first.appKey,
    grant: first.grant === "act_as" ? "act_as" : "app_credentials",
    projectIds,
    subjectUserId: first.subjectUserId ?? undefined,
  }
}
