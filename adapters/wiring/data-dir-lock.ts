import { closeSync, existsSync, openSync, readFileSync, realpathSync, renameSync, statSync, unlinkSync, utimesSync, writeFileSync, writeSync } from "node:fs"
import { hostname } from "node:os"
import { dirname, basename, join, resolve } from "node:path"
import { StartupError } from "../config/startup-error.ts"

/**
 * One writer per embedded data directory. PGlite has no lock of its own: two processes on one
 * directory both accept writes and one of them is lost. The lock is a file next to the data
 * directory (`<dir>.lock`, never inside it: PGlite owns that tree), created atomically
 * (O_EXCL), holding who took it. A lock whose process is gone (SIGKILL, power loss) is stale
 * and taken over, so a killed server never blocks its restart. Plain files and pids work the
 * same on Node, Bun and Deno (no flock there). The holder also touches the file every 10 s: a
 * lock written on another host (a replaced container on the same volume has a new hostname and
 * pid namespace) is stale once that heartbeat stops for 30 s.
 */
export interface LockHolder {
  readonly pid: number
  readonly runtime: string
  readonly host: string
  readonly startedAt: string
  /** Linux process start time (clock ticks since boot): tells a reused pid from the holder. */
  readonly procStart?: string | undefined
  readonly port?: number | undefined
}

export interface DataDirLock {
  readonly path: string
  /** Records the port actually bound (PORT=0 picks one), for the message a second server prints. */
  readonly listeningOn: (port: number) => void
  readonly release: () => void
}

/**
 * `<dir>.lock` beside the directory the database really is in: two names of one directory (a
 * symlink and its target, two links) share one lock, as they share the database PGlite opens
 * at the real path (adapters/postgres/database.ts).
 */
export const lockPathOf = (dataDir: string): string => {
  const abs = existsSync(dataDir) ? realpathSync(dataDir) : resolve(dataDir)
  return join(dirname(abs), `${basename(abs)}.lock`)
}

const runtimeName = (): string => {
  const g = globalThis as { Bun?: { version: string }; Deno?: { version: { deno: string } } }
  if (g.Bun) return `bun ${g.Bun.version}`
  if (g.Deno) return `deno ${g.Deno.version.deno}`
  return `node ${process.version}`
}

/** Field 22 of /proc/<pid>/stat (after the parenthesised command name), or undefined off Linux. */
const procStartOf = (pid: number): string | undefined => {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8")
    return stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19]
  } catch {
    return undefined
  }
}

const HEARTBEAT_MS = 10_000
const FOREIGN_STALE_MS = 30_000

/** Whether the lock file was written or beaten within `ms`. */
const beatWithin = (path: string, ms: number): boolean => {
  try {
    return Date.now() - statSync(path).mtimeMs < ms
  } catch {
    return false
  }
}

/** How long an empty lock file (its creator between create and write) counts as a starter's. */
const WRITING_MS = 5_000

const isAlive = (holder: LockHolder, path: string): boolean => {
  // Another machine's (or container's) processes cannot be seen: trust the heartbeat.
  if (holder.host !== hostname()) return beatWithin(path, FOREIGN_STALE_MS)
  // Our own pid, and we do not hold it: a restart reused it, or a server in another pid
  // namespace with our hostname (containers on the host's network, each pid 1) holds it. Only
  // the heartbeat tells them apart: a restart waits until the dead holder's beat is 30 s old.
  if (holder.pid === process.pid) return beatWithin(path, FOREIGN_STALE_MS)
  if (existsSync("/proc/self/stat")) {
    const start = procStartOf(holder.pid)
    if (start === undefined) return false
    return holder.procStart === undefined || holder.procStart === start
  }
  try {
    process.kill(holder.pid, 0)
    return true
  } catch (e) {
    return (e as { code?: string }).code === "EPERM"
  }
}

