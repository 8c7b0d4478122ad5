/**
 * Checks for the generated OpenAPI document without a validator package: a structural
 * OpenAPI 3.1 check (required fields, unique operationIds, path templates vs parameters,
 * resolvable $refs, response keys) and a small JSON Schema (2020-12 subset) validator used to
 * test examples and real responses against the document.
 */

type Json = Record<string, any>

const HTTP_METHODS = ["get", "put", "post", "delete", "options", "head", "patch", "trace"]

export const resolvePointer = (doc: Json, ref: string): unknown => {
  if (!ref.startsWith("#/")) return undefined
  let node: any = doc
  for (const raw of ref.slice(2).split("/")) {
    const key = raw.replace(/~1/g, "/").replace(/~0/g, "~")
    if (node === null || typeof node !== "object" || !(key in node)) return undefined
    node = node[key]
  }
  return node
}

const walk = (node: unknown, at: string, visit: (n: Json, at: string) => void) => {
  if (Array.isArray(node)) node.forEach((n, i) => walk(n, `${at}/${i}`, visit))
  else if (node && typeof node === "object") {
    visit(node as Json, at)
    for (const [k, v] of Object.entries(node)) walk(v, `${at}/${k}`, visit)
  }
}

/** Structural OpenAPI 3.1 problems; empty when the document is well formed. */
export const openApiProblems = (doc: Json): string[] => {
  const problems: string[] = []
  const need = (cond: unknown, msg: string) => {
    if (!cond) problems.push(msg)
  }
  need(typeof doc.openapi === "string" && /^3\.1\.\d+$/.test(doc.openapi), "openapi must be 3.1.x")
  need(
    typeof doc.info?.title === "string" && typeof doc.info?.version === "string",
    "info.title and info.version",
  )
  need(doc.paths || doc.webhooks || doc.components, "one of paths, webhooks, components")
  for (const s of doc.servers ?? []) need(typeof s.url === "string", "servers[].url")
  const schemes = doc.components?.securitySchemes ?? {}
  for (const [name, s] of Object.entries<Json>(schemes)) {
    need(
      ["apiKey", "http", "mutualTLS", "oauth2", "openIdConnect"].includes(s.type),
      `securitySchemes.${name}.type`,
    )
    if (s.type === "http") need(typeof s.scheme === "string", `securitySchemes.${name}.scheme`)
  }
  for (const key of Object.keys(doc.components?.schemas ?? {}))
    need(
      /^[a-zA-Z0-9.\-_]+$/.test(key),
      `components.schemas key ${key} is not a valid component name`,
    )
  const operationIds = new Set<string>()
  const checkOperation = (
    op: Json,
    where: string,
    template: string | undefined,
    inherited: Json[],
  ) => {
    need(op.responses && Object.keys(op.responses).length > 0, `${where}: responses required`)
    for (const [code, r] of Object.entries<Json>(op.responses ?? {})) {
      need(/^([1-5](\d\d|XX)|default)$/.test(code), `${where}: response key ${code}`)
      need(typeof (r.$ref ?? r.description) === "string", `${where} ${code}: description required`)
      for (const [media, m] of Object.entries<Json>(r.content ?? {})) {
        need(/^[\w.+-]+\/[\w.+-]+$/.test(media), `${where} ${code}: media type ${media}`)
        need(
          !(m.example !== undefined && m.examples !== undefined),
          `${where} ${code}: example and examples are exclusive`,
        )
      }
    }
    if (op.operationId !== undefined) {
      need(!operationIds.has(op.operationId), `${where}: duplicate operationId ${op.operationId}`)
      operationIds.add(op.operationId)
    }
    const params: Json[] = [...inherited, ...(op.parameters ?? [])]
    const seen = new Set<string>()
    for (const p of params) {
      need(
        typeof p.name === "string" && ["query", "header", "path", "cookie"].includes(p.in),
        `${where}: parameter name/in`,
      )
      need(!seen.has(`${p.in}:${p.name}`), `${where}: duplicate parameter ${p.name}`)
      seen.add(`${p.in}:${p.name}`)
      if (p.in === "path")
        need(p.required === true, `${where}: path parameter ${p.name} must be required`)
      need(
        (p.schema === undefined) !== (p.content === undefined),
        `${where}: parameter ${p.name} needs schema xor content`,
      )
    }
    if (template !== undefined) {
      const names = [...template.matchAll(/\{([^}]+)\}/g)].map((m) => m[1])
      for (const n of names)
        need(
          params.some((p) => p.in === "path" && p.name === n),
          `${where}: path parameter {${n}} not declared`,
        )
      for (const p of params.filter((x) => x.in === "path"))
        need(names.includes(p.name), `${where}: path parameter ${p.name} not in the template`)
    }
    if (op.requestBody)
      need(
        op.requestBody.content && Object.keys(op.requestBody.content).length > 0,
        `${where}: requestBody.content`,
      )
    for (const req of op.security ?? [])
      for (const name of Object.keys(req))
        need(name in schemes, `${where}: unknown security scheme ${name}`)
  }
  const templates = new Map<string, string>()
  for (const [path, item] of Object.entries<Json>(doc.paths ?? {})) {
    need(path.startsWith("/"), `path ${path} must start with /`)
    const normalized = path.replace(/\{[^}]+\}/g, "{}")
    need(
      !templates.has(normalized),
      `paths ${path} and ${templates.get(normalized)} are the same template`,
    )
    templates.set(normalized, path)
    for (const [method, op] of Object.entries<Json>(item)) {
      if (["parameters", "summary", "description", "servers", "$ref"].includes(method)) continue
      need(HTTP_METHODS.includes(method), `${path}: unknown key ${method}`)
      checkOperation(op, `${method.toUpperCase()} ${path}`, path, item.parameters ?? [])
    }
  }
  for (const [name, item] of Object.entries<Json>(doc.webhooks ?? {}))
    for (const [method, op] of Object.entries<Json>(item)) {
      need(HTTP_METHODS.includes(method), `webhook ${name}: unknown key ${method}`)
      checkOperation(op, `webhook ${name}`, undefined, [])
    }
  walk(doc, "#", (n, at) => {
    if (typeof n.$ref === "string")
      need(resolvePointer(doc, n.$ref) !== undefined, `${at}: unresolved $ref ${n.$ref}`)
  })
  for (const tag of doc.tags ?? []) need(typeof tag.name === "string", "tags[].name")
  return problems
}

