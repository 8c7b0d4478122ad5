import { Effect, Exit } from "effect"
import type { Context } from "hono"
import type { Principal } from "../../core/auth/principal.ts"
import { SnapshotMemos } from "../../core/ports/read-freshness.ts"
import type { AppEnv } from "./app-env.ts"
import { edgeOf } from "./edge.ts"
import { okJsonBytes } from "./envelope.ts"
import type { AppError } from "./error-table.ts"
import type { EdgeServices, HttpDeps } from "./http-deps.ts"
import { exitResponse, runExit } from "./run.ts"

/** A load that was answered but not kept (a failure, or a second boundary crossed): its Exit. */
class NotKept {
  constructor(readonly exit: Exit.Exit<Uint8Array, AppError>) {}
}

/**
 * Everything of the caller a listing can depend on (scope, pin visibility), as text. Kept per
 * principal: a kept token's requests share theirs (Tokens.authenticateHeld).
 */
const callerKeys = new WeakMap<Principal, string>()
const principalKey = (p: Principal): string => {
  let key = callerKeys.get(p)
  if (key === undefined) {
    key = JSON.stringify([p.appId, p.appKey, p.grant, p.projectIds, p.subjectUserId ?? null])
    callerKeys.set(p, key)
  }
  return key
}

/**
 * Whole answers of a listing route (its envelope's bytes) kept by database snapshot, per
 * caller, URL and, for a use case that reads the clock, the clock's second: a poll repeated
 * while nothing committed anywhere is answered without entering the Effect runtime (the use
 * case's run, the rows' views and their comparison were most of a repeated listing's server
 * time: bench/README.md, issue 13 session 6, stream R3). The snapshot memo's rule keeps it
 * exact across processes: a kept answer is served only when a database read sent after the
 * request arrived (the bearer check's sync) saw the snapshot it was computed under.
 *
 * `bySecond`: the use case reads the clock only through the start of its minute and the local
 * date (tz offsets are whole seconds), so an answer holds for the second it was computed in;
 * a run that crossed a second is answered and not kept.
 */
export const keptAnswers = (s: HttpDeps, name: string, options: { readonly bySecond?: boolean; readonly max?: number } = {}) => {
  const memo = s.runtime.runSync(Effect.service(SnapshotMemos)).named<Uint8Array>(name, options.max ?? 32)
  const second = () => Math.floor(s.clock.now() / 1000)
  return <A, E extends AppError>(
    c: Context<AppEnv>,
    effect: Effect.Effect<A, E, EdgeServices>,
    encode: (a: A) => Uint8Array,
  ): Response | Promise<Response> => {
    const at = options.bySecond ? second() : undefined
    const key = `${principalKey(c.get("principal"))} ${at ?? ""} ${c.req.url}`
    const { arrivedAt } = edgeOf(c)
    const kept = memo.settled(key, arrivedAt)
    if (kept !== undefined) return okJsonBytes(c, kept.value)
    const load = async () => {
      const exit = await runExit(s.runtime, c, Effect.map(effect, encode))
      if (Exit.isSuccess(exit) && (at === undefined || second() === at)) return exit.value
      // Concurrent callers of the key share this load: each renders the Exit itself.
      throw new NotKept(exit)
    }
    return memo.get(key, load, arrivedAt).then(
      (bytes) => okJsonBytes(c, bytes),
      (e: unknown) => {
        if (!(e instanceof NotKept)) throw e
        return exitResponse(s, c, e.exit, (bytes) => okJsonBytes(c, bytes))
      },
    )
  }
}
