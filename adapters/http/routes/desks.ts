import { Hono } from "hono"
import { Schema } from "effect"
import { deskRef } from "../../../core/booking/asset.ts"
import { Assets, type DeskSearch } from "../../../core/booking/assets.ts"
import { ObjectId } from "../../../core/shared/ids.ts"
import type { HttpDeps } from "../http-deps.ts"
import type { AppEnv } from "../app-env.ts"
import { ok } from "../envelope.ts"
import { decodedQueries } from "../decoded-queries.ts"
import { keptAnswers } from "../kept-answers.ts"
import { makeRun } from "../run.ts"
import { CalendarQuery, deskQueryCrossErrors, LIST_DESKS_ARRAY_KEYS, ListDesksQuery } from "../schemas/asset-queries.ts"
import { decodeWithCrossRules } from "../schemas/meeting-requests.ts"
import { decodeOrFail, readQuery } from "../validation.ts"
import { assetDetailView, deskListingBytes } from "../views/asset-view.ts"
import { instantOf } from "./meeting-rooms.ts"

const IdParam = Schema.Struct({ id: ObjectId })

/** GET /desks and GET /desks/{id} (spec Endpoints > Desks). */
export const deskRoutes = (s: HttpDeps) => {
  const run = makeRun(s.runtime, s)
  // A window's verdict per desk reads the clock (lead time, days ahead).
  const answers = keptAnswers(s, "desk-answers", { bySecond: true })
  const listing = decodedQueries((c) => {
    const q = decodeWithCrossRules(ListDesksQuery, readQuery(c, LIST_DESKS_ARRAY_KEYS), deskQueryCrossErrors)
    const start = instantOf(q.startDateTime)
    const end = instantOf(q.endDateTime)
    const limit = q.limit === undefined ? s.config.defaultPageSize : Number(q.limit)
    const offset = q.offset === undefined ? 0 : Number(q.offset)
    // status and statuses are one filter: a desk matches any of the listed statuses.
    const statuses = q.status !== undefined || q.statuses !== undefined
      ? [...(q.status === undefined ? [] : [q.status]), ...(q.statuses ?? [])]
      : undefined
    const search: DeskSearch = {
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
            ? { _tag: "Span", start, end }
            : { _tag: "Period", start, period: q.timePeriod },
      limit,
      offset,
    }
    return { search, limit, offset }
  })
  return new Hono<AppEnv>()
    .get("/", (c) => {
      const { search, limit, offset } = listing(c)
      return answers(
        c,
        Assets.use((a) => a.searchDesks(c.get("principal"), search)),
        // Keyed by the query: the same page polled again reuses its bytes when nothing changed.
        ({ desks, total }) => deskListingBytes(c.req.url, desks, { limit, offset, total }),
      )
    })
    .get("/:id", (c) => {
      const { id } = decodeOrFail(IdParam, { id: c.req.param("id") })
      const q = decodeOrFail(CalendarQuery, readQuery(c))
      const range = { from: instantOf(q.from), to: instantOf(q.to) }
      return run(
        c,
        Assets.use((a) => a.detail(c.get("principal"), deskRef(id), range)),
        (d) => ok(c, assetDetailView(d)),
      )
    })
}
