import { JsonSchema, Schema, SchemaRepresentation } from "effect"
import { ConflictKey } from "../../../core/member/errors.ts"
import { type AppError, errorTable, INTERNAL_ERROR } from "../error-table.ts"
import { queryIntegerBounds } from "../schemas/text-rules.ts"
import { SUCCESS_CODE } from "../envelope.ts"
import type { ApiOperation, ApiResponse, Example, OperationGroup } from "./operation.ts"
import { WEBHOOKS_TAG, webhookOperations } from "./webhooks.ts"

/**
 * Builds the OpenAPI 3.1 document from the operation catalog. Every request and response
 * schema is compiled from its Effect Schema in one pass (shared `components.schemas`), so the
 * document cannot drift from what the handlers validate.
 */

export const API_VERSION = "1.11.1"

type Json = Record<string, unknown>

/** What each error means, for the document; keyed by every tag so a new tag must be described. */
const errorMeaning: { readonly [K in AppError["_tag"]]: string } = {
  ValidationFailed:
    "Validation failed; message is an array with one string per violated constraint.",
  BookingRuleViolated:
    "The booking breaks an asset rule (hours, lead time, duration); one message per rule.",
  Unauthenticated: "Missing, invalid or expired token.",
  SubjectUnresolved:
    "act_as subject could not be resolved; on partner routes the member record is missing.",
  Forbidden: "Forbidden, including a non-app_credentials token on partner routes.",
  SubjectNotAuthorized: "The app is not authorized for this member or subject.",
  NotFound: "Resource not found.",
  StateConflict: "State conflict.",
  IllegalTransition:
    "The booking's status does not allow this action (data.status is the current one).",
  MemberOffboarded: "The member is offboarded.",
  IdentityConflict: "Identity conflict; data.conflictKey (and linkedExternalUserId when known).",
  SlotTaken: "The time slot is already reserved; recoverable.",
  TooManyUnpaidHolds:
    "Too many unpaid bookings held at once (data.limit); pay or cancel one first.",
  RateLimited: "Rate limit exceeded; Retry-After says when to try again.",
  AuthUnavailable: "Authentication temporarily unavailable; the token was not rejected. Retryable.",
  UpstreamUnavailable: "Upstream unavailable. Retryable.",
}

interface ErrorRow {
  readonly status: number
  readonly code: string
  readonly meaning: string
}

const rowOf = (tag: AppError["_tag"]): ErrorRow => ({
  status: errorTable[tag].status,
  code: errorTable[tag].code,
  meaning: errorMeaning[tag],
})

/** Every error code the service answers with, from the error table plus the fixed ones. */
export const allErrorRows = (): ErrorRow[] => {
  const rows = (Object.keys(errorTable) as AppError["_tag"][]).map(rowOf)
  rows.push({ status: 404, code: "SV005", meaning: "No such route." })
  rows.push({ status: 413, code: "SV001", meaning: "Request body too large." })
  rows.push({
    status: INTERNAL_ERROR.status,
    code: INTERNAL_ERROR.code,
    meaning: "Internal error. Retryable.",
  })
  return rows
}

/** Hono `/meetings/:id` -> OpenAPI `/meetings/{id}`. */
export const toOpenApiPath = (path: string): string =>
  path.replace(/:([A-Za-z0-9_]+)(\{[^}]*\})?/g, "{$1}")

const pathParamNames = (path: string): string[] =>
  [...path.matchAll(/:([A-Za-z0-9_]+)/g)].map((m) => m[1]!)

/**
 * Effect's JSON codec writes Schema.Number as `number | "Infinity" | "-Infinity" | "NaN"` so
 * non-finite values survive a round trip. Our handlers decode parsed JSON with the schema itself,
 * where those strings are rejected and JSON has no non-finite numbers: the honest type is number.
 */
