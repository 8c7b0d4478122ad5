import { Context, Effect, Layer, Option } from "effect"
import { SubjectNotAuthorized, SubjectUnresolved } from "../member/errors.ts"
import { memberTransaction } from "../member/member-transaction.ts"
import { AuthSettings } from "../ports/auth-settings.ts"
import { Clock } from "../ports/clock.ts"
import { Ids } from "../ports/ids.ts"
import { MemberStore } from "../ports/member-store.ts"
import { Secrets } from "../ports/secrets.ts"
import { TokenStore } from "../ports/token-store.ts"
import { UnitOfWork } from "../ports/unit-of-work.ts"
import { Unauthenticated, ValidationFailed } from "../shared/errors.ts"
import { OBJECT_ID_PATTERN } from "../shared/ids.ts"
import type { Principal } from "./principal.ts"
import type { AppRecord, TokenGrant } from "./records.ts"

/** The spec's TokenResponse: no envelope, no token_type. */
export interface TokenResponse {
  readonly access_token: string
  readonly expires_in: number
  readonly refresh_token?: string
  readonly refresh_token_expires_in?: number
}

/** The act_as grant after decoding at the edge. */
export interface ActAsRequest {
  readonly appId: string
  readonly appSecret: string
  readonly subject: string
  readonly subjectType: "external_user_id" | "keyspace_member_id"
}

/** A hash no secret verifies against: unknown app ids still pay the hashing cost. */
const DUMMY_HASH = "pbkdf2$100000$AAAAAAAAAAAAAAAAAAAAAA==$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA="

const BEARER = /^Bearer\s+(\S+)\s*$/i

/**
 * The principal of a live access token at `now`, or why not. A delegated token's authority
 * is the member's scope intersected with the app's.
 */
export const principalOf = (grant: TokenGrant | undefined, now: number): Principal | Unauthenticated => {
  if (!grant || grant.kind !== "access" || grant.revokedAt !== null) return new Unauthenticated({ reason: "invalid token" })
  if (grant.expiresAt <= now) return new Unauthenticated({ reason: "token expired" })
  const projectIds =
    grant.grant === "act_as" && grant.tokenProjectId
      ? grant.appProjects.filter((p) => p === grant.tokenProjectId)
      : [...grant.appProjects]
  return {
    appId: grant.appId,
    appKey: grant.appKey,
    grant: grant.grant === "act_as" ? "act_as" : "app_credentials",
    projectIds,
    subjectUserId: grant.subjectUserId ?? undefined,
  }
}

