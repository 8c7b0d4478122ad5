import { boot, type Booted } from "../../adapters/wiring/boot.ts"
import type { Manifest } from "../../core/tenancy/manifest.ts"
import { freshPostgresDatabase, type Engine } from "./databases.ts"

export const ADMIN_TOKEN = "test-admin-token-0123456789"
export const CLOCK_START = "2030-01-07T02:00:00.000Z" // Monday 09:00 in Asia/Bangkok

export interface Harness {
  readonly booted: Booted
  /** In-process request against the real app (no socket). */
  readonly request: (method: string, path: string, options?: { body?: unknown; token?: string; headers?: Record<string, string> }) => Promise<{ status: number; body: any; headers: Headers }>
  readonly admin: (method: string, path: string, body?: unknown) => Promise<{ status: number; body: any }>
  readonly applyManifest: (m: Manifest) => Promise<any>
  readonly tokenFor: (appId: string, appSecret: string) => Promise<string>
  readonly advance: (minutes: number) => Promise<void>
  readonly close: () => Promise<void>
}

/**
 * A second service on the harness's PostgreSQL database, as a second server process would be
 * (manual clock at CLOCK_START, no seed, no log). The caller closes it.
 */
export const bootBeside = (h: Harness, options: { background?: boolean } = {}): Promise<Booted> =>
  boot(
    {
      DATABASE_URL: h.booted.services.config.databaseUrl!,
      KEYSPACE_SEED: "none",
      KEYSPACE_CLOCK: "manual",
      KEYSPACE_CLOCK_START: CLOCK_START,
      KEYSPACE_ADMIN_TOKEN: ADMIN_TOKEN,
      KEYSPACE_LOG_LEVEL: "silent",
    },
    { print: () => {}, ...options },
  )

/** Boots the real service on one engine with a manual clock and no demo seed. */
export const startHarness = async (
  engine: Engine,
  env: Record<string, string> = {},
  options: { background?: boolean } = {},
): Promise<Harness> => {
  const pg = engine === "postgres" ? await freshPostgresDatabase() : undefined
  const booted = await boot(
    {
      KEYSPACE_DATA_DIR: "memory",
      KEYSPACE_SEED: "none",
      KEYSPACE_CLOCK: "manual",
      KEYSPACE_CLOCK_START: CLOCK_START,
      KEYSPACE_ADMIN_TOKEN: ADMIN_TOKEN,
      KEYSPACE_LOG_LEVEL: "silent",
      ...(pg ? { DATABASE_URL: pg.url } : {}),
      ...env,
    },
    { print: () => {}, ...options },
  )
  const request: Harness["request"] = async (method, path, options = {}) => {
    const headers: Record<string, string> = { ...options.headers }
    if (options.token) headers.authorization = `Bearer ${options.token}`
    let body: string | undefined
    if (options.body !== undefined) {
      body = typeof options.body === "string" ? options.body : JSON.stringify(options.body)
      headers["content-type"] ??= "application/json"
    }
    const res = await booted.app.request(path, { method, headers, body })
    const text = await res.text()
    let parsed: unknown = text
    try {
      parsed = text === "" ? undefined : JSON.parse(text)
    } catch {}
    return { status: res.status, body: parsed, headers: res.headers }
  }
  const admin: Harness["admin"] = (method, path, body) =>
    request(method, `/admin/v1${path}`, { body, token: ADMIN_TOKEN })
  return {
    booted,
    request,
    admin,
    applyManifest: async (m) => {
      const res = await admin("PUT", "/manifest", m)
      if (res.status !== 200) throw new Error(`manifest failed: ${JSON.stringify(res.body)}`)
      return res.body.data
    },
    tokenFor: async (app_id, app_secret) => {
      const res = await request("POST", "/auth/accessToken", { body: { grant_type: "app_credentials", app_id, app_secret } })
      if (res.status !== 201) throw new Error(`token failed: ${JSON.stringify(res.body)}`)
      return res.body.access_token
    },
    advance: async (minutes) => {
      const res = await admin("POST", "/clock/advance", { minutes })
      if (res.status !== 200) throw new Error(`advance failed: ${JSON.stringify(res.body)}`)
    },
    close: async () => {
      await booted.close()
      await pg?.drop()
    },
  }
}
