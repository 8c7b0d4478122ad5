/** Structured JSON logs, one object per line. Callers never pass secrets. */
export type Level = "debug" | "info" | "warn" | "error"
const order: Record<Level | "silent", number> = { debug: 10, info: 20, warn: 30, error: 40, silent: 99 }

export interface Logger {
  readonly log: (level: Level, msg: string, fields?: Record<string, unknown>) => void
  readonly child: (fields: Record<string, unknown>) => Logger
  /** Whether a line at this level would be written (lets wrappers skip work for dropped lines). */
  readonly enabled?: (level: Level) => boolean
}

export const makeLogger = (
  minLevel: Level | "silent",
  base: Record<string, unknown> = {},
  write: (line: string) => void = (line) => console.log(line),
): Logger => ({
  log: (level, msg, fields) => {
    if (order[level] < order[minLevel]) return
    write(JSON.stringify({ time: new Date().toISOString(), level, msg, ...base, ...fields }))
  },
  child: (fields) => makeLogger(minLevel, { ...base, ...fields }, write),
  enabled: (level) => order[level] >= order[minLevel],
})
