import { KeyspaceError } from "./errors.ts"
import type {
  ActAsGrant,
  CalendarQuery,
  CreateMeetingRequest,
  Desk,
  DeskDetail,
  Envelope,
  ListDesksQuery,
  ListMeetingsQuery,
  ListRoomsQuery,
  Meeting,
  MeetingActionRequest,
  MeetingRoom,
  MeetingRoomDetail,
  Page,
  PartnerCredentials,
  PartnerCredentialsRequest,
  PartnerMember,
  PartnerMemberDetail,
  PartnerMemberUpsertRequest,
  TokenResponse,
  UpdateMeetingRequest,
} from "./types.ts"

/**
 * Typed fetch client for Keyspace, with the spec's client guidance built in (Authentication 7,
 * Errors): refresh the token when expiry is within 5 minutes; on 401 re-authenticate once,
 * retry once, then propagate; retry only network failures, 5xx and 429, with exponential
 * backoff, at most 3 attempts; never auto-retry other 4xx. Web APIs only (fetch, setTimeout),
 * so it runs on Node >= 20, Bun, Deno and browsers.
 */

export type Credentials =
  | { readonly appId: string; readonly appSecret: string }
  /** act_as: a member-scoped token; it has no refresh token, so it is re-minted on expiry. */
  | {
      readonly appId: string
      readonly appSecret: string
      readonly actAs: {
        readonly subject: string
        readonly subjectType?: ActAsGrant["subject_type"]
      }
    }

export interface RetryPolicy {
  /** Total attempts including the first (spec: at most 3). */
  readonly attempts: number
  /** First backoff; doubles each attempt. */
  readonly baseDelayMs: number
  readonly maxDelayMs: number
}

export interface ClientOptions {
  /** Base address, e.g. "https://keyspace.example.com" (no trailing slash needed). */
  readonly baseUrl: string
  /** App credentials (server-side only: never ship app_secret to a browser). */
  readonly credentials?: Credentials
  /** A token you already hold (for example from your backend) when there are no credentials. */
  readonly accessToken?: string
  /** Operator token for the /admin/v1 calls. */
  readonly operatorToken?: string
  readonly fetch?: typeof fetch
  readonly retry?: Partial<RetryPolicy>
  /** Refresh this long before expiry (spec: 5 minutes). */
  readonly refreshBeforeExpiryMs?: number
  /** Clock and sleep, injectable for tests. */
  readonly now?: () => number
  readonly sleep?: (ms: number) => Promise<void>
  /** Per-attempt timeout. */
  readonly timeoutMs?: number
}

interface HeldToken {
  readonly accessToken: string
  readonly expiresAt: number
  readonly refreshToken?: string | undefined
  readonly refreshExpiresAt?: number | undefined
}

type Auth = "bearer" | "operator" | "none"

interface CallOptions {
  readonly query?: Readonly<Record<string, unknown>> | undefined
  readonly body?: unknown
  readonly auth?: Auth
  /**
   * POST /meetings has no idempotency key (spec Meetings rule 5): a create that may have reached
   * the server is never resent. Only 429 (refused before any work) is retried; otherwise the
   * error propagates and the caller reconciles through GET /meetings.
   */
  readonly idempotent?: boolean
}

const DEFAULT_RETRY: RetryPolicy = { attempts: 3, baseDelayMs: 200, maxDelayMs: 5_000 }
const FIVE_MINUTES = 5 * 60_000

const enc = encodeURIComponent

const queryString = (query: Readonly<Record<string, unknown>> | undefined): string => {
  if (!query) return ""
  const parts: string[] = []
  for (const [k, v] of Object.entries(query)) {
    if (v === undefined || v === null) continue
    // Arrays go as repeated keys, which every list endpoint accepts.
    for (const item of Array.isArray(v) ? v : [v]) parts.push(`${enc(k)}=${enc(String(item))}`)
  }
  return parts.length ? `?${parts.join("&")}` : ""
}

const messagesOf = (m: unknown): string[] =>
  Array.isArray(m) ? m.map(String) : typeof m === "string" ? [m] : []

