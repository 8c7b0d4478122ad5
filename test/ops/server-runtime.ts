import { spawn, type ChildProcess } from "node:child_process"

/**
 * The server as an operator starts it, on each runtime, as a child process: the tests of
 * issue 15 (one writer, start-up failures, signals) watch its output and its exit.
 */
export const RUNTIMES = ["node", "bun", "deno"] as const
export type Runtime = (typeof RUNTIMES)[number]

export const root = new URL("../..", import.meta.url).pathname

const commands: Record<Runtime, string[]> = {
  // The tsx loader in-process, so the pid is the server's own.
  node: [process.execPath, "--import", "tsx", "runtimes/node/server.ts"],
  bun: [`${root}node_modules/.bin/bun`, "runtimes/bun/server.ts"],
  deno: [`${root}node_modules/.bin/deno`, "run", "-A", "runtimes/deno/server.ts"],
}

export interface Spawned {
  readonly child: ChildProcess
  readonly stdout: () => string
  readonly stderr: () => string
  /** Resolves with the port once the server prints its listening line; rejects if it exits first. */
  readonly listening: (timeoutMs?: number) => Promise<number>
  /** Resolves with the exit code (or signal) within the time, else rejects. */
  readonly exited: (timeoutMs?: number) => Promise<{ code: number | null; signal: NodeJS.Signals | null }>
  readonly stop: () => Promise<void>
}

export const spawnProcess = (command: string[], env: Record<string, string>): Spawned => {
  const child = spawn(command[0]!, command.slice(1), {
    cwd: root,
    env: { ...process.env, KEYSPACE_LOG_LEVEL: "warn", NO_COLOR: "1", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  })
  let out = ""
  let err = ""
  child.stdout!.on("data", (d: Buffer) => (out += d.toString()))
  child.stderr!.on("data", (d: Buffer) => (err += d.toString()))
  const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once("exit", (code, signal) => resolve({ code, signal })),
  )
  const within = <T>(p: Promise<T>, ms: number, what: string) =>
    Promise.race([
      p,
      new Promise<never>((_, reject) =>
        setTimeout(() => reject(new Error(`${what} not within ${ms} ms\nstdout: ${out}\nstderr: ${err}`)), ms),
      ),
    ])
  return {
    child,
    stdout: () => out,
    stderr: () => err,
    listening: (timeoutMs = 60_000) =>
      within(
        new Promise<number>((resolve, reject) => {
          const look = () => {
            const m = /listening on port (\d+)/.exec(out)
            if (m) resolve(Number(m[1]))
          }
          child.stdout!.on("data", look)
          look()
          void exit.then((e) => reject(new Error(`exited (${e.code ?? e.signal}) before listening\nstdout: ${out}\nstderr: ${err}`)))
        }),
        timeoutMs,
        "listening",
      ),
    exited: (timeoutMs = 30_000) => within(exit, timeoutMs, "exit"),
    stop: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return
      child.kill("SIGKILL")
      await exit
    },
  }
}

export const spawnServer = (runtime: Runtime, env: Record<string, string>): Spawned =>
  spawnProcess(commands[runtime], { PORT: "0", ...env })