const finiteNumbers = (node: unknown): unknown => {
  if (Array.isArray(node)) return node.map(finiteNumbers)
  if (node === null || typeof node !== "object") return node
  const o = node as Json
  const alts = o.anyOf as Json[] | undefined
  if (
    alts?.length === 2 &&
    alts[0]?.type === "number" &&
    Object.keys(alts[0]).length === 1 &&
    alts[1]?.type === "string" &&
    JSON.stringify(alts[1].enum) === JSON.stringify(["Infinity", "-Infinity", "NaN"])
  ) {
    const { anyOf: _, ...rest } = o
    return { ...rest, type: "number" }
  }
  return Object.fromEntries(Object.entries(o).map(([k, v]) => [k, finiteNumbers(v)]))
}

/**
 * Objects stay open (clients tolerate additions), which JSON Schema already means when
 * additionalProperties is absent. Effect writes `additionalProperties: true` on every struct,
 * and code generators turn that into an index signature that swallows the declared fields of a
 * union (openapi-typescript types `data` of Meeting | MeetingDraft as unknown). So it is dropped
 * where properties are declared, and said explicitly on a bare `{type: "object"}` (which
 * generators would otherwise read as an empty object).
 */
const openObjects = (node: unknown): unknown => {
  if (Array.isArray(node)) return node.map(openObjects)
  if (node === null || typeof node !== "object") return node
  const o = Object.fromEntries(Object.entries(node as Json).map(([k, v]) => [k, openObjects(v)])) as Json
  if (o.type === "object" && o.properties !== undefined && o.additionalProperties === true) delete o.additionalProperties
  else if (o.type === "object" && o.properties === undefined && o.additionalProperties === undefined && o.patternProperties === undefined)
    o.additionalProperties = true
  return o
}

/** Compiles many Effect Schemas at once into OpenAPI 3.1 schemas sharing one definitions pool. */
class SchemaPool {
  private readonly schemas: Schema.Top[] = []
  private readonly slots: Array<{ index: number; assign: (js: Json) => void }> = []

  /** Returns a placeholder object filled in by `compile`. */
  ref(schema: Schema.Top, side: "encoded" | "type" = "encoded"): Json {
    const target: Json = {}
    const s = side === "type" ? Schema.toType(schema) : schema
    this.schemas.push(s)
    this.slots.push({ index: this.schemas.length - 1, assign: (js) => Object.assign(target, js) })
    return target
  }

  compile(): Record<string, Json> {
    if (this.schemas.length === 0) return {}
    const asts = this.schemas.map((s) => Schema.toCodecJson(s).ast) as [
      (typeof this.schemas)[number]["ast"],
      ...Array<(typeof this.schemas)[number]["ast"]>,
    ]
    const rep = SchemaRepresentation.toRepresentations(asts)
    const multi = SchemaRepresentation.toJsonSchemaMultiDocument(rep)
    const openapi = JsonSchema.toMultiDocumentOpenApi3_1(multi)
    for (const slot of this.slots) slot.assign(openObjects(finiteNumbers(openapi.schemas[slot.index])) as Json)
    return openObjects(finiteNumbers(openapi.definitions)) as Record<string, Json>
  }
}

const examplesJson = (examples: Readonly<Record<string, Example>> | undefined) =>
  examples
    ? { examples: Object.fromEntries(Object.entries(examples).map(([k, e]) => [k, { ...e }])) }
    : {}

const envelopeOf = (data: Json | undefined, paginated: boolean): Json => ({
  allOf: [
    { $ref: "#/components/schemas/SuccessEnvelope" },
    {
      type: "object",
      properties: {
        ...(data ? { data } : {}),
        ...(paginated ? { meta: { $ref: "#/components/schemas/PageMeta" } } : {}),
      },
      // A documented data is always sent: generated clients then type it as present.
      required: [...(data ? ["data"] : []), ...(paginated ? ["meta"] : [])],
    },
  ],
})

