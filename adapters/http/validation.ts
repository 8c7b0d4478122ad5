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

/**
 * Text faults (NUL, lone surrogates) of a body or query read by readJson / readQuery, answered
 * by the decode of that very object beside its schema's faults (they must not hide the others).
 */
const textFaults = new WeakMap<object, readonly string[]>()

/**
 * Decode untrusted input or throw ValidationFailed (400 SV001). Unknown keys are dropped. An
 * input read by readJson or readQuery with a text fault is refused here, its schema's faults beside.
 */
export const decodeOrFail = <S extends Schema.Top>(schema: S, input: unknown): S["Type"] => {
  const r = Schema.decodeUnknownResult(schema as never)(input, { errors: "all" }) as Result.Result<
    S["Type"],
    Schema.SchemaError
  >
  const faults = typeof input === "object" && input !== null ? textFaults.get(input) : undefined
  if (Result.isFailure(r)) throw new ValidationFailed({ messages: [...(faults ?? []), ...issueMessages(r.failure.issue)] })
  if (faults !== undefined) throw new ValidationFailed({ messages: [...faults] })
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
      for (const m of e.messages) messages.push(m) // a spread of a huge list overflows the stack
    }
  }
  // Two steps over one body both name its text faults.
  if (messages.length > 0) throw new ValidationFailed({ messages: [...new Set(messages)] })
  return values as never
}

const LONE_SURROGATE = /\p{Cs}/u
/** A JSON escape of a surrogate (\uD800-\uDFFF): only such text can parse to a lone one. */
const SURROGATE_ESCAPE = /\\u[dD][89a-fA-F]/
const NUL = "\u0000"
/** Enough to name the culprits; a body of a million NULs must not answer a million lines. */
const MAX_WALK_MESSAGES = 50

const shown = (key: string) => key.replaceAll(NUL, "\\u0000")

/** The faults of text PostgreSQL cannot store, looked for in every string and field name. */
interface TextRule {
  readonly faulty: (text: string) => boolean
  /** Whether a JSON text may hold the fault; without it the parsed value is not walked. */
  readonly mayHold: (json: string) => boolean
  readonly value: string
  readonly key: string
}
const NO_NUL: TextRule = {
  faulty: (text) => text.includes(NUL),
  // JSON text holds a NUL only as the escape \u0000 (a raw one is malformed JSON).
  mayHold: (json) => json.includes("\\u0000"),
  value: "must not contain NUL characters",
  key: "field names must not contain NUL characters",
}
const NO_LONE_SURROGATE: TextRule = {
  faulty: (text) => LONE_SURROGATE.test(text),
  mayHold: (json) => SURROGATE_ESCAPE.test(json) || LONE_SURROGATE.test(json),
  value: "must be well-formed Unicode (no lone surrogates)",
  key: "field names must be well-formed Unicode (no lone surrogates)",
}
const TEXT_RULES = [NO_NUL, NO_LONE_SURROGATE]

/**
 * THE rule for U+0000 and lone UTF-16 surrogates in client input: PostgreSQL text and jsonb
 * cannot hold them, so every JSON body and query string is refused at decode time (400 SV001,
 * one message per field, named by its path as schema messages are, beside the schema's own),
 * before any SQL sees it. Iterative: a deeply nested body that JSON.parse accepted must not
 * overflow the stack here.
 */
export const textViolations = (value: unknown, rules: readonly TextRule[] = TEXT_RULES): string[] => {
  const messages: string[] = []
  let more = 0
  // A value's path is built only when it is reported: from its parent chain.
  interface Visit {
    readonly value: unknown
    readonly parent: Visit | undefined
    readonly key: string
  }
  const pathOf = (v: Visit): string => {
    const keys: string[] = []
    for (let at: Visit | undefined = v; at?.parent !== undefined; at = at.parent) keys.push(shown(at.key))
    return keys.reverse().join(".")
  }
  const report = (message: () => string) => (messages.length < MAX_WALK_MESSAGES ? messages.push(message()) : more++)
  const stack: Visit[] = [{ value, parent: undefined, key: "" }]
  while (stack.length > 0) {
    const visit = stack.pop()!
    const v = visit.value
    if (typeof v === "string") {
      for (const rule of rules) if (rule.faulty(v)) report(() => `${pathOf(visit) || "body"}: ${rule.value}`)
    } else if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) stack.push({ value: v[i], parent: visit, key: String(i) })
    } else if (typeof v === "object" && v !== null) {
      const keys = Object.keys(v)
      for (let i = keys.length - 1; i >= 0; i--) {
        const key = keys[i]!
        const child: Visit = { value: (v as Record<string, unknown>)[key], parent: visit, key }
        for (const rule of rules) if (rule.faulty(key)) report(() => `${pathOf(child)}: ${rule.key}`)
        stack.push(child)
      }
    }
  }
  if (more > 0) messages.push(`body: ${more} more faults of the same kinds`)
  return messages
}