export class KeyspaceClient {
  private readonly baseUrl: string
  private readonly doFetch: typeof fetch
  private readonly retryPolicy: RetryPolicy
  private readonly refreshBefore: number
  private readonly now: () => number
  private readonly sleep: (ms: number) => Promise<void>
  private token: HeldToken | undefined
  private pending: Promise<HeldToken> | undefined

  constructor(private readonly options: ClientOptions) {
    this.baseUrl = options.baseUrl.replace(/\/+$/, "")
    this.doFetch = options.fetch ?? ((input, init) => globalThis.fetch(input, init))
    this.retryPolicy = { ...DEFAULT_RETRY, ...options.retry }
    this.refreshBefore = options.refreshBeforeExpiryMs ?? FIVE_MINUTES
    this.now = options.now ?? (() => Date.now())
    this.sleep = options.sleep ?? ((ms) => new Promise((r) => setTimeout(r, ms)))
    if (options.accessToken)
      this.token = { accessToken: options.accessToken, expiresAt: Number.POSITIVE_INFINITY }
  }

  // --- transport -------------------------------------------------------------------------------

  /** Backoff before attempt n+1: base * 2^(n-1), at most maxDelay; 429 honours Retry-After. */
  private delay(attempt: number, retryAfter: string | null): number {
    const exp = Math.min(
      this.retryPolicy.maxDelayMs,
      this.retryPolicy.baseDelayMs * 2 ** (attempt - 1),
    )
    const seconds = retryAfter === null ? Number.NaN : Number(retryAfter)
    return Number.isFinite(seconds)
      ? Math.min(this.retryPolicy.maxDelayMs, Math.max(exp, seconds * 1000))
      : exp
  }

  /**
   * One logical request with the retry rule: network failures, 5xx and 429 are retried with
   * exponential backoff up to `attempts`; any other status is returned to the caller at once.
   */
  private async send(
    method: string,
    path: string,
    headers: Record<string, string>,
    body: string | undefined,
    idempotent: boolean,
  ): Promise<{ res: Response; attempts: number }> {
    const max = Math.max(1, this.retryPolicy.attempts)
    for (let attempt = 1; ; attempt++) {
      let res: Response
      try {
        res = await this.doFetch(`${this.baseUrl}${path}`, {
          method,
          headers,
          body,
          ...(this.options.timeoutMs
            ? { signal: AbortSignal.timeout(this.options.timeoutMs) }
            : {}),
        })
      } catch (cause) {
        if (!idempotent || attempt >= max)
          throw new KeyspaceError(
            0,
            "NETWORK",
            [String((cause as Error)?.message ?? cause)],
            undefined,
            undefined,
            attempt,
            { cause },
          )
        await this.sleep(this.delay(attempt, null))
        continue
      }
      const retryable = res.status === 429 || (res.status >= 500 && idempotent)
      if (!retryable || attempt >= max) return { res, attempts: attempt }
      await res.body?.cancel()
      await this.sleep(this.delay(attempt, res.headers.get("retry-after")))
    }
  }

  private async failure(res: Response, attempts: number): Promise<KeyspaceError> {
    const text = await res.text()
    let parsed: { code?: unknown; message?: unknown; data?: unknown } = {}
    try {
      parsed = JSON.parse(text) as typeof parsed
    } catch {
      parsed = { message: text.slice(0, 200) }
    }
    return new KeyspaceError(
      res.status,
      typeof parsed.code === "string" ? parsed.code : `HTTP${res.status}`,
      messagesOf(parsed.message),
      parsed.data,
      res.headers.get("x-request-id") ?? undefined,
      attempts,
    )
  }

  // --- tokens ----------------------------------------------------------------------------------

  private async tokenRequest(grant: Record<string, unknown>): Promise<HeldToken> {
    const requestedAt = this.now()
    const { res, attempts } = await this.send(
      "POST",
      "/auth/accessToken",
      { "content-type": "application/json", accept: "application/json" },
      JSON.stringify(grant),
      true,
    )
    if (res.status !== 201 && res.status !== 200) throw await this.failure(res, attempts)
    const t = (await res.json()) as TokenResponse
    return {
      accessToken: t.access_token,
      // Lifetimes come from the response, never hardcoded (spec Authentication 2).
      expiresAt: requestedAt + t.expires_in * 1000,
      refreshToken: t.refresh_token,
      refreshExpiresAt:
        t.refresh_token_expires_in === undefined
          ? undefined
          : requestedAt + t.refresh_token_expires_in * 1000,
    }
  }

