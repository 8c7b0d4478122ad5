import { Hono } from "hono"
import { Schema } from "effect"
import { ObjectId } from "../../../core/shared/ids.ts"
import { assetDetail, searchDesks } from "../../bookings/asset-queries.ts"
import type { Services } from "../../wiring/services.ts"
import type { AppEnv } from "../app-env.ts"
import { ok } from "../envelope.ts"
import { CalendarQuery, deskQueryCrossErrors, LIST_DESKS_ARRAY_KEYS, ListDesksQuery } from "../schemas/asset-queries.ts"
import { decodeWithCrossRules } from "../schemas/meeting-requests.ts"
import { decodeOrFail, readQuery } from "../validation.ts"
import { instantOf, windowOf } from "./meeting-rooms.ts"

const IdParam = Schema.Struct({ id: ObjectId })

/** GET /desks and GET /desks/{id} (spec Endpoints > Desks). */
export const deskRoutes = (s: Services) =>
  new Hono<AppEnv>()
    .get("/", async (c) => {
      const q = decodeWithCrossRules(ListDesksQuery, readQuery(c, LIST_DESKS_ARRAY_KEYS), deskQueryCrossErrors)
      const start = instantOf(q.startDateTime)
      const end = instantOf(q.endDateTime)
      const limit = q.limit === undefined ? s.config.defaultPageSize : Number(q.limit)
      const offset = q.offset === undefined ? 0 : Number(q.offset)
      // status and statuses are one filter: a desk matches any of the listed statuses.
      const statuses = q.status !== undefined || q.statuses !== undefined
        ? [...(q.status === undefined ? [] : [q.status]), ...(q.statuses ?? [])]
        : undefined
      const { data, total } = await searchDesks(s, c.get("principal"), {
        projectId: q.projectId,
        brandId: q.brandId,
        zoneId: q.zoneId,
        floorId: q.floorId,
        locationId: q.locationId,
        ids: q.ids,
        name: q.name,
        email: q.email,
        statuses,
        availability:
          start === undefined
            ? undefined
            : end !== undefined
              ? windowOf(start, end)
              : { start, timePeriod: q.timePeriod },
        limit,
        offset,
      })
      return ok(c, data, { meta: { limit, offset, total } })
    })
    .get("/:id", async (c) => {
      const { id } = decodeOrFail(IdParam, { id: c.req.param("id") })
      const q = decodeOrFail(CalendarQuery, readQuery(c))
      return ok(c, await assetDetail(s, c.get("principal"), "desk", id, { from: instantOf(q.from), to: instantOf(q.to) }))
    })