const ONLY_NUL = [NO_NUL]

/** NUL faults only: a form or query, whose text cannot hold a lone surrogate. */
export const nulViolations = (value: unknown): string[] => textViolations(value, ONLY_NUL)

/** Keeps the text faults of a value just read for its decode (decodeOrFail), which refuses it. */
const noteTextFaults = (value: object, rules: readonly TextRule[]) => {
  const messages = textViolations(value, rules)
  if (messages.length > 0) textFaults.set(value, messages)
}

/** Deeper than any body the API takes (the manifest's configs are about eight levels). */
export const MAX_JSON_DEPTH = 64

/**
 * Whether a JSON text nests arrays and objects deeper than `max`, found without parsing it:
 * JSON.parse of a megabyte of `[[[[...` held the event loop for over 100 ms. Strings are
 * skipped whole (a face's megabytes of base64 cost one indexOf); ill-formed text is left to
 * the parse.
 */
export const nestsDeeperThan = (text: string, max: number): boolean => {
  let depth = 0
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (c === 0x22) {
      // To the closing quote: one not escaped by an odd run of backslashes.
      for (;;) {
        const end = text.indexOf('"', i + 1)
        if (end < 0) return false
        let slashes = 0
        while (text.charCodeAt(end - 1 - slashes) === 0x5c) slashes++
        i = end
        if (slashes % 2 === 0) break
      }
    } else if (c === 0x5b || c === 0x7b) {
      if (++depth > max) return true
    } else if (c === 0x5d || c === 0x7d) depth--
  }
  return false
}

/**
 * More items than any array of a request takes (attendees: 500). Checked before the schema: a
 * body of 500,000 bad items held the event loop for seconds to name each.
 */
export const MAX_ARRAY_ITEMS = 1_000
/** The manifest's arrays (a building's rooms, desks, users): a large estate, not millions. */
export const MAX_MANIFEST_ARRAY_ITEMS = 100_000

/** Arrays longer than `max`, each named by its path; iterative like textViolations. */
export const oversizedArrays = (value: unknown, max: number): string[] => {
  const messages: string[] = []
  const stack: Array<{ readonly value: unknown; readonly path: string }> = [{ value, path: "" }]
  while (stack.length > 0 && messages.length < MAX_WALK_MESSAGES) {
    const { value: v, path } = stack.pop()!
    if (Array.isArray(v)) {
      if (v.length > max) messages.push(`${path || "body"}: at most ${max} items (${v.length} sent)`)
      else for (let i = v.length - 1; i >= 0; i--) stack.push({ value: v[i], path: path ? `${path}.${i}` : String(i) })
    } else if (typeof v === "object" && v !== null)
      for (const [key, child] of Object.entries(v)) stack.push({ value: child, path: path ? `${path}.${shown(key)}` : shown(key) })
  }
  return messages
}

/**
 * The request body as JSON; malformed JSON or a non-object body is 400 SV001, and so is an array
 * of more than MAX_ARRAY_ITEMS (MAX_MANIFEST_ARRAY_ITEMS with `largeArrays`: the manifest).
 */
export const readJson = async (c: Context, options: { optional?: boolean; largeArrays?: boolean } = {}): Promise<unknown> => {
  const text = await c.req.text().catch(() => {
    throw bodyBrokeOff(c)
  })
  if (text.trim() === "") {
    if (options.optional) return {}
    throw new ValidationFailed({ messages: ["body: a JSON object is required"] })
  }
  if (nestsDeeperThan(text, MAX_JSON_DEPTH))
    throw new ValidationFailed({ messages: [`body: JSON nested deeper than ${MAX_JSON_DEPTH} levels`] })
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch {
    throw new ValidationFailed({ messages: ["body: malformed JSON"] })
  }
  if (typeof value !== "object" || value === null || Array.isArray(value))
    throw new ValidationFailed({ messages: ["body: must be a JSON object"] })
  // An array of more than MAX_ARRAY_ITEMS takes at least two characters an item.
  const maxItems = options.largeArrays ? MAX_MANIFEST_ARRAY_ITEMS : MAX_ARRAY_ITEMS
  if (text.length > 2 * maxItems) {
    const oversized = oversizedArrays(value, maxItems)
    if (oversized.length > 0) throw new ValidationFailed({ messages: oversized })
  }
  // Only the rules the text may break are walked for (the walk named every value of a body, a
  // second of CPU for a crafted megabyte).
  const rules = TEXT_RULES.filter((rule) => rule.mayHold(text))
  if (rules.length > 0) noteTextFaults(value, rules)
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
  noteTextFaults(out, ONLY_NUL)
  return out
}
