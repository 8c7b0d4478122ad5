import { readFileSync, renameSync, rmSync, writeFileSync } from "node:fs"
import { createRequire } from "node:module"
import { dirname } from "node:path"
import { Script } from "node:vm"

/** A CommonJS bundle evaluated in this process, and whether V8 took its code from the cache. */
export interface CachedBundle {
  readonly exports: Record<string, unknown>
  /** The cache file held code this V8 accepted (same source, V8 version and flags). */
  readonly fromCache: boolean
  /** Writes V8's code for the bundle as compiled so far (functions already run included). */
  readonly saveCache: () => void
}

/** Where the code cache of `file` lives: beside it, one per bundle. */
export const codeCacheOf = (file: string): string => `${file}.v8-cache`

/**
 * Evaluates the CommonJS bundle `file` as Node's loader would, compiled from V8's code cache
 * when one matches. Node 20 has no compile cache for modules (`module.enableCompileCache` is
 * Node 22), and compiling the 1.8 MB server bundle was a quarter of a start (issue 13, session
 * 15): `vm.Script` takes `cachedData`, and V8 checks it against the source, its own version and
 * its flags, compiling afresh when any differs.
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
  let cachedData: Buffer | undefined
  try {
    cachedData = readFileSync(cacheFile)
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
      // Written aside and renamed: processes starting together never read half a cache.
      const part = `${cacheFile}.${process.pid}.part`
      try {
        writeFileSync(part, script.createCachedData())
        renameSync(part, cacheFile)
      } finally {
        rmSync(part, { force: true })
      }
    },
  }
}
