import { Result, Schema, SchemaIssue } from "effect"
import type { Context } from "hono"
import { ValidationFailed } from "../../core/shared/errors.ts"
import { bodyBrokeOff } from "./request-body.ts"

const formatter = SchemaIssue.makeFormatterStandardSchemaV1()

/** Schema issues -> one message per violated constraint, prefixed by the field path. */
export const issueMessages = (issue: SchemaIssue.Issue): string[] =>
  formatter(issue).issues.map((i) => {
    const path = (i.path ?? []).map((p) => (typeof p === "object" ? String(p.key) : String(p))).join(".")
    return path ? `${path}: ${i.message}` : i.message
  })

/** Decode untrusted input or throw ValidationFailed (400 SV001). Unknown keys are dropped. */
export const decodeOrFail = <S extends Schema.Top>(schema: S, input: unknown): S["Type"] => {
  const r = Schema.decodeUnknownResult(schema as never)(input, { errors: "all" }) as Result.Result<
    S["Type"],
    Schema.SchemaError
  >
  if (Result.isFailure(r)) throw new ValidationFailed({ messages: issueMessages(r.failure.issue) })
  return r.success
}

/**
 * Runs each decode step and answers every step's violations in one 400 (a path parameter's and
 * the body's together); the steps' values when all pass.
 */
export const decodeAll = <T extends ReadonlyArray<() => unknown>>(...steps: T): { -readonly [K in keyof T]: ReturnType<T[K]> } => {
  const messages: string[] = []
  const values: unknown[] = []
  for (const step of steps) {
    try {
      values.push(step())
    } catch (e) {
      if (!(e instanceof ValidationFailed)) throw e
      messages.push(...e.messages)
    }
  }
  if (messages.length > 0) throw new ValidationFailed({ messages })
  return values as never
}

const LONE_SURROGATE = /\p{Cs}/u
/** A JSON escape of a surrogate (\uD800-\uDFFF): only such text can parse to a lone one. */
const SURROGATE_ESCAPE = /\\u[dD][89a-fA-F]/
const NUL = "\u0000"
/** Enough to name the culprits; a body of a million NULs must not answer a million lines. */
const MAX_NUL_MESSAGES = 50

const shown = (key: string) => key.replaceAll(NUL, "\\u0000")

/**
 * THE rule for U+0000 in client input: PostgreSQL text and jsonb cannot hold it, so every JSON
 * body and query string is refused at decode time (400 SV001, one message per field, named by
 * its path as schema messages are), before any schema or SQL sees it. Iterative: a deeply
 * nested body that JSON.parse accepted must not overflow the stack here.
 */
export const nulViolations = (value: unknown): string[] => {
  const messages: string[] = []
  let more = 0
  const report = (message: string) => (messages.length < MAX_NUL_MESSAGES ? messages.push(message) : more++)
  const stack: Array<{ value: unknown; path: string }> = [{ value, path: "" }]
  while (stack.length > 0) {
    const { value: v, path } = stack.pop()!
    if (typeof v === "string") {
      if (v.includes(NUL)) report(`${path || "body"}: must not contain NUL characters`)
    } else if (typeof v === "object" && v !== null) {
      const entries = Array.isArray(v) ? v.map((item, i) => [String(i), item] as const) : Object.entries(v)
      for (let i = entries.length - 1; i >= 0; i--) {
        const [key, item] = entries[i]!
        const at = path ? `${path}.${shown(key)}` : shown(key)
        if (key.includes(NUL)) report(`${at}: field names must not contain NUL characters`)
        stack.push({ value: item, path: at })
      }
    }
  }
  if (more > 0) messages.push(`body: ${more} more fields contain NUL characters`)
  return messages
}

const refuseNul = (value: unknown) => {
  const messages = nulViolations(value)
  if (messages.length > 0) throw new ValidationFailed({ messages })
}

/** The request body as JSON; malformed JSON or a non-object body is 400 SV001. */
export const readJson = async (c: Context, options: { optional?: boolean } = {}): Promise<unknown> => {
  const text = await c.req.text().catch(() => {
    throw bodyBrokeOff(c)
  })
  if (text.trim() === "") {
    if (options.optional) return {}
    throw new ValidationFailed({ messages: ["body: a JSON object is required"] })
  }
  let value: unknown
  let illFormed = false
  try {
    // A lone UTF-16 surrogate ("\ud800") is valid JSON but not valid text for PostgreSQL. Only
    // a text with a surrogate escape or a raw lone surrogate can hold one: the rest parse
    // without a reviver (a reviver call per value made the parse of a create 3-6x slower).
    value =
      SURROGATE_ESCAPE.test(text) || LONE_SURROGATE.test(text)
        ? JSON.parse(text, (key, v: unknown) => {
            if (LONE_SURROGATE.test(key) || (typeof v === "string" && LONE_SURROGATE.test(v))) illFormed = true
            return v
          })
        : JSON.parse(text)
  } catch {
    throw new ValidationFailed({ messages: ["body: malformed JSON"] })
  }
  if (illFormed)
    throw new ValidationFailed({ messages: ["body: strings must be well-formed Unicode (no lone surrogates)"] })
  if (typeof value !== "object" || value === null || Array.isArray(value))
    throw new ValidationFailed({ messages: ["body: must be a JSON object"] })
  refuseNul(value)
  return value
}

/**
 * Query parameters with arrays accepted as repeated keys (`ids=a&ids=b`), bracketed keys
 * (`ids[]=a`) or a comma-separated value (`ids=a,b`).
 */
export const readQuery = (c: Context, arrayKeys: readonly string[] = []): Record<string, unknown> => {
  const out: Record<string, unknown> = {}
  const all = c.req.queries()
  for (const [rawKey, values] of Object.entries(all)) {
    const key = rawKey.endsWith("[]") ? rawKey.slice(0, -2) : rawKey
    if (arrayKeys.includes(key)) {
      const prev = (out[key] as string[] | undefined) ?? []
      out[key] = [...prev, ...values.flatMap((v) => v.split(",")).filter((v) => v !== "")]
    } else {
      out[key] = values[values.length - 1]
    }
  }
  refuseNul(out)
  return out
}
