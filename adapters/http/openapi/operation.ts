import type { Schema } from "effect"
import type { AppError } from "../error-table.ts"

/**
 * One documented endpoint. Each surface declares its operations in
 * adapters/http/openapi/operations/<surface>.ts, pointing at the same Effect Schemas its route
 * handlers validate with; adapters/http/openapi/catalog.ts lists the surfaces.
 */

export type HttpMethod = "get" | "post" | "put" | "patch" | "delete"

/** none: public; bearer: a token from POST /auth/accessToken; operator: KEYSPACE_ADMIN_TOKEN. */
export type Security = "none" | "bearer" | "operator"

export interface Example {
  readonly summary: string
  readonly value: unknown
}

export interface ApiResponse {
  readonly status: number
  readonly description: string
  /** Schema of the envelope's `data`; the response is the spec's envelope around it. */
  readonly data?: Schema.Top
  /** Adds the envelope's `meta` ({limit, offset, total}) of paginated lists. */
  readonly paginated?: boolean
  /** A JSON body NOT wrapped in the envelope (token endpoint, /healthz). */
  readonly raw?: Schema.Top
  /** A non-JSON body (HTML, Prometheus text); schema is a string. */
  readonly contentType?: string
  readonly examples?: Readonly<Record<string, Example>>
}

export interface ApiOperation {
  readonly method: HttpMethod
  /** The route pattern exactly as Hono serves it, e.g. "/meetings/:id". */
  readonly path: string
  readonly operationId: string
  readonly tag: string
  readonly summary: string
  readonly description?: string
  readonly security: Security
  /** Struct of the path parameters (default: each is a string). */
  readonly pathParams?: Schema.Top
  readonly pathParamDescriptions?: Readonly<Record<string, string>>
  /** Struct of the query parameters, the one the handler decodes with. */
  readonly query?: Schema.Top
  /** Query keys that take several values (repeated keys, `key[]` or comma-separated). */
  readonly queryArrays?: readonly string[]
  readonly body?: {
    readonly schema: Schema.Top
    readonly required: boolean
    readonly description?: string
    readonly examples?: Readonly<Record<string, Example>>
  }
  /** An HTML form post (application/x-www-form-urlencoded) instead of a JSON body. */
  readonly formBody?: Schema.Top
  readonly responses: readonly ApiResponse[]
  /** false for pages meant for people: their errors are pages, not the JSON envelope. */
  readonly defaultErrors?: false
  /**
   * Error tags this operation can end in, beyond those every operation of its kind gets
   * (401/503 for bearer routes, 400 for bodies, 500). Status and code come from the error table.
   */
  readonly errors?: ReadonlyArray<AppError["_tag"]>
  /** Extra error rows that are not tagged errors (e.g. 401 from the token endpoint). */
  readonly extraErrors?: ReadonlyArray<{
    readonly status: number
    readonly code: string
    readonly meaning: string
  }>
}

/** A surface's operations, declared beside nothing else so a new surface is one new file. */
export interface OperationGroup {
  readonly tag: string
  readonly description: string
  readonly operations: readonly ApiOperation[]
}

export const defineGroup = (group: OperationGroup): OperationGroup => group
