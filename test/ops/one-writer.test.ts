import { existsSync, mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { RUNTIMES, spawnServer, type Spawned } from "./server-runtime.ts"

/** Issue 15, point 1: never two writers on one embedded data directory. */
describe("one writer per embedded data directory", () => {
  const dir = mkdtempSync(join(tmpdir(), "keyspace-one-writer-"))
  const dataDir = join(dir, "data")
  const env = { KEYSPACE_DATA_DIR: dataDir, KEYSPACE_ADMIN_TOKEN: "one-writer-admin-token-0123" }
  const started: Spawned[] = []
  afterAll(async () => {
    await Promise.all(started.map((s) => s.stop()))
    rmSync(dir, { recursive: true, force: true })
  })

  it("a second server on the same data directory refuses to start naming the holder, on every runtime", { timeout: 180_000 }, async () => {
    const first = spawnServer("node", env)
    started.push(first)
    const port = await first.listening()
    for (const runtime of RUNTIMES) {
      const second = spawnServer(runtime, env)
      started.push(second)
      const { code } = await second.exited(60_000)
      expect(code, `${runtime}: ${second.stderr()}`).toBe(2)
      const lines = second.stderr().trim().split("\n")
      expect(lines, runtime).toHaveLength(1)
      expect(lines[0]).toContain("KEYSPACE_DATA_DIR")
      expect(lines[0]).toContain(`pid ${first.child.pid}`)
      expect(lines[0]).toContain(`port ${port}`)
      expect(lines[0]).toMatch(/Stop that server first/)
      // Nothing printed as if it had started: no token, no demo credentials.
      expect(second.stdout(), runtime).toBe("")
    }
    // The first server still answers.
    const health = await fetch(`http://127.0.0.1:${port}/healthz`)
    expect(health.status).toBe(200)
  })

  it("a lock left by a SIGKILLed server does not block a restart, on every runtime", { timeout: 180_000 }, async () => {
    for (const runtime of RUNTIMES) {
      // Whoever holds the directory now is killed without a chance to clean up.
      for (const s of started) await s.stop()
      expect(existsSync(`${dataDir}.lock`)).toBe(true)
      const next = spawnServer(runtime, env)
      started.push(next)
      const port = await next.listening()
      const health = await fetch(`http://127.0.0.1:${port}/healthz`)
      expect(health.status, runtime).toBe(200)
    }
  })

  it("a server stopped with SIGTERM frees the data directory", { timeout: 120_000 }, async () => {
    for (const s of started) await s.stop()
    const a = spawnServer("node", env)
    started.push(a)
    await a.listening()
    a.child.kill("SIGTERM")
    expect((await a.exited()).code).toBe(0)
    expect(existsSync(`${dataDir}.lock`)).toBe(false)
  })
})
