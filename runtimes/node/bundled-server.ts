// First: V8 settings that must hold before the service allocates (runtimes/node/heap.ts), and
// before the bundle is compiled: V8's code cache is valid only under the flags it was made with.
import "./heap.ts"
import { fileURLToPath } from "node:url"
import { loadCommonJsBundle } from "./code-cache.ts"

/**
 * `npm start`'s server (scripts/build.mjs bundles this file into dist/runtimes/node/server.js): the
 * service's CommonJS bundle (runtimes/node/main.ts, built to server-main.cjs beside it) compiled
 * from V8's code cache. The build writes a first cache from the bundle's evaluation; the first
 * start that finds none usable writes one that also holds what its start compiled.
 */
const bundle = loadCommonJsBundle(fileURLToPath(new URL("./server-main.cjs", import.meta.url)))
await (bundle.exports.main as () => Promise<void>)()
if (!bundle.fromCache) {
  try {
    bundle.saveCache()
  } catch {
    // A read-only dist/ (an image, a package) runs without a cache, only compiling more.
  }
}