const errorResponse = (status: number, rows: readonly ErrorRow[]): Json => {
  const codes = [...new Set(rows.map((r) => r.code))]
  return {
    description: rows.map((r) => `\`${r.code}\`: ${r.meaning}`).join("\n\n"),
    content: {
      "application/json": {
        schema: {
          allOf: [
            { $ref: "#/components/schemas/ErrorEnvelope" },
            { type: "object", properties: { code: { type: "string", enum: codes } } },
          ],
        },
        examples: Object.fromEntries(
          rows.map((r, i) => [
            `${r.code}_${i}`,
            {
              summary: r.meaning,
              value: {
                code: r.code,
                success: false,
                message:
                  r.code === "SV001" && status === 400 ? ["title: must not be empty"] : r.meaning,
              },
            },
          ]),
        ),
      },
    },
    ...(status === 429 || status === 503
      ? {
          headers: {
            "Retry-After": {
              schema: { type: "integer" },
              description:
                "Seconds to wait before retrying: sent with a rate limit (SV036) and a 503, not with SV040 (no wait frees an unpaid hold; pay or cancel one).",
            },
          },
        }
      : {}),
  }
}

const errorsOf = (op: ApiOperation): ErrorRow[] => {
  const rows: ErrorRow[] = []
  if (op.defaultErrors === false) return [...(op.extraErrors ?? [])]
  const add = (r: ErrorRow) => {
    if (!rows.some((x) => x.status === r.status && x.code === r.code && x.meaning === r.meaning))
      rows.push(r)
  }
  const hasInput = op.body !== undefined || op.query !== undefined || op.pathParams !== undefined
  if (hasInput || op.operationId === "createAccessToken") add(rowOf("ValidationFailed"))
  if (op.body) add({ status: 413, code: "SV001", meaning: "Request body too large." })
  if (op.security === "bearer") {
    add(rowOf("Unauthenticated"))
    add(rowOf("AuthUnavailable"))
  }
  if (op.security === "operator")
    add({ ...rowOf("Unauthenticated"), meaning: "Operator token required." })
  for (const tag of op.errors ?? []) add(rowOf(tag))
  for (const extra of op.extraErrors ?? []) add(extra)
  add(rowOf("UpstreamUnavailable"))
  add({
    status: INTERNAL_ERROR.status,
    code: INTERNAL_ERROR.code,
    meaning: "Internal error. Retryable.",
  })
  return rows
}

const responseJson = (pool: SchemaPool, r: ApiResponse): Json => {
  if (r.contentType) {
    return {
      description: r.description,
      content: { [r.contentType]: { schema: { type: "string" }, ...examplesJson(r.examples) } },
    }
  }
  if (!r.data && !r.raw && (r.status === 204 || (r.status >= 300 && r.status < 400)))
    return { description: r.description }
  const schema = r.raw
    ? pool.ref(r.raw)
    : envelopeOf(r.data ? pool.ref(r.data) : undefined, r.paginated ?? false)
  return {
    description: r.description,
    content: { "application/json": { schema, ...examplesJson(r.examples) } },
  }
}

const SECURITY_NAME = { bearer: "bearerAuth", operator: "operatorToken" } as const

/** Field names and JSON schemas of a Struct, for parameters. */
const structFields = (
  schema: Schema.Top | undefined,
): Array<{ name: string; required: boolean; schema: Schema.Top }> => {
  if (!schema) return []
  const fields = (schema as unknown as { fields?: Record<string, Schema.Top> }).fields
  if (!fields) throw new Error("query and path parameter schemas must be Schema.Struct")
  const doc = Schema.toJsonSchemaDocument(schema)
  const required = new Set((doc.schema.required as string[] | undefined) ?? [])
  return Object.entries(fields).map(([name, s]) => ({
    name,
    required: required.has(name),
    schema: s,
  }))
}

