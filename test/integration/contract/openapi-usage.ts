import createClient from "openapi-fetch"
import type { paths } from "../../../clients/typescript/src/openapi.ts"

/**
 * Every operation of the OpenAPI document, called the way an integrator would: through
 * openapi-fetch typed by the types openapi-typescript generated from GET /openapi.json
 * (clients/typescript/src/openapi.ts). It must compile with no casts and no ts-comments
 * (test/integration/contract/openapi-clients.test.ts checks both, and that every operation is
 * called); each answer is handed to `record` so the test validates it against the document.
 */

export interface Exchange {
  readonly method: string
  /** The OpenAPI path template, e.g. /meetings/{id}. */
  readonly path: string
  readonly status: number
  readonly contentType: string | null
  readonly body: unknown
}

export interface UsageOptions {
  readonly fetch: (request: Request) => Promise<Response>
  readonly adminToken: string
  readonly record: (exchange: Exchange) => void
}

interface Answer {
  readonly response: Response
  readonly data?: unknown
  readonly error?: unknown
}

const allWeek = {
  Mon: { availableTime: { start: "00:00:00", end: "23:59:00" } },
  Tue: { availableTime: { start: "00:00:00", end: "23:59:00" } },
  Wed: { availableTime: { start: "00:00:00", end: "23:59:00" } },
  Thu: { availableTime: { start: "00:00:00", end: "23:59:00" } },
  Fri: { availableTime: { start: "00:00:00", end: "23:59:00" } },
  Sat: { availableTime: { start: "00:00:00", end: "23:59:00" } },
  Sun: { availableTime: { start: "00:00:00", end: "23:59:00" } },
}

/** A whole minute `minutes` after `from` (epoch ms), as ISO 8601 UTC. */
const later = (from: number, minutes: number) =>
  new Date(Math.ceil(from / 60_000) * 60_000 + minutes * 60_000).toISOString()