  private authenticate(): Promise<HeldToken> {
    const c = this.options.credentials
    if (!c)
      throw new KeyspaceError(
        401,
        "SV002",
        ["no credentials to obtain a token with"],
        undefined,
        undefined,
        0,
      )
    if ("actAs" in c)
      return this.tokenRequest({
        grant_type: "act_as",
        app_id: c.appId,
        app_secret: c.appSecret,
        subject: c.actAs.subject,
        ...(c.actAs.subjectType ? { subject_type: c.actAs.subjectType } : {}),
      })
    return this.tokenRequest({
      grant_type: "app_credentials",
      app_id: c.appId,
      app_secret: c.appSecret,
    })
  }

  /** The newest pair is kept (spec Authentication 4); a refused refresh falls back to credentials. */
  private async renew(): Promise<HeldToken> {
    const held = this.token
    const now = this.now()
    if (
      held?.refreshToken &&
      (held.refreshExpiresAt === undefined || held.refreshExpiresAt > now)
    ) {
      try {
        return await this.tokenRequest({
          grant_type: "refresh_token",
          refresh_token: held.refreshToken,
        })
      } catch (e) {
        if (!(e instanceof KeyspaceError) || e.status !== 401 || !this.options.credentials) throw e
      }
    }
    return this.authenticate()
  }

  /** One token operation at a time: concurrent calls share it. */
  private single(op: () => Promise<HeldToken>): Promise<HeldToken> {
    this.pending ??= op()
      .then((t) => {
        this.token = t
        return t
      })
      .finally(() => {
        this.pending = undefined
      })
    return this.pending
  }

  /** A token valid for more than 5 more minutes, refreshing or re-authenticating as needed. */
  async accessToken(): Promise<string> {
    if (this.pending) return (await this.pending).accessToken
    const t = this.token
    if (t && t.expiresAt - this.now() > this.refreshBefore) return t.accessToken
    if (!this.options.credentials && t) return t.accessToken
    return (await this.single(() => (t ? this.renew() : this.authenticate()))).accessToken
  }

  // --- calls -----------------------------------------------------------------------------------

  /** Any endpoint, with the envelope unwrapped only by the typed methods. */
  async request<T>(
    method: string,
    path: string,
    call: CallOptions = {},
  ): Promise<{ status: number; body: T }> {
    const auth = call.auth ?? "bearer"
    const body = call.body === undefined ? undefined : JSON.stringify(call.body)
    const url = `${path}${queryString(call.query)}`
    const headersFor = (token: string | undefined): Record<string, string> => ({
      accept: "application/json",
      ...(body === undefined ? {} : { "content-type": "application/json" }),
      ...(token ? { authorization: `Bearer ${token}` } : {}),
    })
    const tokenFor = async () =>
      auth === "bearer"
        ? await this.accessToken()
        : auth === "operator"
          ? this.options.operatorToken
          : undefined
    const idempotent = call.idempotent ?? true
    let { res, attempts } = await this.send(
      method,
      url,
      headersFor(await tokenFor()),
      body,
      idempotent,
    )
    if (res.status === 401 && auth === "bearer" && this.options.credentials) {
      // Re-authenticate once with the credentials, retry once, then propagate.
      await res.body?.cancel()
      const fresh = await this.single(() => this.authenticate())
      ;({ res, attempts } = await this.send(
        method,
        url,
        headersFor(fresh.accessToken),
        body,
        idempotent,
      ))
    }
    if (res.status < 200 || res.status >= 300) throw await this.failure(res, attempts)
    if (res.status === 204) return { status: 204, body: undefined as T }
    return { status: res.status, body: (await res.json()) as T }
  }

  private async data<T>(method: string, path: string, call: CallOptions = {}): Promise<T> {
    return (await this.request<Envelope<T>>(method, path, call)).body.data as T
  }

  private async page<T>(path: string, query: Readonly<Record<string, unknown>>): Promise<Page<T>> {
    const { body } = await this.request<Envelope<T[]>>("GET", path, { query })
    return { data: body.data ?? [], meta: body.meta ?? { limit: 0, offset: 0, total: 0 } }
  }

