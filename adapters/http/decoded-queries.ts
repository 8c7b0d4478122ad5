import type { Context } from "hono"
import { recentMap } from "../../core/shared/recent-map.ts"
import type { AppEnv } from "./app-env.ts"

/** The value with its plain objects and arrays frozen, all the way down. */
const frozen = <T>(value: T): T => {
  if (typeof value === "object" && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value)
    for (const v of Object.values(value)) frozen(v)
  }
  return value
}

/**
 * A listing's query decoded once per distinct query string. Reading the query, the schema (every
 * issue collected), the cross-field rules and the date-times are a pure function of the query
 * string, and were a tenth of a repeated listing's server time (bench/README.md, issue 13
 * session 5, stream R): a booking screen polls the same query. Only decodes that succeed are
 * kept (a refusal is decoded, and thrown, every time); the kept value is frozen throughout, as
 * every request with that query shares it; bounded, the least recently used out first.
 */
export const decodedQueries = <T extends object>(decode: (c: Context<AppEnv>) => T, max = 64) => {
  const kept = recentMap<string, T>(max)
  return (c: Context<AppEnv>): T => {
    const url = c.req.url
    const at = url.indexOf("?")
    const key = at < 0 ? "" : url.slice(at + 1)
    const hit = kept.get(key)
    if (hit !== undefined) return hit
    const value = frozen(decode(c))
    kept.set(key, value)
    return value
  }
}
