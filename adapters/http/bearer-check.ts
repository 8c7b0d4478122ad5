import { Effect, Exit, Cause, Option } from "effect"
import type { Context, Handler } from "hono"
import { Tokens } from "../../core/auth/tokens.ts"
import { CacheConfirmation, ReadsFreshFrom, StaleCaches } from "../../core/ports/read-freshness.ts"
import { Unauthenticated } from "../../core/shared/errors.ts"
import type { AppEnv } from "./app-env.ts"
import { edgeOf, notAnswered } from "./edge.ts"
import type { HttpDeps } from "./http-deps.ts"

/**
 * The routes served on unconfirmed caches: the create, whose batch statement confirms them in
 * the round trip that writes (adapters/postgres/create-batcher.ts). Each is wrapped in
 * `confirmed`, which confirms whatever else it answers.
 */
export const servedUnconfirmed = (method: string, path: string): boolean => method === "POST" && path === "/meetings"

/**
 * The bearer check of the spec surfaces. `fresh`: the principal as of a cache-epoch read sent
 * after the request arrived (a kept token without entering the runtime, Tokens.authenticateHeld;
 * any other with one runtime entry), the refusal thrown (bearerChallenge reads it as c.error).
 * `unconfirmed`: a kept token's principal on the caches as they are, without waiting for that
 * read; the route then answers through `confirmed`.
 */
export const bearerCheck = (s: HttpDeps): BearerCheck => {
  const made = checks.get(s)
  if (made !== undefined) return made
  const check = makeBearerCheck(s)
  checks.set(s, check)
  return check
}

export interface BearerCheck {
  readonly fresh: (c: Context<AppEnv>) => Promise<void>
  readonly unconfirmed: (c: Context<AppEnv>) => Promise<boolean>
  readonly confirmed: (handler: (c: Context<AppEnv>) => Promise<Response>) => Handler<AppEnv>
}

/** One per app (the guard and the routes it guards share it). */
const checks = new WeakMap<HttpDeps, BearerCheck>()

const makeBearerCheck = (s: HttpDeps): BearerCheck => {
  const tokens = s.runtime.runSync(Tokens)
  const confirmation = Option.getOrUndefined(s.runtime.runSync(Effect.serviceOption(CacheConfirmation)))

  const fresh = async (c: Context<AppEnv>): Promise<void> => {
    const header = c.req.header("authorization")
    const arrivedAt = edgeOf(c).arrivedAt
    let principal = await tokens.authenticateHeld(header, arrivedAt)
    if (principal === undefined) {
      const exit = await s.runtime.runPromiseExit(Effect.provideService(tokens.authenticate(header), ReadsFreshFrom, arrivedAt))
      if (Exit.isFailure(exit)) throw Cause.squash(exit.cause)
      principal = exit.value
    }
    if (principal instanceof Unauthenticated) throw principal
    c.set("principal", principal)
  }

  /** True when the request goes on unconfirmed (a kept, valid token); false: check it `fresh`. */
  const unconfirmed = async (c: Context<AppEnv>): Promise<boolean> => {
    // The epoch before the token is looked up: a read completing in between only makes it older.
    const epoch = confirmation?.held()
    if (epoch === undefined) return false
    // Any completed read serves (no wait): the answer is confirmed later, or the request served again.
    const principal = await tokens.authenticateHeld(c.req.header("authorization"), Number.NEGATIVE_INFINITY)
    if (principal === undefined || principal instanceof Unauthenticated) return false
    c.set("principal", principal)
    c.set("unconfirmed", { epoch, arrivedAt: edgeOf(c).arrivedAt, confirmed: false })
    return true
  }

  /**
   * A route served on unconfirmed caches: its answer (or its thrown error) once they are
   * confirmed, by its write or by a read sent after the request arrived; when they moved
   * (StaleCaches from the write, or the read), nothing was written and the request is served
   * again as any other: bearer check fresh, then the route.
   */
  const confirmed =
    (handler: (c: Context<AppEnv>) => Promise<Response>): Handler<AppEnv> =>
    async (c) => {
      const u = c.get("unconfirmed")
      if (u === undefined || confirmation === undefined) return handler(c)
      let answer: Response | undefined
      let thrown: { readonly error: unknown } | undefined
      try {
        answer = await handler(c)
      } catch (error) {
        thrown = { error }
      }
      const stale = thrown?.error instanceof StaleCaches
      if (!stale && (u.confirmed || (await confirmation.confirm(u)))) {
        if (thrown !== undefined) throw thrown.error
        return answer as Response
      }
      c.set("unconfirmed", undefined)
      notAnswered(c)
      await fresh(c)
      return handler(c)
    }

  return { fresh, unconfirmed, confirmed }
}
