// Lint: type-aware promise rules plus the dependency rule (runtimes -> adapters -> workflows -> core).
import tseslint from "typescript-eslint"

const nodeBuiltins = ["node:*", "fs", "path", "http", "https", "crypto", "os", "child_process", "net", "tls", "dns"]

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
          patterns: [
            {
              regex: "^(?!effect($|/)|libphonenumber-js($|/)|\\.{1,2}/)",
              message: "core/ imports only effect (and the pure libphonenumber-js): no I/O, no frameworks",
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
          ],
        },
      ],
    },
  },
  {
    files: ["adapters/**/*.ts"],
    rules: {
      "no-restricted-imports": ["error", { patterns: [{ group: ["**/runtimes/**"], message: "adapters must not import runtimes" }] }],
    },
  },
)