export const exerciseEveryOperation = async (options: UsageOptions): Promise<void> => {
  const baseUrl = "http://keyspace.test"
  const seen = <A extends Answer>(method: string, path: string, answer: A): A => {
    options.record({
      method,
      path,
      status: answer.response.status,
      contentType: answer.response.headers.get("content-type"),
      body: answer.data ?? answer.error,
    })
    return answer
  }
  const open = createClient<paths>({ baseUrl, fetch: options.fetch })
  const operator = createClient<paths>({
    baseUrl,
    fetch: options.fetch,
    headers: { Authorization: `Bearer ${options.adminToken}` },
  })

  // --- operator: the tenancy, the clock ------------------------------------------------------
  const manifest = seen(
    "put",
    "/admin/v1/manifest",
    await operator.PUT("/admin/v1/manifest", {
      body: {
        projects: [
          {
            key: "oc",
            name: "OpenAPI Tower",
            timezone: "Asia/Bangkok",
            zones: [{ key: "a", name: "Tower A", floors: [{ key: "a-1", name: "Floor 1" }] }],
            rooms: [
              { key: "free", name: "Free Room", zone: "a", floor: "a-1", capacity: 8, config: { dayConfig: allWeek } },
              {
                key: "paid",
                name: "Paid Room",
                zone: "a",
                floor: "a-1",
                capacity: 8,
                chargeRate: { perHour: 500, perDay: 3000 },
                config: { dayConfig: allWeek },
              },
            ],
            desks: [{ key: "d1", name: "Desk 1", index: 1, zone: "a", floor: "a-1", config: { dayConfig: allWeek } }],
            units: [{ key: "u1", addressNo: "99/1", zone: "a", unitId: "U-99-1" }],
            accessGroups: [{ key: "lobby", name: "Lobby doors" }],
            users: [
              {
                key: "alice",
                firstName: "Alice",
                lastName: "Ng",
                email: "alice@oc.example",
                role: "member",
                links: [{ app: "oc-app", externalUserId: "ext-alice" }],
              },
            ],
            webhooks: [
              {
                key: "ops",
                url: "http://127.0.0.1:9/hook",
                secret: "s".repeat(40),
                events: ["VMS_HOST_CANCELLED"],
                auth: { scheme: "signature-only" },
              },
            ],
          },
        ],
        apps: [
          {
            key: "oc-app",
            appId: "oc-app",
            appSecret: "oc-app-secret-0123456789",
            projects: ["oc"],
            partnerAccessGroups: ["lobby"],
            canActAs: true,
          },
        ],
      },
    }),
  )
  const project = manifest.data?.data.projects["oc"]
  if (!project) throw new Error("manifest not applied")
  const freeRoom = project.rooms["free"] ?? ""
  const paidRoom = project.rooms["paid"] ?? ""
  const desk = project.desks["d1"] ?? ""
  const webhook = project.webhooks["ops"] ?? ""

  seen("get", "/admin/v1/manifest/ids", await operator.GET("/admin/v1/manifest/ids"))
  // A chosen secret equal to the manifest's, so the grants below still sign in with it.
  seen(
    "post",
    "/admin/v1/apps/{appId}/secret",
    await operator.POST("/admin/v1/apps/{appId}/secret", {
      params: { path: { appId: "oc-app" } },
      body: { appSecret: "oc-app-secret-0123456789" },
    }),
  )
  const clock = seen("get", "/admin/v1/clock", await operator.GET("/admin/v1/clock"))
  const now = Date.parse(clock.data?.data.now ?? "")

  // --- tokens: every grant -----------------------------------------------------------------
  const pair = seen(
    "post",
    "/auth/accessToken",
    await open.POST("/auth/accessToken", {
      body: { grant_type: "app_credentials", app_id: "oc-app", app_secret: "oc-app-secret-0123456789" },
    }),
  )
  const expiresIn: number = pair.data?.expires_in ?? 0
  if (!Number.isInteger(expiresIn)) throw new Error("expires_in is not an integer")
  const refreshed = seen(
    "post",
    "/auth/accessToken",
    await open.POST("/auth/accessToken", {
      body: { grant_type: "refresh_token", refresh_token: pair.data?.refresh_token ?? "" },
    }),
  )
  seen(
    "post",
    "/auth/accessToken",
    await open.POST("/auth/accessToken", {
      body: { grant_type: "act_as", app_id: "oc-app", app_secret: "oc-app-secret-0123456789", subject: "ext-alice" },
    }),
  )
  seen("post", "/auth/accessToken", await open.POST("/auth/accessToken", { body: { grant_type: "app_credentials", app_id: "oc-app", app_secret: "wrong" } }))
  const app = createClient<paths>({
    baseUrl,
    fetch: options.fetch,
    headers: { Authorization: `Bearer ${refreshed.data?.access_token ?? ""}` },
  })

  // --- assets --------------------------------------------------------------------------------
  const windowStart = later(now, 120)
  const windowEnd = later(now, 180)
  seen("get", "/meeting-rooms", await app.GET("/meeting-rooms", { params: { query: { projectId: project.id, minCapacity: 2 } } }))
  seen(
    "get",
    "/meeting-rooms",
    await app.GET("/meeting-rooms", { params: { query: { projectId: project.id, startDateTime: windowStart, endDateTime: windowEnd } } }),
  )
  const room = seen("get", "/meeting-rooms/{id}", await app.GET("/meeting-rooms/{id}", { params: { path: { id: freeRoom } } }))
  const calendarSize: number = room.data?.data.calendar.bookings.length ?? 0
  seen("get", "/desks", await app.GET("/desks", { params: { query: { projectId: project.id, limit: 10, offset: 0 } } }))
  seen(
    "get",
    "/desks",
    await app.GET("/desks", { params: { query: { projectId: project.id, startDateTime: windowStart, timePeriod: "allDay", limit: 5 } } }),
  )
  seen("get", "/desks/{id}", await app.GET("/desks/{id}", { params: { path: { id: desk }, query: { from: windowStart } } }))

  // --- meetings --------------------------------------------------------------------------------
  const draft = seen(
    "post",
    "/meetings",
    await app.POST("/meetings", {
      body: { meetingRoomId: paidRoom, title: "Priced", startDateTime: windowStart, endDateTime: windowEnd, draft: true },
    }),
  )
  const preview = draft.data?.data
  if (preview === undefined || !("draft" in preview)) throw new Error(`draft answered ${draft.response.status}`)
  const amount: number = preview.amount

  const created = seen(
    "post",
    "/meetings",
    await app.POST("/meetings", {
      body: { meetingRoomId: freeRoom, title: "Sync", startDateTime: later(now, 30), endDateTime: later(now, 90) },
    }),
  )
  const meeting = created.data?.data
  if (meeting === undefined || !("_id" in meeting)) throw new Error(`create answered ${created.response.status}`)
  const checkIns: number = meeting.checkIns.length
  const histories: string[] = meeting.histories.map((h) => h.action)
  seen("post", "/meetings", await app.POST("/meetings", { body: { title: "", startDateTime: "" } }))

  const toCancel = await app.POST("/meetings", {
    body: { deskId: desk, title: "Desk", startDateTime: windowStart, endDateTime: windowEnd },
  })
  const toReject = await app.POST("/meetings", {
    body: { meetingRoomId: freeRoom, title: "Later", startDateTime: later(now, 300), endDateTime: later(now, 360) },
  })
  const paid = await app.POST("/meetings", {
    body: { meetingRoomId: paidRoom, title: "Paid", startDateTime: later(now, 400), endDateTime: later(now, 460), paymentChannel: "prompt-pay" },
  })

  seen(
    "get",
    "/meetings",
    await app.GET("/meetings", { params: { query: { from: later(now, 0), to: later(now, 24 * 60), limit: 50, offset: 0, statuses: ["active", "unpaid"] } } }),
  )
  seen("get", "/meetings/{id}", await app.GET("/meetings/{id}", { params: { path: { id: meeting._id } } }))
  const patched = seen(
    "patch",
    "/meetings/{id}",
    await app.PATCH("/meetings/{id}", { params: { path: { id: meeting._id } }, body: { title: "Sync 2" } }),
  )
  const patchedData = patched.data?.data
  const patchedTitle: string = patchedData !== undefined && "title" in patchedData ? patchedData.title : ""
  if (patchedTitle !== "Sync 2") throw new Error("patch did not apply")

  const cancelData = toCancel.data?.data
  if (cancelData !== undefined && "_id" in cancelData)
    seen(
      "post",
      "/meetings/{id}/cancel",
      await app.POST("/meetings/{id}/cancel", { params: { path: { id: cancelData._id } }, body: {} }),
    )
  const rejectData = toReject.data?.data
  if (rejectData !== undefined && "_id" in rejectData)
    seen(
      "post",
      "/admin/v1/meetings/{id}/reject",
      await operator.POST("/admin/v1/meetings/{id}/reject", { params: { path: { id: rejectData._id } }, body: { reason: "Maintenance" } }),
    )

  // The meeting starts: check in, check out.
  seen("post", "/admin/v1/clock/advance", await operator.POST("/admin/v1/clock/advance", { body: { minutes: 31 } }))
  seen("post", "/meetings/{id}/check-in", await app.POST("/meetings/{id}/check-in", { params: { path: { id: meeting._id } } }))
  seen("post", "/meetings/{id}/check-out", await app.POST("/meetings/{id}/check-out", { params: { path: { id: meeting._id } } }))

  // --- the sandbox pay page --------------------------------------------------------------------
  const paidData = paid.data?.data
  const paymentId = paidData !== undefined && "_id" in paidData ? (paidData.payment?.paymentId ?? "") : ""
  seen("get", "/pay/{paymentId}", await open.GET("/pay/{paymentId}", { params: { path: { paymentId } }, parseAs: "text" }))
  seen(
    "post",
    "/pay/{paymentId}",
    await open.POST("/pay/{paymentId}", {
      params: { path: { paymentId } },
      body: { outcome: "paid" },
      bodySerializer: (form) => new URLSearchParams(form).toString(),
      headers: { "Content-Type": "application/x-www-form-urlencoded" },
      parseAs: "text",
    }),
  )

  // --- partner members ---------------------------------------------------------------------------
  const member = { params: { path: { externalUserId: "oc-user-1" } } }
  seen(
    "put",
    "/partner/members/{externalUserId}",
    await app.PUT("/partner/members/{externalUserId}", { ...member, body: { firstName: "Oc", lastName: "User", unit: { addressNo: "99/1" } } }),
  )
  seen(
    "put",
    "/partner/members/{externalUserId}/credentials",
    await app.PUT("/partner/members/{externalUserId}/credentials", { ...member, body: { cards: [{ cardNo: "12345678" }] } }),
  )
  const detail = seen("get", "/partner/members/{externalUserId}", await app.GET("/partner/members/{externalUserId}", member))
  const groups: string[] = detail.data?.data.accessGroupIds ?? []
  seen("delete", "/partner/members/{externalUserId}", await app.DELETE("/partner/members/{externalUserId}", member))

  // --- visitor events and the delivery log ---------------------------------------------------------
  seen(
    "post",
    "/admin/v1/projects/{projectId}/visitor-events",
    await operator.POST("/admin/v1/projects/{projectId}/visitor-events", {
      params: { path: { projectId: project.id } },
      body: {
        type: "VMS_HOST_CANCELLED",
        data: {
          userId: "vms-1",
          visitorName: "Vera",
          hostName: "Alice Ng",
          hostEmail: "alice@oc.example",
          startDateTime: "8 Jan 2030 09:00",
          endDateTime: "8 Jan 2030 11:00",
        },
      },
    }),
  )
  const log = seen(
    "get",
    "/admin/v1/webhooks/{id}/deliveries",
    await operator.GET("/admin/v1/webhooks/{id}/deliveries", { params: { path: { id: webhook }, query: { limit: 10, offset: 0 } } }),
  )
  seen("post", "/admin/v1/webhooks/{id}/enable", await operator.POST("/admin/v1/webhooks/{id}/enable", { params: { path: { id: webhook } } }))
  const deliveryId = log.data?.data[0]?.id ?? "0123456789abcdef01234567"
  seen(
    "post",
    "/admin/v1/deliveries/{id}/redeliver",
    await operator.POST("/admin/v1/deliveries/{id}/redeliver", { params: { path: { id: deliveryId } } }),
  )

  // --- foundation ------------------------------------------------------------------------------------
  seen("get", "/healthz", await open.GET("/healthz"))
  seen("get", "/metrics", await open.GET("/metrics", { parseAs: "text" }))
  const document = seen("get", "/openapi.json", await open.GET("/openapi.json"))
  seen("get", "/docs", await open.GET("/docs", { parseAs: "text" }))
  seen("get", "/docs/reference.js", await open.GET("/docs/reference.js", { parseAs: "text" }))

  if ([amount, checkIns, calendarSize, histories.length, groups.length].some((n) => !Number.isFinite(n)) || !document.data)
    throw new Error("a typed read came back empty")
}
