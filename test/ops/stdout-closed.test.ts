import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { pickFreePort, startServer, type ServerProcess } from "../crash/server-process.ts"

/**
 * The server's log goes to stdout; a reader that goes away (`| head`, a log shipper restarting)
 * closes the pipe. The server goes on serving without its log instead of dying of an EPIPE
 * (found by the operations probe: `node dist/runtimes/node/server.js | head -3`).
 */
describe("a closed stdout", () => {
  let server: ServerProcess
  beforeAll(async () => {
    server = await startServer(
      { KEYSPACE_DATA_DIR: "memory", KEYSPACE_SEED: "none", KEYSPACE_ADMIN_TOKEN: "stdout-admin-token-0123456789", KEYSPACE_LOG_LEVEL: "info" },
      await pickFreePort(),
    )
  }, 60_000)
  afterAll(async () => server?.kill())

  it("does not stop the server: it answers after its log's reader is gone", async () => {
    server.child.stdout!.destroy()
    for (let i = 0; i < 50; i++) await fetch(`${server.url}/meetings`) // 401s, each an info line
    await new Promise((r) => setTimeout(r, 200))
    expect(server.child.exitCode).toBeNull()
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200)
  })
})