/** Validates `value` against a JSON Schema (2020-12 subset used by the document). */
export const schemaErrors = (doc: Json, schema: unknown, value: unknown, at = "$"): string[] => {
  if (schema === true || schema === undefined) return []
  if (schema === false) return [`${at}: no value allowed`]
  const s = schema as Json
  const errors: string[] = []
  if (typeof s.$ref === "string")
    errors.push(...schemaErrors(doc, resolvePointer(doc, s.$ref), value, at))
  const typeOf = (v: unknown) =>
    v === null
      ? "null"
      : Array.isArray(v)
        ? "array"
        : typeof v === "number" && Number.isInteger(v)
          ? "integer"
          : typeof v
  if (s.type !== undefined) {
    const types: string[] = Array.isArray(s.type) ? s.type : [s.type]
    const t = typeOf(value)
    const ok = types.some((x) => x === t || (x === "number" && t === "integer"))
    if (!ok) return [...errors, `${at}: expected ${types.join("|")}, got ${t}`]
  }
  if (s.enum && !s.enum.some((e: unknown) => JSON.stringify(e) === JSON.stringify(value)))
    errors.push(`${at}: not one of ${JSON.stringify(s.enum)}`)
  if ("const" in s && JSON.stringify(s.const) !== JSON.stringify(value))
    errors.push(`${at}: expected ${JSON.stringify(s.const)}`)
  if (typeof value === "string") {
    const len = [...value].length
    if (s.minLength !== undefined && len < s.minLength)
      errors.push(`${at}: shorter than ${s.minLength}`)
    if (s.maxLength !== undefined && len > s.maxLength)
      errors.push(`${at}: longer than ${s.maxLength}`)
    if (s.pattern !== undefined && !new RegExp(s.pattern, "u").test(value))
      errors.push(`${at}: does not match ${s.pattern}`)
  }
  if (typeof value === "number") {
    if (s.minimum !== undefined && value < s.minimum) errors.push(`${at}: below ${s.minimum}`)
    if (s.maximum !== undefined && value > s.maximum) errors.push(`${at}: above ${s.maximum}`)
    if (s.exclusiveMinimum !== undefined && value <= s.exclusiveMinimum)
      errors.push(`${at}: not above ${s.exclusiveMinimum}`)
    if (s.exclusiveMaximum !== undefined && value >= s.exclusiveMaximum)
      errors.push(`${at}: not below ${s.exclusiveMaximum}`)
  }
  if (Array.isArray(value)) {
    if (s.minItems !== undefined && value.length < s.minItems)
      errors.push(`${at}: fewer than ${s.minItems} items`)
    if (s.maxItems !== undefined && value.length > s.maxItems)
      errors.push(`${at}: more than ${s.maxItems} items`)
    const prefix: unknown[] = s.prefixItems ?? []
    value.forEach((v, i) => {
      const itemSchema = i < prefix.length ? prefix[i] : s.items
      errors.push(...schemaErrors(doc, itemSchema, v, `${at}[${i}]`))
    })
  }
  if (value !== null && typeof value === "object" && !Array.isArray(value)) {
    const obj = value as Record<string, unknown>
    for (const r of s.required ?? []) if (!(r in obj)) errors.push(`${at}: missing ${r}`)
    const props: Json = s.properties ?? {}
    for (const [k, v] of Object.entries(obj)) {
      if (k in props) errors.push(...schemaErrors(doc, props[k], v, `${at}.${k}`))
      else {
        const pattern = Object.entries<unknown>(s.patternProperties ?? {}).find(([p]) =>
          new RegExp(p, "u").test(k),
        )
        if (pattern) errors.push(...schemaErrors(doc, pattern[1], v, `${at}.${k}`))
        else if (s.additionalProperties !== undefined)
          errors.push(...schemaErrors(doc, s.additionalProperties, v, `${at}.${k}`))
      }
      if (s.propertyNames) errors.push(...schemaErrors(doc, s.propertyNames, k, `${at}{${k}}`))
    }
  }
  for (const sub of s.allOf ?? []) errors.push(...schemaErrors(doc, sub, value, at))
  if (s.anyOf && !s.anyOf.some((sub: unknown) => schemaErrors(doc, sub, value, at).length === 0))
    errors.push(`${at}: matches none of anyOf`)
  if (s.oneOf) {
    const n = s.oneOf.filter(
      (sub: unknown) => schemaErrors(doc, sub, value, at).length === 0,
    ).length
    if (n !== 1) errors.push(`${at}: matches ${n} of oneOf`)
  }
  return errors
}

/** The schema of an operation's JSON response for a status, or undefined. */
export const responseSchema = (doc: Json, method: string, path: string, status: number): unknown =>
  doc.paths?.[path]?.[method.toLowerCase()]?.responses?.[String(status)]?.content?.[
    "application/json"
  ]?.schema