  readonly meetingRooms = {
    /** Search rooms; with startDateTime and endDateTime only free ones come back. */
    list: (query: ListRoomsQuery) => this.data<MeetingRoom[]>("GET", "/meeting-rooms", { query }),
    get: (id: string, query: CalendarQuery = {}) =>
      this.data<MeetingRoomDetail>("GET", `/meeting-rooms/${enc(id)}`, { query }),
  }

  readonly desks = {
    list: (query: ListDesksQuery = {}) => this.page<Desk>("/desks", query),
    get: (id: string, query: CalendarQuery = {}) =>
      this.data<DeskDetail>("GET", `/desks/${enc(id)}`, { query }),
  }

  readonly meetings = {
    /** Never resent after a network failure or 5xx: reconcile with list() instead (spec rule 5). */
    create: (body: CreateMeetingRequest) =>
      this.data<Meeting>("POST", "/meetings", { body, idempotent: false }),
    /** Rows of a recurring series share _id: key them with rowKey()/keyRows(). */
    list: (query: ListMeetingsQuery) => this.page<Meeting>("/meetings", query),
    get: (id: string) => this.data<Meeting>("GET", `/meetings/${enc(id)}`),
    update: (id: string, body: UpdateMeetingRequest) =>
      this.data<Meeting>("PATCH", `/meetings/${enc(id)}`, { body }),
    cancel: (id: string, body: MeetingActionRequest = {}) =>
      this.data<Meeting>("POST", `/meetings/${enc(id)}/cancel`, { body }),
    checkIn: (id: string, body: MeetingActionRequest = {}) =>
      this.data<Meeting>("POST", `/meetings/${enc(id)}/check-in`, { body }),
    checkOut: (id: string, body: MeetingActionRequest = {}) =>
      this.data<Meeting>("POST", `/meetings/${enc(id)}/check-out`, { body }),
  }

  readonly partnerMembers = {
    upsert: (externalUserId: string, body: PartnerMemberUpsertRequest) =>
      this.data<PartnerMember>("PUT", `/partner/members/${enc(externalUserId)}`, { body }),
    get: (externalUserId: string) =>
      this.data<PartnerMemberDetail>("GET", `/partner/members/${enc(externalUserId)}`),
    offboard: async (externalUserId: string): Promise<void> => {
      await this.request("DELETE", `/partner/members/${enc(externalUserId)}`)
    },
    setCredentials: (externalUserId: string, body: PartnerCredentialsRequest) =>
      this.data<PartnerCredentials>("PUT", `/partner/members/${enc(externalUserId)}/credentials`, {
        body,
      }),
  }

  /** Operator API (needs `operatorToken`). */
  readonly operator = {
    applyManifest: (manifest: unknown) =>
      this.data<Record<string, unknown>>("PUT", "/admin/v1/manifest", {
        body: manifest,
        auth: "operator",
      }),
    clock: () =>
      this.data<{ now: string; mode: "system" | "manual" }>("GET", "/admin/v1/clock", {
        auth: "operator",
      }),
    advanceClock: (by: { minutes: number } | { to: string }) =>
      this.data<{ now: string }>("POST", "/admin/v1/clock/advance", { body: by, auth: "operator" }),
    rejectMeeting: (id: string, reason?: string) =>
      this.data<Meeting>("POST", `/admin/v1/meetings/${enc(id)}/reject`, {
        body: reason ? { reason } : {},
        auth: "operator",
      }),
    /** The key-to-id map of everything provisioned (the PUT /manifest answer, read back). */
    manifestIds: () => this.data<Record<string, unknown>>("GET", "/admin/v1/manifest/ids", { auth: "operator" }),
    /** Replaces an app's secret (generated, or `appSecret`); the answer shows it once. */
    rotateAppSecret: (appId: string, appSecret?: string) =>
      this.data<{ appId: string; appSecret: string }>("POST", `/admin/v1/apps/${enc(appId)}/secret`, {
        body: appSecret === undefined ? {} : { appSecret },
        auth: "operator",
      }),
  }

  /** GET /healthz (no envelope, no token). */
  health = async (): Promise<{ status: "ok" }> =>
    (await this.request<{ status: "ok" }>("GET", "/healthz", { auth: "none" })).body
}
