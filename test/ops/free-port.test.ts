import { afterAll, describe, expect, it } from "vitest"
import { RUNTIMES, spawnServer, type Spawned } from "./server-runtime.ts"

/**
 * PORT=0 asks for any free port. Every address the server hands out (the printed commands, the
 * OpenAPI document's server, payment pages) is built from KEYSPACE_PUBLIC_URL's default
 * `http://localhost:$PORT`, so it must name the port chosen, never `:0`.
 */
describe("PORT=0 starts on a free port, and the default public URL names that port", () => {
  const started: Spawned[] = []
  afterAll(async () => {
    await Promise.all(started.map((s) => s.stop()))
  })

  for (const runtime of RUNTIMES)
    it(`on ${runtime}`, { timeout: 120_000 }, async () => {
      const server = spawnServer(runtime, { PORT: "0", KEYSPACE_DATA_DIR: "memory", KEYSPACE_ADMIN_TOKEN: "free-port-admin-token-0123" })
      started.push(server)
      const port = await server.listening()
      expect(port).toBeGreaterThan(0)
      expect(server.stdout()).toContain(`(http://localhost:${port})`)
      expect(server.stdout()).not.toContain("localhost:0")
      const doc = (await (await fetch(`http://127.0.0.1:${port}/openapi.json`)).json()) as { servers: Array<{ url: string }> }
      expect(doc.servers[0]!.url).toBe(`http://localhost:${port}`)
    })
})
