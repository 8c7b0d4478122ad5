import { AsyncLocalStorage } from "node:async_hooks"

/**
 * The request a piece of code runs for. Held in AsyncLocalStorage (available on Node, Bun and
 * Deno) so that every log line written while serving a request carries its id, including lines
 * from code that only holds `Services.logger` and never sees the Hono context.
 */
export interface RequestContext {
  /** Absent for background work that runs under a span but outside any request. */
  readonly requestId?: string | undefined
  readonly traceId?: string | undefined
  readonly spanId?: string | undefined
}

const storage = new AsyncLocalStorage<RequestContext>()

export const runWithRequestContext = <T>(ctx: RequestContext, f: () => T): T => storage.run(ctx, f)

export const currentRequestContext = (): RequestContext | undefined => storage.getStore()
