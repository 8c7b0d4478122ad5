// Compiles the server to dist/ (tsc, .ts imports rewritten to .js) and copies the migrations
// beside it, so `npm start` runs plain JavaScript under `node` with no loader in between.
// Then bundles the server (runtimes/node/server.ts) into dist/runtimes/node/server.js with esbuild:
// Node loaded about 740 modules one file at a time (opening, resolving and compiling each was
// most of the start-up) and now loads one. PGlite (its WebAssembly and data files are found
// next to its own module) and Temporal (native worker, loaded lazily) stay in node_modules.
// The other entries (temporal-worker, move-to-postgres) keep the unbundled tsc output.
// Last, dist/pglite-template: a data directory initialised and migrated once here, which a new
// embedded database is copied from (adapters/postgres/pglite-template.ts).
// `--if-stale` (the prepare hook, and scripts/start.mjs) skips the work when dist/ is newer than every
// source, so `npm ci` builds once and `npm start` starts at once.
import { spawnSync } from "node:child_process"
import { cpSync, existsSync, mkdirSync, rmSync, statSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { root, stamp, upToDate } from "./build-stamp.mjs"

const ifStale = process.argv.includes("--if-stale")
if (ifStale && upToDate()) process.exit(0)

// Two starts at once (a supervisor, parallel tests) build one after the other, never into the
// same files together; the second finds the build done. A lock older than 10 minutes is stale.
const lock = join(root, ".build-lock")
const sleep = (ms) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms)
for (;;) {
  try {
    mkdirSync(lock)
    break
  } catch (e) {
    if (e.code !== "EEXIST") throw e
    const age = existsSync(lock) ? Date.now() - statSync(lock, { throwIfNoEntry: false })?.mtimeMs : 0
    if (age > 600_000) rmSync(lock, { recursive: true, force: true })
    else sleep(500)
  }
}
process.on("exit", () => rmSync(lock, { recursive: true, force: true }))
if (ifStale && upToDate()) process.exit(0)

const tscBin = join(root, "node_modules/typescript/bin/tsc")
if (!existsSync(tscBin)) {
  // `prepare` after `npm ci --omit=dev`: nothing to build with; the start will say what to do.
  if (process.argv.includes("--optional")) process.exit(0)
  // A production install (npm ci --omit=dev) has no compiler: run what was built before it.
  if (existsSync(join(root, "dist/runtimes/node/server.js"))) {
    console.error("dist/ may be older than the sources, and TypeScript is not installed (npm ci --omit=dev): starting the existing build.")
    process.exit(0)
  }
  console.error("dist/ is missing and TypeScript is not installed: run `npm ci && npm run build` before `npm ci --omit=dev`, or install dev dependencies.")
  process.exit(1)
}
console.error("Building dist/ (tsc) ...")
const tsc = spawnSync(process.execPath, [tscBin, "-p", join(root, "tsconfig.build.json")], {
  stdio: "inherit",
})
if (tsc.status !== 0) process.exit(tsc.status ?? 1)
await bundleServer()
rmSync(join(root, "dist/drizzle"), { recursive: true, force: true })
cpSync(join(root, "drizzle"), join(root, "dist/drizzle"), { recursive: true })
// The embedded database's template of these migrations (a new data directory is a copy of it).
const template = spawnSync(process.execPath, [join(root, "scripts/pglite-template.mjs")], { stdio: "inherit", timeout: 180_000 })
if (template.status !== 0)
  console.error("dist/pglite-template was not built: a new embedded database runs initdb in the server (slower first start, more memory).")
mkdirSync(join(root, "dist"), { recursive: true })
writeFileSync(stamp, new Date().toISOString() + "\n")

async function bundleServer() {
  let esbuild
  try {
    esbuild = await import("esbuild")
  } catch {
    console.error("esbuild is not installed: dist/ keeps the unbundled server (slower start).")
    return
  }
  // From the TypeScript sources (as tsx and the tests run them), not from tsc's output: an
  // incremental tsc re-emits only changed files, and would leave a stale bundle in place.
  // The service is a CommonJS bundle (server-main.cjs) so that V8's code cache can compile it
  // (runtimes/node/code-cache.ts); server.js, replacing tsc's entry, runs it. The bundle sits
  // where tsc's entry did, so `import.meta.url` (the migrations folder two directories up)
  // resolves exactly as from the unbundled module.
  const common = {
    tsconfig: join(root, "tsconfig.build.json"),
    allowOverwrite: true,
    bundle: true,
    platform: "node",
    target: "node20",
    minifyWhitespace: true,
    minifySyntax: true,
    sourcemap: "linked",
    logLevel: "warning",
  }
  const bundle = join(root, "dist/runtimes/node/server-main.cjs")
  // The previous build's cache goes first: a new one is written below, or by the first start.
  rmSync(`${bundle}.v8-cache`, { force: true })
  const built = await esbuild.build({
    ...common,
    entryPoints: [join(root, "runtimes/node/main.ts")],
    outfile: bundle,
    format: "cjs",
    external: ["@electric-sql/pglite", "@electric-sql/pglite/*", "@temporalio/*"],
    define: { "import.meta.url": "__keyspaceModuleUrl" },
    // Strict, as the ES module bundle was: esbuild writes its own "use strict" after a banner,
    // where it no longer counts.
    banner: { js: '"use strict"; const __keyspaceModuleUrl = require("node:url").pathToFileURL(__filename).href;' },
    write: false,
  })
  // Dynamic imports go through the loader's `__load` (runtimes/node/code-cache.ts says why); the
  // same length as `import(`, so the source map's columns hold. Any other `import(` left (a string
  // holding the word) would break the bundle silently: the build stops instead.
  for (const out of built.outputFiles) {
    let text = out.text
    if (out.path === bundle) {
      text = text.replace(/\bimport\((?=["'])/g, "__load(")
      if (/\bimport\(/.test(text)) throw new Error(`${bundle}: an import( the build cannot route through __load`)
    }
    writeFileSync(out.path, text)
  }
  await esbuild.build({
    ...common,
    entryPoints: [join(root, "runtimes/node/bundled-server.ts")],
    outfile: join(root, "dist/runtimes/node/server.js"),
    format: "esm",
  })
  // A first code cache: the bundle's evaluation, under the flags the server sets (heap.js first).
  // Not fatal: without it the first start compiles and writes one.
  const cache = spawnSync(
    process.execPath,
    ["--input-type=module", "-e", `import ${JSON.stringify(join(root, "dist/runtimes/node/heap.js"))}; const { loadCommonJsBundle } = await import(${JSON.stringify(join(root, "dist/runtimes/node/code-cache.js"))}); loadCommonJsBundle(${JSON.stringify(bundle)}).saveCache(); process.exit(0)`],
    { stdio: "inherit", timeout: 60_000 },
  )
  if (cache.status !== 0) console.error("dist/: the server's code cache was not written (the first start writes it).")
}
