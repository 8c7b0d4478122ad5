// Lint: type-aware promise rules plus the dependency rules of docs/architecture.md
// (runtimes -> adapters/wiring -> adapters -> workflows -> core; drivers only in adapters/postgres;
// adapters/http reaches storage only through use cases).
import tseslint from "typescript-eslint"

const nodeBuiltins = ["node:*", "fs", "path", "http", "https", "crypto", "os", "child_process", "net", "tls", "dns"]

const noRuntimes = { group: ["**/runtimes/**"], message: "adapters must not import runtimes" }
const noDrivers = {
  regex: "^(drizzle-orm|postgres|@electric-sql/pglite)(/|$)",
  message: "database drivers only in adapters/postgres/**: go through a port (core/ports) and its store",
}
const httpOnlyThroughUseCases = {
  group: ["**/postgres/**", "**/memory/**", "**/wiring/**"],
  message: "adapters/http calls use cases (adapters/http/run.ts): no stores, no memory layer, no wiring",
}

/*
 * Today's offenders, as explicit exceptions: other streams of issue #12 are still moving this
 * code. Each line says which stream removes it; the lead deletes the line when that lands (and
 * the list must end empty). Nothing new goes here.
 */
const legacyDriverImports = []
/** Files of adapters/http that still import adapters/wiring (none left; keep the list for the rule's shape). */
const legacyHttpServices = []
/** Files of adapters/http that reach a store directly (none left; keep the list for the rule's shape). */
const legacyHttpStores = []

/** A config block for `files`, or none when the list is empty. */
const when = (files, block) => (files.length > 0 ? [{ files, ...block }] : [])

export default tseslint.config(
  { ignores: ["node_modules/**", "dist/**", "drizzle/**", ".keyspace/**", "scratch/**", "bench/results/**", "runtimes/bun/**", "runtimes/deno/**"] },
  {
    files: ["**/*.ts"],
    extends: [tseslint.configs.base],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      "@typescript-eslint/no-floating-promises": "error",
      "@typescript-eslint/no-misused-promises": ["error", { checksVoidReturn: false }],
    },
  },
  {
    files: ["core/**/*.ts"],
    rules: {
      "no-restricted-imports": [
        "error",
        {
          paths: nodeBuiltins.filter((p) => !p.includes("*")),
          patterns: [
            {
              regex: "^(?!effect($|/)|libphonenumber-js($|/)|\\.{1,2}/)",
              message: "core/ imports only effect (and the pure libphonenumber-js): no I/O, no frameworks, no node builtins",
            },
            { group: ["**/adapters/**", "**/runtimes/**", "**/workflows/**"], message: "core/ must not import outer layers" },
          ],
        },
      ],
    },
  },
  {
    files: ["workflows/**/*.ts"],
    rules: {
      "no-restricted-imports": [
        "error",
        {
          paths: nodeBuiltins.filter((p) => !p.includes("*")),
          patterns: [
            { group: ["node:*"], message: "workflow code is deterministic: no Node builtins" },
            { group: ["**/adapters/**", "**/runtimes/**"], message: "workflows import only core/ and @temporalio/*" },
            noDrivers,
          ],
        },
      ],
    },
  },
  {
    // Production code outside adapters/postgres: no database driver.
    files: ["adapters/**/*.ts"],
    ignores: ["adapters/postgres/**", ...legacyDriverImports],
    rules: { "no-restricted-imports": ["error", { patterns: [noRuntimes, noDrivers] }] },
  },
  {
    files: ["runtimes/**/*.ts", "clients/**/*.ts"],
    ignores: legacyDriverImports,
    rules: { "no-restricted-imports": ["error", { patterns: [noDrivers] }] },
  },
  {
    // Rules override rather than merge per file: each block repeats the patterns that still apply.
    files: ["adapters/postgres/**/*.ts", ...legacyDriverImports.filter((f) => f.startsWith("adapters/"))],
    rules: { "no-restricted-imports": ["error", { patterns: [noRuntimes] }] },
  },
  {
    files: ["adapters/http/**/*.ts"],
    ignores: [...legacyHttpServices, ...legacyHttpStores],
    rules: { "no-restricted-imports": ["error", { patterns: [noRuntimes, noDrivers, httpOnlyThroughUseCases] }] },
  },
  // (Blocks of an emptied list are left out: eslint refuses an empty `files`.)
  ...when(legacyHttpServices, {
    rules: {
      "no-restricted-imports": [
        "error",
        { patterns: [noRuntimes, noDrivers, { ...httpOnlyThroughUseCases, group: [...httpOnlyThroughUseCases.group, "!**/wiring/services.ts"] }] },
      ],
    },
  }),
  ...when(legacyHttpStores, { rules: { "no-restricted-imports": ["error", { patterns: [noRuntimes, noDrivers] }] } }),
)
