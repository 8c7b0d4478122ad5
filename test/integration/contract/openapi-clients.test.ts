import { readFileSync, writeFileSync } from "node:fs"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import { Ajv2020 } from "ajv/dist/2020.js"
import openapiTS, { astToString, COMMENT_HEADER } from "openapi-typescript"
import ts from "typescript"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { ADMIN_TOKEN, startHarness, type Harness } from "../../support/harness.ts"
import { exerciseEveryOperation, type Exchange } from "./openapi-usage.ts"

const here = dirname(fileURLToPath(import.meta.url))
const ROOT = join(here, "../../..")
const CLIENT_TYPES = join(ROOT, "clients/typescript/src/openapi.ts")
const USAGE = join(here, "openapi-usage.ts")
const METHODS = ["get", "put", "post", "patch", "delete"] as const

type Json = Record<string, any>

/** What `openapi-typescript <url>/openapi.json -o src/openapi.ts` writes (the client's generate script). */
const generateTypes = async (doc: Json): Promise<string> =>
  COMMENT_HEADER + astToString(await openapiTS(doc as never))

const operationsOf = (doc: Json): Array<{ method: string; path: string }> =>
  Object.entries<Json>(doc.paths).flatMap(([path, item]) =>
    METHODS.filter((m) => item[m] !== undefined).map((method) => ({ method, path })),
  )

/**
 * Issue 14.6: integrators generate a client from GET /openapi.json with openapi-typescript and
 * call it with openapi-fetch; the document must make that compile on ordinary calls, and every
 * real answer must match it.
 */
describe("generated clients: openapi-typescript + openapi-fetch against the served document", () => {
  let h: Harness
  let doc: Json
  beforeAll(async () => {
    h = await startHarness("pglite", { KEYSPACE_ALLOW_INSECURE_WEBHOOKS: "1" }, { background: false })
    doc = (await h.request("GET", "/openapi.json")).body
  })
  afterAll(async () => h?.close())

  it("the client's resource types are what openapi-typescript generates from the served document", async () => {
    const generated = await generateTypes(doc)
    // KEYSPACE_UPDATE_CLIENT_TYPES=1 (npm run client:generate) rewrites the committed file.
    if (process.env.KEYSPACE_UPDATE_CLIENT_TYPES === "1") writeFileSync(CLIENT_TYPES, generated)
    expect(readFileSync(CLIENT_TYPES, "utf8") === generated, "clients/typescript/src/openapi.ts is stale: run npm run client:generate").toBe(true)
  })

  it("an openapi-fetch usage of every operation compiles with tsc, with no casts", () => {
    const source = readFileSync(USAGE, "utf8")
    expect(source).not.toMatch(/@ts-(ignore|expect-error|nocheck)/)
    // No type assertion of any kind: `x as T`, `<T>x`, `x!`, nor an `any` anywhere.
    const casts: string[] = []
    const visit = (node: ts.Node) => {
      if (
        (ts.isAsExpression(node) && node.type.getText() !== "const") ||
        ts.isTypeAssertionExpression(node) ||
        ts.isNonNullExpression(node) ||
        node.kind === ts.SyntaxKind.AnyKeyword
      )
        casts.push(node.getText())
      ts.forEachChild(node, visit)
    }
    visit(ts.createSourceFile(USAGE, source, ts.ScriptTarget.Latest, true))
    expect(casts).toEqual([])
    for (const { method, path } of operationsOf(doc))
      expect(source, `${method.toUpperCase()} ${path} is not called`).toContain(`.${method.toUpperCase()}("${path}"`)
    const config = ts.readConfigFile(join(ROOT, "tsconfig.json"), (f) => ts.sys.readFile(f))
    const parsed = ts.parseJsonConfigFileContent(config.config, ts.sys, ROOT)
    const program = ts.createProgram([USAGE], { ...parsed.options, noEmit: true, strict: true })
    const diagnostics = ts.getPreEmitDiagnostics(program).map((d) => ts.flattenDiagnosticMessageText(d.messageText, "\n"))
    expect(diagnostics).toEqual([])
  }, 120_000)

  it("clients/typescript stands alone: it imports nothing outside its own src and compiles with its own tsconfig", () => {
    const dir = join(ROOT, "clients/typescript")
    const specifiers: string[] = []
    for (const file of ts.sys.readDirectory(join(dir, "src"), [".ts"])) {
      const info = ts.preProcessFile(readFileSync(file, "utf8"), true, true)
      for (const ref of [...info.importedFiles, ...info.referencedFiles]) specifiers.push(`${file}: ${ref.fileName}`)
    }
    expect(specifiers.length).toBeGreaterThan(3)
    expect(specifiers.filter((s) => !/: \.\/[\w-]+\.ts$/.test(s))).toEqual([])
    const pkg = JSON.parse(readFileSync(join(dir, "package.json"), "utf8"))
    expect(pkg.dependencies ?? {}).toEqual({})
    const config = ts.readConfigFile(join(dir, "tsconfig.json"), (f) => ts.sys.readFile(f))
    const parsed = ts.parseJsonConfigFileContent(config.config, ts.sys, dir)
    const program = ts.createProgram(parsed.fileNames, { ...parsed.options, noEmit: true })
    expect(ts.getPreEmitDiagnostics(program).map((d) => ts.flattenDiagnosticMessageText(d.messageText, "\n"))).toEqual([])
  }, 120_000)

  it("every operation's real answers validate against the document (JSON Schema 2020-12, ajv)", async () => {
    const exchanges: Exchange[] = []
    await exerciseEveryOperation({
      fetch: async (request) => h.booted.app.fetch(request),
      adminToken: ADMIN_TOKEN,
      record: (e) => exchanges.push(e),
    })
    const called = new Set(exchanges.map((e) => `${e.method} ${e.path}`))
    for (const { method, path } of operationsOf(doc)) expect(called, `${method} ${path}`).toContain(`${method} ${path}`)

    const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false })
    const base = "https://keyspace.test/openapi.json"
    ajv.addSchema({ $id: base, components: doc.components })
    const absolute = (node: unknown): unknown =>
      Array.isArray(node)
        ? node.map(absolute)
        : node !== null && typeof node === "object"
          ? Object.fromEntries(
              Object.entries(node).map(([k, v]) => [k, k === "$ref" && typeof v === "string" && v.startsWith("#/") ? `${base}${v}` : absolute(v)]),
            )
          : node
    const problems: string[] = []
    exchanges.forEach((e, i) => {
      const response = doc.paths[e.path][e.method].responses[String(e.status)]
      if (response === undefined) return void problems.push(`${e.method} ${e.path}: ${e.status} is not documented`)
      const media = (e.contentType ?? "").split(";")[0]!.trim()
      if (response.content === undefined) {
        if (e.body !== undefined && e.body !== "") problems.push(`${e.method} ${e.path} ${e.status}: a body where none is documented`)
        return
      }
      const content = response.content[media]
      if (content === undefined) return void problems.push(`${e.method} ${e.path} ${e.status}: ${media} is not documented`)
      const validate = ajv.compile({ $id: `https://keyspace.test/answer/${i}`, ...(absolute(content.schema) as Json) })
      if (!validate(e.body))
        problems.push(`${e.method} ${e.path} ${e.status}: ${ajv.errorsText(validate.errors)}`)
    })
    expect(problems).toEqual([])
    expect(exchanges.length).toBeGreaterThanOrEqual(operationsOf(doc).length)
  }, 120_000)
})
