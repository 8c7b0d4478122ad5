import { spawnSync } from "node:child_process"
import { afterAll, describe, expect, it } from "vitest"
import { lineBuffer } from "../../adapters/observability/line-buffer.ts"
import { RUNTIMES, root, spawnServer, type Spawned } from "./server-runtime.ts"

/**
 * Issue 13, session 5: the Node entry writes log lines in batches (one write per event-loop
 * turn). No line may be lost: not on shutdown, not on `process.exit`, not on a crash; and
 * every runtime still writes its request lines.
 */
describe("batched log lines", () => {
  it("leave in one write at the end of the turn, at 64 KiB, or at once on flush", async () => {
    const writes: string[] = []
    let turnEnd: (() => void) | undefined
    const lines = lineBuffer((chunk) => writes.push(chunk), (f) => (turnEnd = f))
    lines.line("a")
    lines.line("b")
    expect(writes).toEqual([])
    turnEnd!()
    expect(writes).toEqual(["a\nb\n"])
    lines.line("c")
    lines.flush()
    expect(writes).toEqual(["a\nb\n", "c\n"])
    turnEnd!()
    expect(writes).toHaveLength(2)
    const big = "x".repeat(40 * 1024)
    lines.line(big)
    lines.line(big)
    expect(writes).toEqual(["a\nb\n", "c\n", `${big}\n${big}\n`])
  })

  // A line queued in the very turn the process ends in is written by the exit flush.
  for (const [how, end] of [
    ["process.exit", "process.exit(3)"],
    ["an uncaught exception", "throw new Error('boom')"],
  ] as const)
    it(`are written when the process ends by ${how} in the turn that queued them`, () => {
      const script = `import { stdoutLines } from "./runtimes/node/log-output.ts"; const l = stdoutLines(); l.line("one"); l.line("two"); ${end}`
      const r = spawnSync(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], { cwd: root, encoding: "utf8" })
      expect(r.status).not.toBe(0)
      expect(r.stdout).toBe("one\ntwo\n")
    })

  const started: Spawned[] = []
  afterAll(async () => {
    for (const s of started) await s.stop()
  })
  for (const runtime of RUNTIMES)
    it(`${runtime}: a request's line is on stdout, also when SIGTERM follows the answer at once`, { timeout: 300_000 }, async () => {
      const server = spawnServer(runtime, {
        KEYSPACE_DATA_DIR: "memory",
        KEYSPACE_LOG_LEVEL: "info",
        KEYSPACE_ADMIN_TOKEN: "log-lines-admin-token-0123456",
      })
      started.push(server)
      const port = await server.listening(240_000)
      const res = await fetch(`http://127.0.0.1:${port}/no-such-route`, { headers: { "x-request-id": `log-${runtime}` } })
      expect(res.status).toBe(404)
      expect(res.headers.get("x-request-id")).toBe(`log-${runtime}`)
      server.child.kill("SIGTERM")
      expect(await server.exited(60_000)).toMatchObject({ code: 0 })
      const lines = server
        .stdout()
        .split("\n")
        .filter((l) => l.startsWith("{"))
        .map((l) => JSON.parse(l) as Record<string, unknown>)
      expect(lines).toContainEqual(expect.objectContaining({ msg: "request", requestId: `log-${runtime}`, status: 404, route: "unmatched" }))
    })
})
