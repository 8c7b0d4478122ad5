import { Context, Schema } from "effect"
import { LATEST_CLOCK_INSTANT } from "../../core/operator/clock.ts"
import { isValidDate } from "../../core/shared/local-time.ts"
import { DEFAULT_TASK_QUEUE } from "../../workflows/definitions.ts"

/**
 * Environment configuration, parsed and validated once at start. A bad value stops the start
 * with a message naming the variable.
 */
export interface Config {
  readonly port: number
  readonly publicUrl: string
  readonly databaseUrl: string | undefined
  readonly dataDir: string | "memory"
  readonly adminToken: string | undefined
  readonly seed: "demo" | "none"
  readonly clock: { readonly mode: "system" | "manual"; readonly start: number | undefined }
  readonly allowInsecureWebhooks: boolean
  /** KEYSPACE_WEBHOOK_CA_FILE: extra CA (PEM file) trusted for https webhook targets. */
  readonly webhookCaFile: string | undefined
  readonly payments: "sandbox"
  /** Merchant PromptPay id the QR of a prompt-pay payment pays to (KEYSPACE_PROMPTPAY_ID). */
  readonly promptPayId: string
  readonly scheduler: "embedded" | "temporal"
  readonly temporal: { readonly address: string; readonly namespace: string; readonly taskQueue: string }
  readonly accessTokenTtlSeconds: number
  readonly refreshTokenTtlSeconds: number
  readonly actAsTokenTtlSeconds: number
  readonly paymentWindowSeconds: number
  readonly maxUnpaidHoldsPerOrganizer: number
  /** The hold budget of an app token booking as itself (a backend booking for many people). */
  readonly maxUnpaidHoldsPerApp: number
  readonly partnerRateLimit: { readonly requests: number; readonly windowSeconds: number }
  readonly defaultPageSize: number
  readonly maxBodyBytes: number
  /** Node HTTP server limits (Bun and Deno apply their own defaults). */
  readonly requestTimeoutMs: number
  readonly maxConnections: number
  /** Finished webhook deliveries older than this many days (service clock) are deleted; 0 keeps them. */
  readonly webhookRetentionDays: number
  /** On SIGTERM/SIGINT, how long in-flight requests may take before connections are cut. */
  readonly shutdownGraceMs: number
  readonly logLevel: "debug" | "info" | "warn" | "error" | "silent"
}

export class ConfigError extends Error {
  constructor(readonly variable: string, detail: string) {
    super(`Invalid configuration: ${variable} ${detail}`)
  }
}

type Env = Record<string, string | undefined>

const int = (env: Env, name: string, fallback: number, min: number, max: number): number => {
  const raw = env[name]
  if (raw === undefined || raw === "") return fallback
  if (!/^\d+$/.test(raw.trim())) throw new ConfigError(name, `must be an integer, got "${raw}"`)
  const n = Number(raw)
  if (n < min || n > max) throw new ConfigError(name, `must be between ${min} and ${max}, got ${n}`)
  return n
}

const oneOf = <T extends string>(env: Env, name: string, values: readonly T[], fallback: T): T => {
  const raw = env[name]
  if (raw === undefined || raw === "") return fallback
  if (!(values as readonly string[]).includes(raw))
    throw new ConfigError(name, `must be one of ${values.join(", ")}, got "${raw}"`)
  return raw as T
}

const flag = (env: Env, name: string): boolean => {
  const raw = env[name]
  if (raw === undefined || raw === "" || raw === "0" || raw === "false") return false
  if (raw === "1" || raw === "true") return true
  throw new ConfigError(name, `must be 1 or 0 (or true or false), got "${raw}"`)
}

/**
 * A PromptPay proxy id: a Thai mobile number (10 digits, leading 0), a citizen or tax id
 * (13 digits) or an e-wallet id (15 digits); spaces and dashes are ignored. The default is an
 * all-zero tax id: a well-formed QR that no bank will pay into, right for a sandbox.
 */
const promptPayId = (env: Env): string => {
  const raw = env.KEYSPACE_PROMPTPAY_ID
  if (raw === undefined || raw === "") return "0000000000000"
  const digits = raw.replace(/[\s-]/g, "")
  if (!/^(0\d{9}|\d{13}|\d{15})$/.test(digits))
    throw new ConfigError(
      "KEYSPACE_PROMPTPAY_ID",
      "must be a 10-digit phone number, a 13-digit tax id or a 15-digit e-wallet id",
    )
  return digits
}

