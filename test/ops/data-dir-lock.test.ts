import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, utimesSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { lockDataDir, lockPathOf } from "../../adapters/wiring/data-dir-lock.ts"
import { StartupError } from "../../adapters/config/startup-error.ts"

/** The lock's staleness rules, without processes (one-writer.test.ts spawns real servers). */
describe("data directory lock", () => {
  const dir = mkdtempSync(join(tmpdir(), "keyspace-lock-"))
  afterAll(() => rmSync(dir, { recursive: true, force: true }))
  const holder = (over: Record<string, unknown>) =>
    JSON.stringify({ pid: 1, runtime: "node v20", host: "elsewhere", startedAt: "2030-01-01T00:00:00Z", ...over })

  it("a lock written on another host is held while its heartbeat is fresh", () => {
    const data = join(dir, "fresh")
    writeFileSync(lockPathOf(data), holder({}))
    expect(() => lockDataDir(data)).toThrow(StartupError)
    expect(() => lockDataDir(data)).toThrow(/pid 1 on elsewhere/)
  })

  it("a lock written on another host whose heartbeat stopped 30 s ago is taken over", () => {
    const data = join(dir, "old")
    writeFileSync(lockPathOf(data), holder({}))
    const old = new Date(Date.now() - 60_000)
    utimesSync(lockPathOf(data), old, old)
    const lock = lockDataDir(data)
    expect(JSON.parse(readFileSync(lockPathOf(data), "utf8")).pid).toBe(process.pid)
    lock.release()
    expect(existsSync(lockPathOf(data))).toBe(false)
  })

  it("a lock carrying our own pid is a restart that reused it (stale) once its heartbeat is 30 s old, and until then another pid namespace's server (held)", async () => {
    const { hostname } = await import("node:os")
    const data = join(dir, "own")
    writeFileSync(lockPathOf(data), holder({ pid: process.pid, host: hostname() }))
    expect(() => lockDataDir(data)).toThrow(StartupError)
    const old = new Date(Date.now() - 60_000)
    utimesSync(lockPathOf(data), old, old)
    lockDataDir(data).release()
  })

  it("an empty or unreadable lock is a starter between its create and its write while a moment old, a crash's leftover after", () => {
    const data = join(dir, "half")
    writeFileSync(lockPathOf(data), "")
    expect(() => lockDataDir(data)).toThrow(/another server is starting on it/)
    writeFileSync(lockPathOf(data), "{half")
    const old = new Date(Date.now() - 60_000)
    utimesSync(lockPathOf(data), old, old)
    lockDataDir(data).release()
  })

  it("a symlink and its target are one directory with one lock: the other name is refused while one holds it", () => {
    const target = join(dir, "volume")
    mkdirSync(target)
    const link = join(dir, "linked")
    symlinkSync(target, link)
    expect(lockPathOf(link)).toBe(lockPathOf(target))
    expect(lockPathOf(link)).toBe(`${target}.lock`)
    // Held by another process under the link's name, the target's name is refused.
    writeFileSync(lockPathOf(link), holder({}))
    expect(() => lockDataDir(target)).toThrow(/pid 1 on elsewhere/)
    rmSync(lockPathOf(link))
  })

  it("release leaves a lock that is no longer ours alone", () => {
    const data = join(dir, "taken")
    const lock = lockDataDir(data)
    writeFileSync(lockPathOf(data), holder({ pid: 4242 }))
    lock.release()
    expect(existsSync(lockPathOf(data))).toBe(true)
  })
})
