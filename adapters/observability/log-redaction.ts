import type { Level, Logger } from "./logger.ts"
import { currentRequestContext } from "./request-context.ts"

/**
 * Defence in depth for structured logs. Callers are expected never to log secrets, but one
 * careless `{ body }` would leak pinCodes, tokens, qrCardCode or face images for good, so
 * every field passes through here: secret-named keys are masked, and long base64 or data-URI
 * strings (face bytes, QR images) are replaced by their length.
 */

const SECRET_KEY =
  /^(authorization|cookie|set-cookie|x-service-signature|password|pin_?code|qr_?card_?code|face|face_?image|app_?secret|secret|client_?secret|(access|refresh|admin|bearer|id)_?token|token|api_?key|web_?payment_?(url|qr))$/i

const BASE64ISH = /^(data:[^;,]+;base64,)?[A-Za-z0-9+/=_-]{256,}$/

/**
 * Whether a field name is a secret's. Every line's fields pass here and their names repeat
 * (`requestId`, `status`, ...): the regex's answer is kept per name, for the first 1,000 names
 * (a line with data-driven keys must not grow the table without bound).
 */
const secretNames = new Map<string, boolean>()
const isSecretName = (name: string): boolean => {
  let secret = secretNames.get(name)
  if (secret === undefined) {
    secret = SECRET_KEY.test(name)
    if (secretNames.size < 1000) secretNames.set(name, secret)
  }
  return secret
}

const MAX_DEPTH = 6

export const REDACTED = "[redacted]"

export const redactValue = (value: unknown, depth = 0): unknown => {
  if (typeof value === "string") {
    // BASE64ISH needs 256 characters: shorter strings (nearly all) skip the regex.
    return value.length >= 256 && BASE64ISH.test(value) ? `[${value.length} chars elided]` : value
  }
  if (typeof value !== "object" || value === null) return value
  if (depth >= MAX_DEPTH) return "[nested]"
  if (Array.isArray(value)) return value.map((v) => redactValue(v, depth + 1))
  if (value instanceof Error)
    return { name: value.name, message: value.message, stack: value.stack }
  const out: Record<string, unknown> = {}
  for (const k of Object.keys(value)) {
    const v = (value as Record<string, unknown>)[k]
    out[k] = v !== undefined && v !== null && isSecretName(k) ? REDACTED : redactValue(v, depth + 1)
  }
  return out
}

/** Bearer credentials inside free text (an error message that echoes a header, for example). */
const BEARER_IN_TEXT = /\b(Bearer)\s+[A-Za-z0-9._~+/=-]+/gi

export const redactMessage = (msg: string): string => msg.replace(BEARER_IN_TEXT, `$1 ${REDACTED}`)

/**
 * Wraps a logger so that every line carries the current request id (and trace ids when
 * tracing is on) and passes through redaction.
 */
export const contextualLogger = (inner: Logger): Logger => {
  const wrap = (base: Logger): Logger => ({
    log: (level: Level, msg: string, fields?: Record<string, unknown>) => {
      // Redaction walks every field: not for lines the level drops (probes log at debug).
      if (base.enabled && !base.enabled(level)) return
      const ctx = currentRequestContext()
      const safe = fields ? (redactValue(fields) as Record<string, unknown>) : {}
      // Outside a request context (every untraced request) the redacted copy goes as it is.
      const context =
        ctx === undefined
          ? undefined
          : {
              ...(ctx.requestId ? { requestId: ctx.requestId } : {}),
              ...(ctx.traceId ? { traceId: ctx.traceId, spanId: ctx.spanId } : {}),
            }
      base.log(level, redactMessage(msg), context ? { ...context, ...safe } : safe)
    },
    child: (fields) => wrap(base.child(redactValue(fields) as Record<string, unknown>)),
    ...(base.enabled ? { enabled: base.enabled } : {}),
  })
  return wrap(inner)
}
