import { Context } from "effect"

/** The one source of "now" for the whole service (lead time, windows, tokens, ticks, webhooks). */
export interface ClockShape {
  readonly now: () => number
  readonly mode: "system" | "manual"
}

export class Clock extends Context.Service<Clock, ClockShape>()("keyspace/ports/Clock") {}
