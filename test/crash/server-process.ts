import { spawn, type ChildProcess } from "node:child_process"
import { createServer, type AddressInfo } from "node:net"

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
  options: { readonly startTimeoutMs?: number } = {},
): Promise<ServerProcess> => {
  const child = spawn(process.execPath, ["--import", "tsx", "runtimes/node/server.ts"], {
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
