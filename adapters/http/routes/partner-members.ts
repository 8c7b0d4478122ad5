import { Effect, Result } from "effect"
import { Hono, type Context } from "hono"
import type { PartnerMembers } from "../../../core/member/members.ts"
import { partnerScopeOf, type PartnerScope } from "../../../core/member/partner.ts"
import { ValidationFailed } from "../../../core/shared/errors.ts"
import type { AppEnv } from "../app-env.ts"
import type { AppError } from "../error-table.ts"
import { ok } from "../envelope.ts"
import { errorResponse, type Run } from "../run.ts"
import {
  checkExternalUserId,
  decodeCredentialsRequest,
  PartnerMemberUpsertRequest,
} from "../schemas/partner-requests.ts"
import { decodeAll, decodeOrFail, readJson } from "../validation.ts"

export interface PartnerMemberDeps {
  readonly run: Run<never>
  readonly members: PartnerMembers["Service"]
}

/** The request decoded at the edge, or why not (reported after the budget is spent, as before). */
const decodeRequest = async <A>(read: () => A | Promise<A>): Promise<Result.Result<A, ValidationFailed>> => {
  try {
    return Result.succeed(await read())
  } catch (e) {
    if (e instanceof ValidationFailed) return Result.fail(e)
    throw e
  }
}

const externalUserId = (c: Context<AppEnv>) => checkExternalUserId(c.req.param("externalUserId") ?? "")

/**
 * PUT/GET/DELETE /partner/members/{externalUserId} and PUT .../credentials. Each request is
 * one run: the app's budget is spent first (after the token's scope check, so a mis-scoped
 * token neither spends nor is told about the budget), then the use case.
 */
export const partnerMemberRoutes = ({ run, members }: PartnerMemberDeps) => {
  const handle = async <I, A, E extends AppError>(
    c: Context<AppEnv>,
    read: () => I | Promise<I>,
    useCase: (scope: PartnerScope, input: I) => Effect.Effect<A, E>,
    onSuccess: (a: A) => Response,
  ) => {
    const scope = partnerScopeOf(c.get("principal"))
    if (Result.isFailure(scope)) return errorResponse(c, scope.failure)
    const input = await decodeRequest(read)
    const decoded: Effect.Effect<A, E | ValidationFailed> = Result.isFailure(input)
      ? Effect.fail(input.failure)
      : useCase(scope.success, input.success)
    const work = Effect.andThen(members.admit(scope.success.appId), decoded)
    return run(c, work, onSuccess)
  }
  return new Hono<AppEnv>()
    .put("/:externalUserId", (c) =>
      handle(
        c,
        async () => {
          const raw = await readJson(c)
          const [id, body] = decodeAll(() => externalUserId(c), () => decodeOrFail(PartnerMemberUpsertRequest, raw))
          return { id, body }
        },
        (scope, { id, body }) => members.upsert(scope, id, body),
        (view) => ok(c, view),
      ),
    )
    .get("/:externalUserId", (c) =>
      handle(
        c,
        () => externalUserId(c),
        (scope, id) => members.get(scope, id),
        (view) => ok(c, view),
      ),
    )
    .delete("/:externalUserId", (c) =>
      handle(
        c,
        () => externalUserId(c),
        (scope, id) => members.offboard(scope, id),
        () => c.body(null, 204),
      ),
    )
    .put("/:externalUserId/credentials", (c) =>
      handle(
        c,
        async () => {
          const raw = await readJson(c)
          const [id, body] = decodeAll(() => externalUserId(c), () => decodeCredentialsRequest(raw))
          return { id, body }
        },
        (scope, { id, body }) => members.setCredentials(scope, id, body),
        (view) => ok(c, view),
      ),
    )
}
