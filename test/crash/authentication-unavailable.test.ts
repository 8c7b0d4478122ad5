import { createServer, connect, type AddressInfo, type Server, type Socket } from "node:net"
import { afterAll, describe, expect, it } from "vitest"
import { jsonCaller, pickFreePort, serverOnFreshDatabase, startServer, type ServerProcess } from "./server-process.ts"

/**
 * Spec, Errors: "503 SV234: authentication temporarily unavailable; the token was not rejected".
 * With the database out of reach, a token the process has not seen yet cannot be checked: the
 * caller is told to retry with it (503 SV234, Retry-After), not that it is invalid (401) nor a
 * generic fault (SV004); so is a token request with app credentials (a refresh grant stays SV004:
 * its rotation may have spent the token). Once the
 * database is back the same token is accepted.
 */
const ADMIN = "auth-unavailable-admin-token-0123456789"
const MANIFEST = {
  projects: [{ key: "hq", name: "HQ", timezone: "Asia/Bangkok", zones: [{ key: "a", name: "A", floors: [{ key: "a-1", name: "A1" }] }] }],
  apps: [{ key: "app", appId: "app", appSecret: "app-secret-123", projects: ["hq"] }],
}

/** A TCP relay to PostgreSQL whose link can be cut (every connection dropped, new ones too) and mended. */
const relayTo = async (target: URL) => {
  const sockets = new Set<Socket>()
  let cut = false
  const server: Server = createServer((client) => {
    if (cut) return void client.destroy()
    const upstream = connect(Number(target.port || 5432), target.hostname)
    for (const s of [client, upstream]) {
      sockets.add(s)
      s.on("error", () => {})
      s.on("close", () => {
        sockets.delete(s)
        client.destroy()
        upstream.destroy()
      })
    }
    client.pipe(upstream).pipe(client)
  })
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r))
  return {
    port: (server.address() as AddressInfo).port,
    cut: () => {
      cut = true
      for (const s of sockets) s.destroy()
    },
    mend: () => void (cut = false),
    close: () => new Promise<void>((r) => server.close(() => r())),
  }
}

describe("authentication while the database is out of reach", () => {
  const fixture = serverOnFreshDatabase()
  let relayed: ServerProcess | undefined
  let relay: Awaited<ReturnType<typeof relayTo>> | undefined
  afterAll(async () => {
    await relayed?.kill("SIGKILL")
    await relay?.close()
  })

  it("is 503 SV234 with Retry-After for a bearer token and for app credentials (a refresh grant SV004), and the token works once it is back", { timeout: 90_000 }, async () => {
    // Tokens minted by one process ...
    const first = await fixture.start({ KEYSPACE_SEED: "none", KEYSPACE_ADMIN_TOKEN: ADMIN })
    const call = jsonCaller(() => first)
    expect((await call("PUT", "/admin/v1/manifest", { token: ADMIN, body: MANIFEST })).status).toBe(200)
    const granted = await call("POST", "/auth/accessToken", { body: { grant_type: "app_credentials", app_id: "app", app_secret: "app-secret-123" } })
    expect(granted.status).toBe(201)
    await first.kill()
    // ... presented to another, whose link to the database is then cut.
    const url = new URL(fixture.url)
    relay = await relayTo(url)
    const viaRelay = new URL(fixture.url)
    viaRelay.hostname = "127.0.0.1"
    viaRelay.port = String(relay.port)
    relayed = await startServer({ DATABASE_URL: viaRelay.toString(), KEYSPACE_SEED: "none", KEYSPACE_ADMIN_TOKEN: ADMIN }, await pickFreePort())
    const second = jsonCaller(() => relayed!)
    relay.cut()

    const unavailable = { status: 503, retryAfter: "1", body: expect.objectContaining({ code: "SV234", success: false }) }
    expect(await second("GET", "/desks", { token: granted.body.access_token })).toMatchObject(unavailable)
    expect(await second("POST", "/auth/accessToken", { body: { grant_type: "app_credentials", app_id: "app", app_secret: "app-secret-123" } })).toMatchObject(unavailable)
    // A rotation may have committed and spent the refresh token: 503 SV004, no promise about it.
    expect(await second("POST", "/auth/accessToken", { body: { grant_type: "refresh_token", refresh_token: granted.body.refresh_token } })).toMatchObject({
      status: 503,
      retryAfter: "1",
      body: expect.objectContaining({ code: "SV004" }),
    })

    relay.mend()
    // The pool reconnects on the next request; the token was never refused.
    let answer = await second("GET", "/desks", { token: granted.body.access_token })
    for (let i = 0; i < 20 && answer.status === 503; i++) {
      await new Promise((r) => setTimeout(r, 250))
      answer = await second("GET", "/desks", { token: granted.body.access_token })
    }
    expect(answer.status, JSON.stringify(answer.body)).toBe(200)

    // A socket reset under a connection being opened is not fatal either (it ended the process).
    expect(relayed.child.exitCode).toBeNull()
    expect(relayed.output()).not.toContain("unhandled error")
  })
})
