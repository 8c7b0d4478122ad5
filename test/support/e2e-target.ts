import { startHarness, ADMIN_TOKEN, type Harness } from "./harness.ts"

/**
 * End-to-end tests talk HTTP to a server. Under `npm test` that server is booted in-process
 * (PGlite, manual clock); with KEYSPACE_E2E_URL set (.ci/runtime-smoke) it is a real server
 * on Node, Bun or Deno. Tests use unique manifest keys, so a shared server is fine.
 */
export interface E2ETarget {
  readonly call: (method: string, path: string, options?: { body?: unknown; token?: string }) => Promise<{ status: number; body: any }>
  readonly admin: (method: string, path: string, body?: unknown) => Promise<{ status: number; body: any }>
  readonly close: () => Promise<void>
}

export const e2eTarget = async (): Promise<E2ETarget> => {
  const url = process.env.KEYSPACE_E2E_URL
  if (!url) {
    const h: Harness = await startHarness("pglite", { KEYSPACE_ALLOW_INSECURE_WEBHOOKS: "1" })
    return { call: h.request, admin: h.admin, close: h.close }
  }
  const adminToken = process.env.KEYSPACE_E2E_ADMIN_TOKEN ?? ADMIN_TOKEN
  const call: E2ETarget["call"] = async (method, path, options = {}) => {
    const headers: Record<string, string> = {}
    if (options.token) headers.authorization = `Bearer ${options.token}`
    if (options.body !== undefined) headers["content-type"] = "application/json"
    const res = await fetch(url + path, {
      method,
      headers,
      body: options.body === undefined ? undefined : typeof options.body === "string" ? options.body : JSON.stringify(options.body),
    })
    const text = await res.text()
    let body: unknown = text
    try {
      body = text === "" ? undefined : JSON.parse(text)
    } catch {}
    return { status: res.status, body }
  }
  return {
    call,
    admin: (method, path, body) => call(method, `/admin/v1${path}`, { body, token: adminToken }),
    close: async () => {},
  }
}

/** A suffix that keeps manifest keys of concurrent runs apart. */
export const uniqueSuffix = () => `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`
