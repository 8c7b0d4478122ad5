import { Cause, Context, Logger as EffectLogger, References, Tracer, type LogLevel } from "effect"

/**
 * Structured JSON logs, one object per line: `{"time","level","msg",...fields}`. Two front
 * doors write the same line through one sink: the Effect logger (use cases, ports, workers:
 * `Effect.logInfo("msg", { fields })`) and the `Logger` interface legacy Promise code still
 * holds (`s.logger.log(...)`). Callers never pass secrets; log-redaction.ts is the second guard.
 */
export type Level = "debug" | "info" | "warn" | "error"
const order: Record<Level | "silent", number> = { debug: 10, info: 20, warn: 30, error: 40, silent: 99 }

export interface Logger {
  readonly log: (level: Level, msg: string, fields?: Record<string, unknown>) => void
  readonly child: (fields: Record<string, unknown>) => Logger
  /** Whether a line at this level would be written (lets wrappers skip work for dropped lines). */
  readonly enabled?: (level: Level) => boolean
}

/**
 * `new Date().toISOString()` of now. Formatting a date costs ~0.5 µs, a third of a request
 * line's cost: the text up to the seconds is kept while the second lasts, only the
 * milliseconds are added per line.
 */
let second = NaN
let secondText = ""
export const isoNow = (now: number = Date.now()): string => {
  const s = Math.floor(now / 1000)
  if (s !== second) {
    second = s
    secondText = new Date(s * 1000).toISOString().slice(0, -4)
  }
  const ms = now - s * 1000
  return secondText + (ms < 10 ? "00" : ms < 100 ? "0" : "") + ms + "Z"
}

/**
 * The line writer. By default `console.log`, looked up per line, so a test's spy sees every
 * line; the Node entry passes a batching writer (line-buffer.ts).
 */
export const makeLogger = (
  minLevel: Level | "silent",
  base: Record<string, unknown> = {},
  write: (line: string) => void = (line) => console.log(line),
): Logger => ({
  log: (level, msg, fields) => {
    if (order[level] < order[minLevel]) return
    write(JSON.stringify({ time: isoNow(), level, msg, ...base, ...fields }))
  },
  child: (fields) => makeLogger(minLevel, { ...base, ...fields }, write),
  enabled: (level) => order[level] >= order[minLevel],
})

const LEVEL: Record<LogLevel.LogLevel, Level> = {
  All: "debug",
  Trace: "debug",
  Debug: "debug",
  Info: "info",
  Warn: "warn",
  Error: "error",
  Fatal: "error",
  None: "error",
}

/** `KEYSPACE_LOG_LEVEL` as Effect's minimum level (`References.MinimumLogLevel`). */
export const minimumLogLevel = (level: Level | "silent"): LogLevel.LogLevel =>
  level === "silent" ? "None" : level === "debug" ? "Debug" : level === "info" ? "Info" : level === "warn" ? "Warn" : "Error"

const isFields = (u: unknown): u is Record<string, unknown> =>
  typeof u === "object" && u !== null && !Array.isArray(u) && !(u instanceof Error)

/**
 * The Effect logger: the first message part is `msg`, plain objects after it are fields, the
 * fiber's log annotations (`requestId`, set by adapters/http/run.ts) and the current span's ids
 * come along, a cause becomes `error`. Everything then goes through `sink` (redaction, line).
 */
export const jsonLogger = (sink: Logger): EffectLogger.Logger<unknown, void> =>
  EffectLogger.make(({ logLevel, message, cause, fiber }) => {
    const level = LEVEL[logLevel]
    if (sink.enabled?.(level) === false) return
    const parts: ReadonlyArray<unknown> = Array.isArray(message) ? message : [message]
    const fields: Record<string, unknown> = { ...fiber.getRef(References.CurrentLogAnnotations) }
    const span = Context.getOption(fiber.context, Tracer.ParentSpan)
    if (span._tag === "Some") {
      fields.traceId = span.value.traceId
      fields.spanId = span.value.spanId
    }
    const extra: unknown[] = []
    for (let i = 1; i < parts.length; i++) {
      const p = parts[i]
      if (isFields(p)) Object.assign(fields, p)
      else extra.push(p)
    }
    if (extra.length > 0) fields.details = extra
    if (cause.reasons.length > 0) fields.error = Cause.pretty(cause)
    const first = parts[0]
    sink.log(level, typeof first === "string" ? first : JSON.stringify(first) ?? String(first), fields)
  })
