import { execFileSync, spawnSync } from "node:child_process"
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { codeCacheOf } from "../../runtimes/node/code-cache.ts"

/**
 * Issue 13 (start-up): `npm start` compiles the server's CommonJS bundle from V8's code cache
 * (runtimes/node/code-cache.ts). Each load runs in a new Node process, as a start does.
 */
const root = join(import.meta.dirname, "../..")
const dir = mkdtempSync(join(tmpdir(), "keyspace-code-cache-"))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

/** Loads `file` with the loader in a new process; prints what the bundle's `probe` answers. */
const load = (file: string, save = false): { fromCache: boolean; probe: unknown } => {
  const script = `
    const { loadCommonJsBundle } = await import(${JSON.stringify(join(root, "runtimes/node/code-cache.ts"))})
    const b = loadCommonJsBundle(${JSON.stringify(file)})
    const probe = await b.exports.probe()
    ${save ? "b.saveCache()" : ""}
    console.log(JSON.stringify({ fromCache: b.fromCache, probe }))`
  const out = execFileSync(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], { cwd: root, encoding: "utf8" })
  return JSON.parse(out.trim().split("\n").at(-1)!) as { fromCache: boolean; probe: unknown }
}

const bundle = (name: string, answer: string) => {
  const file = join(dir, name)
  // What the build's bundle relies on: require, __filename, and dynamic imports written __load(.
  writeFileSync(
    file,
    `const { basename } = require("node:path");
     exports.probe = async () => ({ answer: ${JSON.stringify(answer)}, file: basename(__filename), os: typeof (await __load("node:os")).cpus })`,
  )
  return file
}

describe("the server bundle runs from V8's code cache", () => {
  it("a bundle without a cache compiles, runs, and writes one", () => {
    const file = bundle("first.cjs", "one")
    expect(load(file, true)).toEqual({ fromCache: false, probe: { answer: "one", file: "first.cjs", os: "function" } })
    expect(existsSync(codeCacheOf(file))).toBe(true)
  })

  it("the next start takes its code from the cache, dynamic imports included", () => {
    const file = join(dir, "first.cjs")
    expect(load(file)).toEqual({ fromCache: true, probe: { answer: "one", file: "first.cjs", os: "function" } })
  })

  it("a cache of other code is refused and the bundle compiles from its source, also when the code is as long", () => {
    // V8 alone compares lengths: "two" would run as "one" from the first bundle's cache.
    for (const [name, answer] of [["second.cjs", "two"], ["third.cjs", "three, a longer answer"]] as const) {
      const file = bundle(name, answer)
      execFileSync("cp", [codeCacheOf(join(dir, "first.cjs")), codeCacheOf(file)])
      expect(load(file)).toEqual({ fromCache: false, probe: { answer, file: name, os: "function" } })
    }
  })

  it("the build's cache is accepted by the server it was built for (same V8 flags: heap.js first)", { timeout: 240_000 }, () => {
    const build = spawnSync(process.execPath, ["scripts/build.mjs", "--if-stale"], { cwd: root, stdio: "inherit" })
    expect(build.status).toBe(0)
    const dist = join(root, "dist/runtimes/node")
    const out = execFileSync(
      process.execPath,
      ["--input-type=module", "-e", `import ${JSON.stringify(join(dist, "heap.js"))}; const { loadCommonJsBundle } = await import(${JSON.stringify(join(dist, "code-cache.js"))}); const b = loadCommonJsBundle(${JSON.stringify(join(dist, "server-main.cjs"))}); console.log(JSON.stringify({ fromCache: b.fromCache, main: typeof b.exports.main })); process.exit(0)`],
      { encoding: "utf8" },
    )
    expect(JSON.parse(out.trim())).toEqual({ fromCache: true, main: "function" })
  })

  it("the bundle is strict code, as the ES module bundle was", () => {
    const head = readFileSync(join(root, "dist/runtimes/node/server-main.cjs"), "utf8").slice(0, 100)
    expect(head.startsWith('"use strict";')).toBe(true)
  })
})
