import { createHash, randomUUID } from "node:crypto"
import { readFileSync, renameSync, rmSync, writeFileSync } from "node:fs"
import { createRequire } from "node:module"
import { dirname } from "node:path"
import { Script } from "node:vm"

/** A CommonJS bundle evaluated in this process, and whether V8 took its code from the cache. */
export interface CachedBundle {
  readonly exports: Record<string, unknown>
  /** The cache file held code for this very source that this V8 accepted (its version and flags). */
  readonly fromCache: boolean
  /** Writes V8's code for the bundle as compiled so far (functions already run included). */
  readonly saveCache: () => void
}

/** Where the code cache of `file` lives: beside it, one per bundle. */
export const codeCacheOf = (file: string): string => `${file}.v8-cache`

/**
 * A cache file starts with the SHA-1 of the source it was made from (identity, not security):
 * V8 checks a cache against the source's length only, and a bundle rebuilt with a literal of the
 * same length would otherwise run the old code.
 */
const ID_BYTES = 20
const idOf = (source: string): Buffer => createHash("sha1").update(source).digest()

/**
 * Evaluates the CommonJS bundle `file` as Node's loader would, compiled from V8's code cache
 * when one matches. Node 20 has no compile cache for modules (`module.enableCompileCache` is
 * Node 22), and compiling the 1.8 MB server bundle was a fifth of a start (issue 13, session
 * 15): `vm.Script` takes `cachedData`, and V8 checks it against its own version and flags,
 * compiling afresh when either differs.
 *
 * The bundle's dynamic imports (PGlite, Temporal's client) are written `__load(...)` by the build
 * (scripts/build.mjs, the same length as `import(`, so the source map holds): a function compiled
 * from a code cache on Node 20 loses the dynamic import hook of `vm`
 * (ERR_VM_DYNAMIC_IMPORT_CALLBACK_MISSING), and that hook is experimental and warns. `__load` is
 * this module's own `import()`, resolving from dist/ as the bundle's file would.
 */
export const loadCommonJsBundle = (file: string): CachedBundle => {
  const cacheFile = codeCacheOf(file)
  const source = readFileSync(file, "utf8")
  const id = idOf(source)
  let cachedData: Buffer | undefined
  try {
    const cache = readFileSync(cacheFile)
    cachedData = cache.subarray(0, ID_BYTES).equals(id) ? cache.subarray(ID_BYTES) : undefined
  } catch {
    cachedData = undefined
  }
  // Node's own wrapper, on the first line, so line numbers in stack traces stay the bundle's.
  const script = new Script(`(function (exports, require, module, __filename, __dirname, __load) {${source}\n})`, {
    filename: file,
    ...(cachedData === undefined ? {} : { cachedData }),
  })
  const module = { exports: {} as Record<string, unknown> }
  const load = (specifier: string): Promise<unknown> => import(specifier)
  ;(script.runInThisContext() as (...args: unknown[]) => void)(module.exports, createRequire(file), module, file, dirname(file), load)
  return {
    exports: module.exports,
    fromCache: cachedData !== undefined && !script.cachedDataRejected,
    saveCache: () => {
      // Written aside and renamed: processes starting together never read half a cache (the
      // random part: containers sharing dist/ may all be pid 1).
      const part = `${cacheFile}.${randomUUID()}.part`
      try {
        writeFileSync(part, Buffer.concat([id, script.createCachedData()]))
        renameSync(part, cacheFile)
      } finally {
        rmSync(part, { force: true })
      }
    },
  }
}
