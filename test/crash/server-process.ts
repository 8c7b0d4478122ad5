import { spawn, type ChildProcess } from "node:child_process"
import { createServer, type AddressInfo } from "node:net"
import postgres from "postgres"
import { afterAll, beforeAll } from "vitest"
import { freshPostgresDatabase } from "../support/databases.ts"

/**
 * The real server as a child process (Node, the tsx loader in-process so the pid is the
 * server's own), for the tests that need a socket or a SIGKILL.
 */
export interface ServerProcess {
  readonly url: string
  readonly child: ChildProcess
  readonly output: () => string
  readonly kill: (signal?: NodeJS.Signals) => Promise<void>
}

const root = new URL("../..", import.meta.url).pathname

export const startServer = async (
  env: Record<string, string>,
  port: number,
  options: {
    readonly startTimeoutMs?: number
    /** A script to run with node instead of the sources under tsx (`scripts/start.mjs`: the built server). */
    readonly entry?: string
    /** Options for node before the entry (V8 flags: `npm start`'s `--no-memory-reducer`). */
    readonly nodeArgs?: readonly string[]
  } = {},
): Promise<ServerProcess> => {
  const argv = [...(options.nodeArgs ?? []), ...(options.entry ? [options.entry] : ["--import", "tsx", "runtimes/node/server.ts"])]
  const child = spawn(process.execPath, argv, {
    cwd: root,
    env: { ...process.env, KEYSPACE_LOG_LEVEL: "warn", ...env, PORT: String(port) },
    stdio: ["ignore", "pipe", "pipe"],
  })
  let out = ""
  const keep = (d: Buffer) => (out = (out + d.toString()).slice(-8000))
  child.stdout!.on("data", keep)
  child.stderr!.on("data", keep)
  const url = `http://127.0.0.1:${port}`
  const deadline = Date.now() + (options.startTimeoutMs ?? 30_000)
  for (;;) {
    if (child.exitCode !== null) throw new Error(`server exited early: ${out}`)
    const ok = await fetch(`${url}/healthz`).then((r) => r.ok, () => false)
    if (ok) break
    if (Date.now() > deadline) {
      child.kill("SIGKILL")
      throw new Error(`server did not start: ${out}`)
    }
    await new Promise((r) => setTimeout(r, 100))
  }
  return {
    url,
    child,
    output: () => out,
    kill: async (signal = "SIGTERM") => {
      if (child.exitCode !== null || child.signalCode !== null) return
      const exited = new Promise((r) => child.once("exit", r))
      child.kill(signal)
      await exited
    },
  }
}

/**
 * A port the system just handed out as free: files running in parallel do not collide, and it
 * is not one an outgoing connection of another file holds (a random port could be).
 */
export const pickFreePort = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const probe = createServer()
    probe.once("error", reject)
    probe.listen(0, "127.0.0.1", () => {
      const { port } = probe.address() as AddressInfo
      probe.close(() => resolve(port))
    })
  })

/** JSON over HTTP to the server: status, the Retry-After header and the parsed body. */
export const jsonCaller =
  (server: () => ServerProcess) =>
  async (method: string, path: string, options: { body?: unknown; token?: string } = {}) => {
    const s = server()
    const res = await fetch(s.url + path, {
      method,
      headers: { "content-type": "application/json", ...(options.token ? { authorization: `Bearer ${options.token}` } : {}) },
      body: options.body === undefined ? undefined : JSON.stringify(options.body),
    }).catch((e: unknown) => {
      throw new Error(`${method} ${path}: ${String(e)}; server exit ${s.child.exitCode}\n${s.output().slice(-3000)}`)
    })
    const text = await res.text()
    return { status: res.status, retryAfter: res.headers.get("retry-after"), body: (text ? JSON.parse(text) : undefined) as any }
  }

/**
 * A fresh PostgreSQL database for the file, a client on it (`sql`) and the server process the
 * test starts on it (`server`), all stopped and dropped after the file.
 */
export const serverOnFreshDatabase = () => {
  const held: { pg?: { url: string; drop: () => Promise<void> }; sql?: postgres.Sql; server?: ServerProcess } = {}
  beforeAll(async () => {
    held.pg = await freshPostgresDatabase()
    held.sql = postgres(held.pg.url, { max: 2, onnotice: () => {} })
  })
  afterAll(async () => {
    await held.server?.kill("SIGKILL")
    await held.sql?.end()
    await held.pg?.drop()
  })
  return {
    get url() {
      return held.pg!.url
    },
    get sql() {
      return held.sql!
    },
    get server() {
      return held.server!
    },
    /** Starts the server on the database (a new port each time: a killed one's may linger). */
    start: async (env: Record<string, string>) => {
      held.server = await startServer({ DATABASE_URL: held.pg!.url, ...env }, await pickFreePort())
      return held.server
    },
  }
}