/** Whether an ISO 8601 date-time's date and time of day exist (2030-02-30, 24:30 do not). */
const isCalendarDateTime = (text: string): boolean => {
  const m = /^([+-]?\d{4,6})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2}))?/i.exec(text)
  if (m === null) return false
  const [year, month, day, hour, minute, second] = [1, 2, 3, 4, 5, 6].map((i) => Number(m[i] ?? 0)) as [number, number, number, number, number, number]
  return isValidDate({ year, month, day }) && hour < 24 && minute < 60 && second < 60
}

/** The SSL modes the PostgreSQL driver takes (postgres-js; verify-ca, as verify-full, verifies the certificate). */
const SSL_MODES = ["disable", "allow", "prefer", "require", "verify-ca", "verify-full"]

/**
 * What the driver would fail on later with a stack instead of a line: not a postgres:// URL, a
 * percent sign that is no escape (the driver decodes user, password and database), an SSL mode
 * it does not know.
 */
const databaseUrlFaults = (databaseUrl: string): void => {
  if (!/^postgres(ql)?:\/\//.test(databaseUrl)) throw new ConfigError("DATABASE_URL", "must be a postgres:// URL")
  let url: URL
  try {
    // As the driver reads it: of several hosts (`h1:5432,h2:5432`), the first stands for all.
    const authority = databaseUrl.slice(databaseUrl.indexOf("://") + 3).split(/[?/]/)[0] ?? ""
    const hosts = authority.slice(authority.indexOf("@") + 1)
    url = new URL(hosts === "" ? databaseUrl : databaseUrl.replace(hosts, hosts.split(",")[0]!))
  } catch {
    throw new ConfigError("DATABASE_URL", "is not a URL (a password with @, /, : or % must be percent-encoded)")
  }
  for (const part of [url.username, url.password, url.pathname])
    try {
      decodeURIComponent(part)
    } catch {
      throw new ConfigError("DATABASE_URL", "has a % that is not a percent-escape (write a literal % in a password as %25)")
    }
  const sslmode = url.searchParams.get("sslmode")
  if (sslmode !== null && !SSL_MODES.includes(sslmode))
    throw new ConfigError("DATABASE_URL", `sslmode must be one of ${SSL_MODES.join(", ")}, got "${sslmode}"`)
}

const Url = Schema.String.check(Schema.isPattern(/^(https?|postgres(ql)?):\/\/\S+$/))

export const parseConfig = (env: Env): Config => {
  const port = int(env, "PORT", 3000, 0, 65535)
  const publicUrl = (env.KEYSPACE_PUBLIC_URL || `http://localhost:${port}`).replace(/\/+$/, "")
  if (!Schema.is(Url)(publicUrl)) throw new ConfigError("KEYSPACE_PUBLIC_URL", "must be an http(s) URL")
  // Paths are appended to it (pay links, the OpenAPI servers): a query or fragment would swallow them.
  if (/[?#]/.test(publicUrl)) throw new ConfigError("KEYSPACE_PUBLIC_URL", "must not carry a query or a fragment")
  const databaseUrl = env.DATABASE_URL || undefined
  if (databaseUrl !== undefined) databaseUrlFaults(databaseUrl)
  const scheduler = oneOf(env, "KEYSPACE_SCHEDULER", ["embedded", "temporal"] as const, "embedded")
  if (scheduler === "temporal" && databaseUrl === undefined)
    throw new ConfigError("KEYSPACE_SCHEDULER", "temporal needs DATABASE_URL: its workers apply ticks in PostgreSQL, which the embedded database is not")
  const clockMode = oneOf(env, "KEYSPACE_CLOCK", ["system", "manual"] as const, "system")
  let clockStart: number | undefined
  if (env.KEYSPACE_CLOCK_START) {
    const ms = Date.parse(env.KEYSPACE_CLOCK_START)
    if (!/T.*(Z|[+-]\d\d:?\d\d)$/i.test(env.KEYSPACE_CLOCK_START) || Number.isNaN(ms))
      throw new ConfigError("KEYSPACE_CLOCK_START", "must be an ISO 8601 date-time with an offset")
    // Date.parse rolls 2030-02-30 into March: a day the calendar lacks is refused, not moved.
    if (!isCalendarDateTime(env.KEYSPACE_CLOCK_START))
      throw new ConfigError("KEYSPACE_CLOCK_START", "is not a date of the calendar (month, day, hour or minute out of range)")
    // The clock's own range (an advance refuses to leave it): later, what it stamps ahead of
    // itself (a refresh token's 30 days) would not be a date PostgreSQL reads.
    if (ms < 0 || ms > LATEST_CLOCK_INSTANT)
      throw new ConfigError("KEYSPACE_CLOCK_START", "must be between 1970-01-01 and 9998-12-31 (UTC)")
    clockStart = ms
  }
  const adminToken = env.KEYSPACE_ADMIN_TOKEN || undefined
  if (adminToken !== undefined && adminToken.length < 16)
    throw new ConfigError("KEYSPACE_ADMIN_TOKEN", "must be at least 16 characters")
  // An env file's stray space would make every operator call a 401 that no header can match.
  if (adminToken !== undefined && adminToken.trim() !== adminToken)
    throw new ConfigError("KEYSPACE_ADMIN_TOKEN", "must not start or end with whitespace")
  return {
    port,
    publicUrl,
    databaseUrl,
    dataDir: env.KEYSPACE_DATA_DIR || ".keyspace/data",
    adminToken,
    seed: env.KEYSPACE_SEED === "none" ? "none" : oneOf(env, "KEYSPACE_SEED", ["demo", "none"] as const, "demo"),
    clock: { mode: clockMode, start: clockStart },
    allowInsecureWebhooks: flag(env, "KEYSPACE_ALLOW_INSECURE_WEBHOOKS"),
    webhookCaFile: env.KEYSPACE_WEBHOOK_CA_FILE || undefined,
    payments: oneOf(env, "KEYSPACE_PAYMENTS", ["sandbox"] as const, "sandbox"),
    promptPayId: promptPayId(env),
    scheduler,
    temporal: {
      address: env.TEMPORAL_ADDRESS || "localhost:7233",
      namespace: env.TEMPORAL_NAMESPACE || "default",
      taskQueue: env.TEMPORAL_TASK_QUEUE || DEFAULT_TASK_QUEUE,
    },
    accessTokenTtlSeconds: int(env, "KEYSPACE_ACCESS_TOKEN_TTL", 3600, 60, 86_400 * 7),
    refreshTokenTtlSeconds: int(env, "KEYSPACE_REFRESH_TOKEN_TTL", 30 * 86_400, 60, 365 * 86_400),
    actAsTokenTtlSeconds: int(env, "KEYSPACE_ACT_AS_TOKEN_TTL", 900, 60, 86_400),
    paymentWindowSeconds: int(env, "KEYSPACE_PAYMENT_WINDOW", 300, 60, 3600),
    maxUnpaidHoldsPerOrganizer: int(env, "KEYSPACE_MAX_UNPAID_HOLDS", 3, 1, 1000),
    maxUnpaidHoldsPerApp: int(env, "KEYSPACE_MAX_UNPAID_HOLDS_PER_APP", 10_000, 1, 1_000_000),
    partnerRateLimit: {
      requests: int(env, "KEYSPACE_PARTNER_RATE_LIMIT", 30, 1, 1_000_000),
      windowSeconds: int(env, "KEYSPACE_PARTNER_RATE_WINDOW", 60, 1, 3600),
    },
    defaultPageSize: int(env, "KEYSPACE_DEFAULT_PAGE_SIZE", 100, 0, 3000),
    maxBodyBytes: int(env, "KEYSPACE_MAX_BODY_BYTES", 15 * 1024 * 1024, 1024, 100 * 1024 * 1024),
    requestTimeoutMs: int(env, "KEYSPACE_REQUEST_TIMEOUT_MS", 60_000, 1000, 3_600_000),
    maxConnections: int(env, "KEYSPACE_MAX_CONNECTIONS", 1024, 1, 1_000_000),
    webhookRetentionDays: int(env, "KEYSPACE_WEBHOOK_RETENTION_DAYS", 30, 0, 36_500),
    shutdownGraceMs: int(env, "KEYSPACE_SHUTDOWN_GRACE_MS", 10_000, 0, 600_000),
    logLevel: oneOf(env, "KEYSPACE_LOG_LEVEL", ["debug", "info", "warn", "error", "silent"] as const, "info"),
  }
}

/** The parsed configuration as a service (use cases read limits and windows from it). */
export class AppConfig extends Context.Service<AppConfig, Config>()("keyspace/config/AppConfig") {}
