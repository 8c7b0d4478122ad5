/**
 * Summary of a V8 `.cpuprofile` (`node --cpu-prof`): self time by package and the top
 * functions, as shares of the busy time (idle excluded). `npx tsx bench/cpu-profile.ts FILE`.
 */
import { readFileSync } from "node:fs"

interface Node {
  readonly id: number
  readonly callFrame: { readonly functionName: string; readonly url: string; readonly lineNumber: number }
}

/** Where a frame's code lives: a package, a project directory, Node's internals or V8. */
const owner = (url: string, fn: string): string => {
  if (!url) return fn.startsWith("(") ? fn : "(native)"
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url)
  if (pkg) return pkg[1]!
  if (url.startsWith("node:")) return "node:" + url.slice(5).split("/")[0]
  const project = /\/((?:dist\/)?(?:core|adapters|workflows|runtimes)\/.*)$/.exec(url)
  return project ? project[1]!.replace(/^dist\//, "") : url
}

/**
 * `window` keeps only the samples taken between `endMs + lengthMs` and `endMs` before the
 * profile ends (the load, not the start-up before it or the shutdown after it).
 */
export const summariseCpuProfile = (file: string, top = 25, window?: { endMs: number; lengthMs: number }): string => {
  const profile = JSON.parse(readFileSync(file, "utf8")) as { nodes: Node[]; samples: number[]; timeDeltas: number[]; endTime: number }
  const byId = new Map(profile.nodes.map((n) => [n.id, n]))
  const self = new Map<number, number>()
  const to = profile.endTime - (window?.endMs ?? 0) * 1000
  const from = window ? to - window.lengthMs * 1000 : -Infinity
  let t = (profile as unknown as { startTime: number }).startTime
  profile.samples.forEach((id, i) => {
    const dt = profile.timeDeltas[i] ?? 0
    t += dt
    if (t >= from && t <= to) self.set(id, (self.get(id) ?? 0) + dt)
  })
  const byOwner = new Map<string, number>()
  const byFn = new Map<string, number>()
  let busy = 0
  for (const [id, us] of self) {
    const { functionName, url, lineNumber } = byId.get(id)!.callFrame
    if (functionName === "(idle)") continue
    busy += us
    const o = owner(url, functionName)
    byOwner.set(o, (byOwner.get(o) ?? 0) + us)
    const fn = `${functionName || "(anonymous)"} ${o.startsWith("node:") || !url ? o : url.replace(/^.*node_modules\//, "").replace(/^.*\/(dist\/)?/, "")}${url ? `:${lineNumber + 1}` : ""}`
    byFn.set(fn, (byFn.get(fn) ?? 0) + us)
  }
  const share = (us: number) => `${((100 * us) / busy).toFixed(1).padStart(5)}%`
  const lines = [`CPU profile ${file}: busy ${(busy / 1000).toFixed(0)} ms`, "self time by owner:"]
  for (const [o, us] of [...byOwner].sort((a, b) => b[1] - a[1]).slice(0, top)) lines.push(`  ${share(us)}  ${o}`)
  lines.push("top functions (self):")
  for (const [f, us] of [...byFn].sort((a, b) => b[1] - a[1]).slice(0, top)) lines.push(`  ${share(us)}  ${f}`)
  return lines.join("\n")
}

if (import.meta.url === `file://${process.argv[1]}`) console.log(summariseCpuProfile(process.argv[2]!, Number(process.argv[3] ?? 25)))
