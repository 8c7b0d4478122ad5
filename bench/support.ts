/** Process helpers the benchmark scripts share (bench/run.ts, bench/create-profile.ts). */
import { spawn, type ChildProcess } from "node:child_process"
import { openSync, readFileSync } from "node:fs"
import { startNodeOptions } from "../scripts/start-options.mjs"

const root = new URL("..", import.meta.url).pathname

/** The options `npm start` gives node, so the bench runs the server exactly as `npm start` does. */
export const startNodeArgs: readonly string[] = startNodeOptions()

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

/** A /proc/<pid>/status figure in kB (0 once the process is gone). */
export const statusKb = (pid: number, field: "VmRSS" | "VmHWM"): number => {
  try {
    const m = new RegExp(`${field}:\\s+(\\d+) kB`).exec(readFileSync(`/proc/${pid}/status`, "utf8"))
    return m ? Number(m[1]) : 0
  } catch {
    return 0
  }
}

/** A process's user and system CPU ms so far (Linux clock ticks are 10 ms); zeros once it is gone. */
const cpuOf = (pid: number): { readonly user: number; readonly system: number } => {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ")
    return { user: Number(fields[11]) * 10, system: Number(fields[12]) * 10 }
  } catch {
    return { user: 0, system: 0 }
  }
}

/** CPU time (user + system) a process has used so far, in ms. */
export const cpuMs = (pid: number): number => {
  const { user, system } = cpuOf(pid)
  return user + system
}

/** The system part of it (the kernel's work for the process: socket writes, mostly). */
export const systemCpuMs = (pid: number): number => cpuOf(pid).system

const stderrTails = new WeakMap<ChildProcess, () => string>()
/** The last 4,000 characters the child wrote to stderr (its error log lines). */
export const stderrOf = (child: ChildProcess): string => stderrTails.get(child)?.() ?? ""

const healthy = async (port: number) => (await fetch(`http://127.0.0.1:${port}/healthz`)).ok

/** Starts `command` with PORT set and polls `ready` every `pollMs` until it answers. */
export const startChild = async (
  command: string[],
  env: Record<string, string>,
  port: number,
  ready: (port: number) => Promise<boolean> = healthy,
  pollMs = 100,
): Promise<ChildProcess> => {
  // BENCH_SERVER_STDOUT=<file>: keep the server's log lines (its stdout) there.
  const out = process.env.BENCH_SERVER_STDOUT ? openSync(process.env.BENCH_SERVER_STDOUT, "a") : "ignore"
  const child = spawn(command[0]!, command.slice(1), { cwd: root, env: { ...process.env, ...env, PORT: String(port) }, stdio: ["ignore", out, "pipe"] })
  let stderr = ""
  child.stderr!.on("data", (d: Buffer) => (stderr = (stderr + d.toString()).slice(-4000)))
  stderrTails.set(child, () => stderr)
  for (let i = 0; i < 60_000 / pollMs; i++) {
    if (child.exitCode !== null) throw new Error(`${command.join(" ")} exited: ${stderr}`)
    if (await ready(port).catch(() => false)) return child
    await sleep(pollMs)
  }
  child.kill("SIGKILL")
  throw new Error(`${command.join(" ")} did not start: ${stderr}`)
}

export const stopChild = async (child: ChildProcess) => {
  if (child.exitCode !== null) return
  child.kill("SIGTERM")
  for (let i = 0; i < 200 && child.exitCode === null; i++) await sleep(50)
  if (child.exitCode === null) child.kill("SIGKILL")
}
