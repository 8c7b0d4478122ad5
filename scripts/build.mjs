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
  // The bundle replaces tsc's entry in place, so `import.meta.url` (the migrations folder two
  // directories up) resolves exactly as from the unbundled module.
  await esbuild.build({
    entryPoints: [join(root, "runtimes/node/server.ts")],
    outfile: join(root, "dist/runtimes/node/server.js"),
    tsconfig: join(root, "tsconfig.build.json"),
    allowOverwrite: true,
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    external: ["@electric-sql/pglite", "@electric-sql/pglite/*", "@temporalio/*"],
    // CommonJS packages inside an ES module bundle call require() for Node's built-ins.
    banner: { js: 'import { createRequire as __keyspaceRequire } from "node:module"; const require = __keyspaceRequire(import.meta.url);' },
    minifyWhitespace: true,
    minifySyntax: true,
    sourcemap: "linked",
    logLevel: "warning",
  })
}