const operationJson = (pool: SchemaPool, op: ApiOperation): Json => {
  const pathFields = new Map(structFields(op.pathParams).map((f) => [f.name, f]))
  const parameters: Json[] = pathParamNames(op.path).map((name) => {
    const field = pathFields.get(name)
    return {
      name,
      in: "path",
      required: true,
      ...(op.pathParamDescriptions?.[name] ? { description: op.pathParamDescriptions[name] } : {}),
      schema: field ? pool.ref(field.schema, "type") : { type: "string" },
    }
  })
  for (const f of structFields(op.query)) {
    const isArray = op.queryArrays?.includes(f.name) ?? false
    // Validated as decimal text, but an integer to the client (generated clients send numbers).
    const integer = queryIntegerBounds(f.schema)
    parameters.push({
      name: f.name,
      in: "query",
      required: f.required,
      schema: integer ? { type: "integer", ...integer } : pool.ref(f.schema, "type"),
      ...(isArray
        ? {
            style: "form",
            explode: true,
            description: "Repeat the key, use `key[]`, or separate values with commas.",
          }
        : {}),
    })
  }
  const responses: Json = {}
  for (const r of op.responses) responses[String(r.status)] = responseJson(pool, r)
  const byStatus = new Map<number, ErrorRow[]>()
  for (const row of errorsOf(op))
    byStatus.set(row.status, [...(byStatus.get(row.status) ?? []), row])
  for (const [status, rows] of [...byStatus].sort((a, b) => a[0] - b[0]))
    responses[String(status)] = errorResponse(status, rows)
  // RFC 6750 3 and RFC 6749 5.1 (adapters/http/oauth-headers.ts).
  const withHeaders = (key: string, headers: Json) => {
    const r = responses[key] as Json | undefined
    if (r) responses[key] = { ...r, headers: { ...(r.headers as Json | undefined), ...headers } }
  }
  if (op.security !== "none")
    withHeaders("401", {
      "WWW-Authenticate": {
        description: 'Bearer challenge; `error="invalid_token"` when a token was sent and refused.',
        schema: { type: "string" },
      },
    })
  if (op.operationId === "createAccessToken")
    for (const key of Object.keys(responses))
      withHeaders(key, {
        "Cache-Control": { description: "Always no-store.", schema: { type: "string", const: "no-store" } },
        Pragma: { description: "Always no-cache.", schema: { type: "string", const: "no-cache" } },
      })
  return {
    operationId: op.operationId,
    tags: [op.tag],
    summary: op.summary,
    ...(op.description ? { description: op.description } : {}),
    security: op.security === "none" ? [] : [{ [SECURITY_NAME[op.security]]: [] }],
    ...(parameters.length > 0 ? { parameters } : {}),
    ...(op.formBody
      ? {
          requestBody: {
            required: true,
            content: { "application/x-www-form-urlencoded": { schema: pool.ref(op.formBody) } },
          },
        }
      : {}),
    ...(op.body
      ? {
          requestBody: {
            required: op.body.required,
            ...(op.body.description ? { description: op.body.description } : {}),
            content: {
              "application/json": {
                schema: pool.ref(op.body.schema),
                ...examplesJson(op.body.examples),
              },
            },
          },
        }
      : {}),
    responses,
  }
}

const errorTableMarkdown = () =>
  [
    "| HTTP | Code | Meaning |",
    "|---|---|---|",
    ...allErrorRows()
      .sort((a, b) => a.status - b.status || a.code.localeCompare(b.code))
      .map((r) => `| ${r.status} | ${r.code} | ${r.meaning} |`),
  ].join("\n")

const DESCRIPTION = `Room and desk booking service for smart buildings.

**Authentication.** Exchange app credentials for a token at \`POST /auth/accessToken\`, then send
\`Authorization: Bearer <access_token>\`. Read lifetimes from \`expires_in\`; refresh when expiry is
within 5 minutes; on 401 re-authenticate once, retry once, then give up.

**Envelope.** Every JSON response except the token endpoint is \`{code, success, message, data, meta?}\`;
\`code\` is \`${SUCCESS_CODE}\` on success. Branch on HTTP status plus \`code\`; message text is not stable.

**Retries.** Retry only network failures, 5xx and 429, with exponential backoff, at most 3 attempts;
never auto-retry other 4xx. There is no idempotency key for POST /meetings: after a timeout,
reconcile through GET /meetings rather than resending.

**Lists.** With recurring series expanded, \`_id\` is not unique in GET /meetings: key rows on
\`occurrenceEventId\` when present, else \`_id\`.

**Errors.**

${errorTableMarkdown()}`

