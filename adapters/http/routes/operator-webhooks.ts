import { Hono } from "hono"
import {
  enableWebhook,
  listDeliveries,
  requeueDelivery,
} from "../../webhooks/deliveries-repo.ts"
import { publishVisitorEvent } from "../../webhooks/fan-out.ts"
import type { Services } from "../../wiring/services.ts"
import type { AppEnv } from "../app-env.ts"
import { ok } from "../envelope.ts"
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
 */
export const operatorWebhookRoutes = (s: Services) =>
  new Hono<AppEnv>()
    .post("/projects/:projectId/visitor-events", async (c) => {
      const { projectId } = decodeOrFail(ProjectIdParam, { projectId: c.req.param("projectId") })
      const body = decodeOrFail(VisitorEventRequest, await readJson(c))
      const id = await publishVisitorEvent(s, projectId, body)
      return ok(c, id, { status: 202, message: "Accepted" })
    })
    .get("/webhooks/:id/deliveries", async (c) => {
      const { id } = decodeOrFail(IdParam, { id: c.req.param("id") })
      const query = decodeOrFail(DeliveriesQuery, readQuery(c))
      const limit = query.limit === undefined ? s.config.defaultPageSize : Number(query.limit)
      const offset = query.offset === undefined ? 0 : Number(query.offset)
      const { rows, total } = await listDeliveries(s.database.db, id, { limit, offset })
      return ok(c, rows, { meta: { limit, offset, total } })
    })
    .post("/webhooks/:id/enable", async (c) => {
      const { id } = decodeOrFail(IdParam, { id: c.req.param("id") })
      const webhook = await enableWebhook(s.database.db, id, s.clock.now())
      for (const wake of s.wake) wake()
      return ok(c, webhook)
    })
    .post("/deliveries/:id/redeliver", async (c) => {
      const { id } = decodeOrFail(IdParam, { id: c.req.param("id") })
      const delivery = await requeueDelivery(s.database.db, id, s.clock.now())
      for (const wake of s.wake) wake()
      return ok(c, delivery, { status: 202, message: "Accepted" })
    })