/** Token grants (spec Authentication): app credentials, refresh, act_as, and bearer authentication. */
export class Tokens extends Context.Service<Tokens>()("keyspace/core/Tokens", {
  make: Effect.gen(function* () {
    const uow = yield* UnitOfWork
    const store = yield* TokenStore
    const members = yield* MemberStore
    const secrets = yield* Secrets
    const clock = yield* Clock
    const ids = yield* Ids
    const settings = yield* AuthSettings
    const inMemberTx = memberTransaction(uow)

    const mint = Effect.fnUntraced(function* (fields: {
      kind: "access" | "refresh"
      appId: string
      grant: string
      subjectUserId?: string
      projectId?: string
      ttlSeconds: number
    }) {
      const token = secrets.opaqueToken()
      const now = clock.now()
      yield* store.insert({
        hash: secrets.sha256(token),
        kind: fields.kind,
        appId: fields.appId,
        grant: fields.grant,
        subjectUserId: fields.subjectUserId,
        projectId: fields.projectId,
        expiresAt: now + fields.ttlSeconds * 1000,
        createdAt: now,
      })
      return token
    })

    const pairFor = Effect.fnUntraced(function* (appId: string) {
      const { accessTokenTtlSeconds: access, refreshTokenTtlSeconds: refresh } = settings
      const response: TokenResponse = {
        access_token: yield* mint({ kind: "access", appId, grant: "app_credentials", ttlSeconds: access }),
        expires_in: access,
        refresh_token: yield* mint({ kind: "refresh", appId, grant: "app_credentials", ttlSeconds: refresh }),
        refresh_token_expires_in: refresh,
      }
      return response
    })

    /** Verifies app_id/app_secret in constant time; unknown ids still pay the hashing cost. */
    const authenticateApp = Effect.fnUntraced(function* (appId: string, appSecret: string) {
      const app = Option.getOrUndefined(yield* store.app(appId))
      const ok = yield* secrets.verify(appSecret, app?.secretHash ?? DUMMY_HASH)
      if (!app || !ok) return yield* new Unauthenticated({ reason: "invalid client credentials" })
      return app
    })

    /**
     * grant_type app_credentials: an access and a refresh token. The secret is verified outside
     * the transaction (PBKDF2 takes milliseconds); the pair is minted only if that secret is
     * still the app's, with its row held: a rotation that commits meanwhile would otherwise miss
     * the refresh token, and a leaked secret's refresh chain would outlive it for ever.
     */
    const issueForApp = Effect.fn("Tokens.issueForApp")(function* (appId: string, appSecret: string) {
      const app = yield* authenticateApp(appId, appSecret)
      return yield* uow.transaction(
        Effect.gen(function* () {
          if (!(yield* store.holdSecret(app.id, app.secretHash)))
            return yield* new Unauthenticated({ reason: "invalid client credentials" })
          return yield* pairFor(app.id)
        }),
      )
    })

    /** Refresh rotates: the presented refresh token is revoked exactly once, a new pair is minted. */
    const refresh = Effect.fn("Tokens.refresh")(function* (refreshToken: string) {
      const hash = secrets.sha256(refreshToken)
      return yield* uow.transaction(
        Effect.gen(function* () {
          const rotated = yield* store.rotateRefresh(hash, clock.now())
          if (Option.isNone(rotated)) return yield* new Unauthenticated({ reason: "invalid or expired refresh token" })
          return yield* pairFor(rotated.value.appId)
        }),
      )
    })

    /** The hash the store keys a bearer token by, or the refusal of a header without one. */
    const bearerHash = (header: string | undefined): string | Unauthenticated => {
      const token = BEARER.exec(header ?? "")?.[1]
      return token ? secrets.sha256(token) : new Unauthenticated({ reason: "missing bearer token" })
    }

    /**
     * Resolves an Authorization header to its principal (401 SV002 otherwise). Untraced: it
     * runs before every request's use case, which carries the request's span.
     */
    const authenticate = Effect.fnUntraced(function* (header: string | undefined) {
      const hash = bearerHash(header)
      if (hash instanceof Unauthenticated) return yield* hash
      const grant = yield* store.grantOf(hash)
      const principal = principalOf(Option.getOrUndefined(grant), clock.now())
      return principal instanceof Unauthenticated ? yield* principal : principal
    })

    /**
     * The principal of each grant the store keeps, built once: a kept token's requests share one
     * read-only principal, and what the edge derives from it (a kept answer's caller key) is
     * derived once. A grant the store drops or replaces takes its entry with it.
     */
    const heldPrincipals = new WeakMap<TokenGrant, Principal>()

    /**
     * `authenticate` for a token whose grant the store keeps, without a fiber: the bearer
     * check of every request (an Effect run was a tenth of a cached read's cost). The principal
     * or the refusal `authenticate` would give, as fresh (`freshFrom`: when the request
     * arrived), or undefined when only `authenticate` can tell (a token not kept).
     */
    const authenticateHeld = async (
      header: string | undefined,
      freshFrom: number | undefined,
    ): Promise<Principal | Unauthenticated | undefined> => {
      const hash = bearerHash(header)
      if (hash instanceof Unauthenticated) return hash
      await store.freshFor(freshFrom)
      const grant = store.heldGrant(hash)
      if (grant === undefined) return undefined
      const now = clock.now()
      const held = heldPrincipals.get(grant)
      if (held !== undefined && grant.expiresAt > now) return held
      const principal = principalOf(grant, now)
      if (!(principal instanceof Unauthenticated)) heldPrincipals.set(grant, principal)
      return principal
    }

    /** An active member of the link's project, or the matching error. */
    const checkMember = Effect.fnUntraced(function* (
      subject: string,
      userId: string,
      projectId: string,
      projects: ReadonlyArray<string>,
    ) {
      if (!projects.includes(projectId))
        return yield* new SubjectNotAuthorized({ subject, reason: "member is outside the app's projects" })
      const membership = yield* members.membership(projectId, userId)
      if (Option.isNone(membership)) return yield* new SubjectUnresolved({ subject })
      if (membership.value.status !== "active")
        return yield* new SubjectNotAuthorized({ subject, reason: "member is offboarded" })
      return { userId, projectId }
    })

    /**
     * subject_type external_user_id: the app's own user id. The member is created on first use
     * as a federated visitor; only a single-project app can say which project that is.
     */
    const byExternalUserId = (app: AppRecord, projects: ReadonlyArray<string>, subject: string) => {
      const [projectId] = projects
      if (projects.length !== 1 || projectId === undefined)
        return Effect.fail(
          new SubjectNotAuthorized({
            subject,
            reason: "a multi-project app must act as an already linked member by keyspace_member_id",
          }),
        )
      return inMemberTx(
        Effect.gen(function* () {
          yield* members.lockExternal(app.id, subject)
          const link = yield* members.link(app.id, subject)
          if (Option.isSome(link)) return yield* checkMember(subject, link.value.userId, link.value.projectId, projects)
          const userId = ids.newId()
          // A federated visitor: no profile, no login, no access groups until PUT member onboards it.
          yield* members.insertUser({
            id: userId,
            profile: { firstName: "", lastName: "" },
            userType: "visitor",
            source: "federated",
          })
          yield* members.insertMembership({ projectId, userId, status: "active" })
          yield* members.insertLink({ appId: app.id, externalUserId: subject, userId, projectId })
          return { userId, projectId }
        }),
      )
    }

    /** subject_type keyspace_member_id: a member this app has already linked. */
    const byMemberId = Effect.fnUntraced(function* (app: AppRecord, projects: ReadonlyArray<string>, subject: string) {
      const user = OBJECT_ID_PATTERN.test(subject) ? yield* members.user(subject) : Option.none()
      if (Option.isNone(user)) return yield* new SubjectUnresolved({ subject })
      const link = yield* members.linkOfUser(app.id, user.value.id)
      if (Option.isNone(link)) return yield* new SubjectNotAuthorized({ subject, reason: "member is not linked to this app" })
      return yield* checkMember(subject, user.value.id, link.value.projectId, projects)
    })

    /**
     * act_as (spec Authentication 3 and 5): a short-lived token for one of the app's own
     * members, without refresh token. Bad app credentials 401 SV002; an app without canActAs,
     * a member of another app or outside the app's projects, an offboarded member, or a
     * multi-project app using external_user_id 403 SV221; an unknown member 401 SV223.
     */
    const actAs = Effect.fn("Tokens.actAs")(function* (request: ActAsRequest) {
      const app = yield* authenticateApp(request.appId, request.appSecret)
      const subject = request.subject
      if (/\p{Cc}/u.test(subject))
        return yield* new ValidationFailed({ messages: ["subject: must not contain control characters"] })
      if (!app.canActAs)
        return yield* new SubjectNotAuthorized({ subject, reason: "the app is not provisioned to act as its members" })
      const projects = yield* members.appProjects(app.id)
      const target =
        request.subjectType === "external_user_id"
          ? yield* byExternalUserId(app, projects, subject)
          : yield* byMemberId(app, projects, subject)
      const response: TokenResponse = {
        access_token: yield* mint({
          kind: "access",
          appId: app.id,
          grant: "act_as",
          subjectUserId: target.userId,
          projectId: target.projectId,
          ttlSeconds: settings.actAsTokenTtlSeconds,
        }),
        expires_in: settings.actAsTokenTtlSeconds,
      }
      return response
    })

    return { issueForApp, refresh, authenticate, authenticateHeld, actAs }
  }),
}) {
  static readonly layer = Layer.effect(Tokens, Tokens.make)
}