export interface DocumentOptions {
  /** Base address of the server, for `servers`. */
  readonly serverUrl: string
  /** Route patterns the app serves as "METHOD /path"; operations not served are left out. */
  readonly served?: ReadonlySet<string>
}

export const routeKey = (method: string, path: string) => `${method.toUpperCase()} ${path}`

export const buildOpenApiDocument = (
  groups: readonly OperationGroup[],
  options: DocumentOptions,
): Json => {
  const pool = new SchemaPool()
  const paths: Record<string, Json> = {}
  const tags: Json[] = []
  for (const group of groups) {
    const ops = group.operations.filter(
      (op) => !options.served || options.served.has(routeKey(op.method, op.path)),
    )
    if (ops.length === 0) continue
    if (!tags.some((t) => t.name === group.tag))
      tags.push({ name: group.tag, description: group.description })
    for (const op of ops) {
      const p = toOpenApiPath(op.path)
      paths[p] = { ...paths[p], [op.method]: operationJson(pool, op) }
    }
  }
  const webhooks = webhookOperations((s) => pool.ref(s))
  tags.push({ name: WEBHOOKS_TAG, description: "What the service POSTs to a project's webhook receivers (the `webhooks` section)." })
  const definitions = pool.compile()
  return {
    openapi: "3.1.0",
    info: {
      title: "Keyspace booking service",
      version: API_VERSION,
      description: DESCRIPTION,
      license: { name: "Apache-2.0", identifier: "Apache-2.0" },
    },
    jsonSchemaDialect: "https://spec.openapis.org/oas/3.1/dialect/base",
    servers: [{ url: options.serverUrl }],
    tags,
    paths,
    webhooks,
    components: {
      schemas: {
        ...definitions,
        SuccessEnvelope: {
          type: "object",
          description: "The spec's envelope around every JSON response except the token endpoint.",
          properties: {
            code: { type: "string", const: SUCCESS_CODE },
            success: { type: "boolean", const: true },
            message: { type: "string" },
            data: {},
          },
          required: ["code", "success", "message"],
        },
        ErrorEnvelope: {
          type: "object",
          properties: {
            code: { type: "string", pattern: "^SV\\d{3}$" },
            success: { type: "boolean", const: false },
            message: {
              description:
                "A string, or an array of strings for validation errors (one per violated constraint).",
              oneOf: [{ type: "string" }, { type: "array", items: { type: "string" } }],
            },
            data: {
              description: "Details of some errors; each carries the fields of its own case.",
              type: "object",
              properties: {
                conflictKey: {
                  description: "409 SV006 identity conflict: the key that resolves to another member.",
                  type: "string",
                  enum: [...ConflictKey.literals],
                },
                linkedExternalUserId: {
                  description: "409 SV006 identity conflict: the externalUserId the member is linked to (your own app's only).",
                  type: "string",
                },
                status: { description: "409 SV006: the booking's status that forbids the action.", type: "string" },
                limit: { description: "429 SV040: the unpaid bookings one organizer may hold.", type: "integer" },
                retryAfterSeconds: { description: "429 SV036: seconds to wait (also the Retry-After header).", type: "integer" },
              },
            },
          },
          required: ["code", "success", "message"],
        },
        PageMeta: {
          type: "object",
          properties: {
            limit: { type: "integer", minimum: 0 },
            offset: { type: "integer", minimum: 0 },
            total: { type: "integer", minimum: 0 },
          },
          required: ["limit", "offset", "total"],
        },
      },
      securitySchemes: {
        bearerAuth: {
          type: "http",
          scheme: "bearer",
          description:
            "Access token from POST /auth/accessToken (grant app_credentials, refresh_token or act_as).",
        },
        operatorToken: {
          type: "http",
          scheme: "bearer",
          description: "The operator token (KEYSPACE_ADMIN_TOKEN) for /admin/v1.",
        },
      },
    },
  }
}
