import { Effect } from "effect"
import { Hono } from "hono"
import { WebhookAdmin } from "../../../core/events/webhooks.ts"
import type { HttpDeps } from "../http-deps.ts"
import type { AppEnv } from "../app-env.ts"
import { ok } from "../envelope.ts"
import { makeRun } from "../run.ts"
import {
  DeliveriesQuery,
  IdParam,
  ProjectIdParam,
  VisitorEventRequest,
} from "../schemas/operator-webhook-requests.ts"
import { decodeOrFail, readJson, readQuery } from "../validation.ts"

/**
 * Operator contract, section 2: visitor-event publishing, the delivery log, redeliver and
 * enable. Mounted under /admin/v1 at "/" (the paths span projects, webhooks and deliveries).
 * Every change wakes the dispatcher when its transaction commits.
 */
export const operatorWebhookRoutes = (s: HttpDeps) => {
  const run = makeRun(s.runtime, s)
  const admin = <A, E>(f: (w: WebhookAdmin["Service"]) => Effect.Effect<A, E>) => Effect.flatMap(WebhookAdmin, f)
  return new Hono<AppEnv>()
    .post("/projects/:projectId/visitor-events", async (c) => {
      const { projectId } = decodeOrFail(ProjectIdParam, { projectId: c.req.param("projectId") })
      const body = decodeOrFail(VisitorEventRequest, await readJson(c))
      return run(c, admin((w) => w.publishVisitor(projectId, body)), (id) => ok(c, id, { status: 202, message: "Accepted" }))
    })
    .get("/webhooks/:id/deliveries", async (c) => {
      const { id } = decodeOrFail(IdParam, { id: c.req.param("id") })
      const query = decodeOrFail(DeliveriesQuery, readQuery(c))
      const limit = query.limit === undefined ? s.config.defaultPageSize : Number(query.limit)
      const offset = query.offset === undefined ? 0 : Number(query.offset)
      return run(c, admin((w) => w.deliveries(id, { limit, offset })), ({ rows, total }) =>
        ok(c, rows, { meta: { limit, offset, total } }),
      )
    })
    .post("/webhooks/:id/enable", async (c) => {
      const { id } = decodeOrFail(IdParam, { id: c.req.param("id") })
      return run(c, admin((w) => w.enable(id)), (webhook) => ok(c, webhook))
    })
    .post("/deliveries/:id/redeliver", async (c) => {
      const { id } = decodeOrFail(IdParam, { id: c.req.param("id") })
      return run(c, admin((w) => w.requeue(id)), (delivery) => ok(c, delivery, { status: 202, message: "Accepted" }))
    })
}