const readHolder = (path: string): LockHolder | undefined => {
  try {
    const parsed = JSON.parse(readFileSync(path, "utf8")) as LockHolder
    return typeof parsed.pid === "number" ? parsed : undefined
  } catch {
    return undefined
  }
}

const createExclusive = (path: string, holder: LockHolder): boolean => {
  let fd: number
  try {
    fd = openSync(path, "wx")
  } catch (e) {
    if ((e as { code?: string }).code === "EEXIST") return false
    throw new StartupError(`KEYSPACE_DATA_DIR: cannot create the lock file ${path}: ${(e as Error).message}`)
  }
  try {
    writeSync(fd, JSON.stringify(holder))
  } finally {
    closeSync(fd)
  }
  return true
}

export const describeHolder = (h: LockHolder): string =>
  `pid ${h.pid}${h.host === hostname() ? "" : ` on ${h.host}`}, ${h.runtime}${h.port === undefined ? "" : `, port ${h.port}`}, since ${h.startedAt}`

/**
 * Takes the lock or throws a StartupError naming the holder and what to do. A lock file that
 * is unreadable (a crash between create and write) counts as stale.
 */
export const lockDataDir = (dataDir: string, port?: number): DataDirLock => {
  const path = lockPathOf(dataDir)
  const me: LockHolder = {
    pid: process.pid,
    runtime: runtimeName(),
    host: hostname(),
    startedAt: new Date().toISOString(),
    procStart: procStartOf(process.pid),
    port,
  }
  for (let attempt = 0; attempt < 3; attempt++) {
    if (createExclusive(path, me)) {
      let released = false
      const beat = setInterval(() => {
        try {
          utimesSync(path, new Date(), new Date())
        } catch {
          /* a missing file is found by the next starter; nothing to do here */
        }
      }, HEARTBEAT_MS)
      ;(beat as { unref?: () => void }).unref?.()
      return {
        path,
        listeningOn: (port) => {
          if (released) return
          const tmp = `${path}.${process.pid}.tmp`
          writeFileSync(tmp, JSON.stringify({ ...me, port }))
          renameSync(tmp, path) // atomic: a reader sees the old or the new holder, never half
        },
        release: () => {
          if (released) return
          released = true
          clearInterval(beat)
          // Only remove the file while it is still ours.
          if (readHolder(path)?.pid === me.pid && readHolder(path)?.startedAt === me.startedAt) {
            try {
              unlinkSync(path)
            } catch {
              /* already gone */
            }
          }
        },
      }
    }
    const holder = readHolder(path)
    // An empty or half-written file a moment old is another starter between its create and its
    // write, not a crash's leftover: moving it aside let both start.
    if (holder === undefined && beatWithin(path, WRITING_MS))
      throw new StartupError(`KEYSPACE_DATA_DIR ${dataDir}: another server is starting on it (lock file ${path}); try again in a few seconds`)
    if (holder && isAlive(holder, path))
      throw new StartupError(
        `KEYSPACE_DATA_DIR ${dataDir} is in use by another Keyspace server (${describeHolder(holder)}). ` +
          `Stop that server first${holder.host === hostname() ? "" : " (a lock from another host is free 30 s after its server stopped)"}, or set KEYSPACE_DATA_DIR to another directory ` +
          `(several servers need DATABASE_URL). Lock file: ${path}`,
      )
    // Stale: move it aside under a name of our own (atomic), then try to create ours again.
    const aside = `${path}.stale-${process.pid}`
    try {
      renameSync(path, aside)
    } catch {
      continue // another starter moved it first: look again
    }
    const moved = readHolder(aside)
    if (holder && moved && (moved.pid !== holder.pid || moved.startedAt !== holder.startedAt)) {
      // Between our look and our move another starter took over: give its lock back.
      renameSync(aside, path)
      continue
    }
    try {
      unlinkSync(aside)
    } catch {
      /* gone already */
    }
  }
  throw new StartupError(`KEYSPACE_DATA_DIR ${dataDir}: could not take the lock ${path}; another server is starting on it`)
}
