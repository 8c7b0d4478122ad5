import { describe, expect, it } from "vitest"
import { contractManifest } from "../../support/contract-manifest.ts"
import { APP, at, bookingWorldOn } from "../bookings/booking-fixtures.ts"

/** Every string leaf of a JSON value, with its dotted path. */
const stringLeaves = (value: unknown, path: string[] = []): Array<string[]> => {
  if (typeof value === "string") return [path]
  if (typeof value !== "object" || value === null) return []
  return Object.entries(value).flatMap(([k, v]) => stringLeaves(v, [...path, k]))
}

const withNulAt = (value: unknown, path: string[]): unknown => {
  const copy = structuredClone(value) as any
  let node = copy
  for (const key of path.slice(0, -1)) node = node[key]
  node[path.at(-1)!] = `${node[path.at(-1)!]}\u0000x`
  return copy
}

const NUL_MESSAGE = (field: string) => `${field}: must not contain NUL characters`

/** Decode-time bounds of a request's body and query: one harness for both kinds. */
describe("a request is bounded at decode time, 400 SV001 naming each fault", () => {
  const world = bookingWorldOn("pglite")

  describe("a NUL character anywhere in a JSON body or query string is 400 SV001 naming the field", () => {
    const expectNul = (res: { status: number; body: any }, field: string) => {
      expect(res.status, field).toBe(400)
      expect(res.body.code, field).toBe("SV001")
      expect(res.body.message, field).toContain(NUL_MESSAGE(field))
    }

    it("operator manifest: a NUL in any of its strings (room email, app id, ...) is refused naming that field", async () => {
      const manifest = contractManifest()
      const leaves = stringLeaves(manifest)
      expect(leaves.length).toBeGreaterThan(40)
      for (const leaf of leaves) {
        const res = await world.h.admin("PUT", "/manifest", withNulAt(manifest, leaf))
        expectNul(res, leaf.join("."))
      }
      // Several at once: one message per field.
      const twice = withNulAt(withNulAt(manifest, ["apps", "0", "appId"]), ["projects", "0", "rooms", "0", "email"])
      const both = await world.h.admin("PUT", "/manifest", twice)
      expect(both.body.message).toEqual([NUL_MESSAGE("projects.0.rooms.0.email"), NUL_MESSAGE("apps.0.appId")])
    })

    it("a NUL in a field name is refused too, named with the NUL escaped", async () => {
      const res = await world.h.admin("PUT", "/manifest", { ...contractManifest(), "ev\u0000il": 1 })
      expect(res.status).toBe(400)
      expect(res.body.message).toEqual(["ev\\u0000il: field names must not contain NUL characters"])
    })

    it("token, booking, partner, visitor-event and clock bodies", async () => {
      const token = (body: object) => world.h.request("POST", "/auth/accessToken", { body })
      expectNul(await token({ grant_type: "app_credentials", app_id: "a\u0000", app_secret: APP.appSecret }), "app_id")
      expectNul(await token({ grant_type: "refresh_token", refresh_token: "\u0000" }), "refresh_token")
      expectNul(await token({ grant_type: "act\u0000as" }), "grant_type")
      const meeting = {
        meetingRoomId: world.w.hq.rooms.orchid,
        title: "Sync",
        startDateTime: at(1, "10:00"),
        endDateTime: at(1, "11:00"),
        attendees: [{ email: "guest@hq.example", name: "Guest" }],
      }
      for (const leaf of stringLeaves(meeting))
        expectNul(await world.h.request("POST", "/meetings", { token: world.w.alice, body: withNulAt(meeting, leaf) }), leaf.join("."))
      const member = { firstName: "Nul", lastName: "Person", email: "nul@hq.example", accessGroupIds: ["x"] }
      const partner = await world.h.request("PUT", "/partner/members/ext-nul", { token: world.w.app, body: withNulAt(member, ["lastName"]) })
      expectNul(partner, "lastName")
      expectNul(
        await world.h.admin("POST", `/projects/${world.w.hq.id}/visitor-events`, { type: "VMS_HOST_CANCELLED", data: { visitorName: "V\u0000" } }),
        "data.visitorName",
      )
      expectNul(await world.h.admin("POST", "/clock/advance", { to: "2030-01-08T00:00:00Z\u0000" }), "to")
    })

    it("a NUL does not hide the request's other faults: one 400 names them all", async () => {
      const res = await world.h.request("POST", "/meetings", {
        token: world.w.alice,
        body: { meetingRoomId: world.w.hq.rooms.orchid, title: "Sy\u0000nc", startDateTime: at(1, "10:00"), endDateTime: "soon", attendees: 3 },
      })
      expect(res.status).toBe(400)
      expect(res.body.message).toContain(NUL_MESSAGE("title"))
      expect(res.body.message.some((m: string) => m.startsWith("endDateTime:"))).toBe(true)
      expect(res.body.message.some((m: string) => m.startsWith("attendees:"))).toBe(true)
      const query = await world.h.request("GET", `/desks?projectId=${world.w.hq.id}&email=a%00@b.c&limit=-1`, { token: world.w.app })
      expect(query.body.message).toContain(NUL_MESSAGE("email"))
      expect(query.body.message.some((m: string) => m.startsWith("limit:"))).toBe(true)
      // A grant read by two decodes names its NUL once.
      const token = await world.h.request("POST", "/auth/accessToken", { body: { grant_type: "nope\u0000", app_id: 5 } })
      expect(token.body.message.filter((m: string) => m === NUL_MESSAGE("grant_type"))).toHaveLength(1)
    })

    it("a lone UTF-16 surrogate is named by its field, beside the request's other faults", async () => {
      const res = await world.h.request("POST", "/meetings", {
        token: world.w.alice,
        body: `{"meetingRoomId":"${world.w.hq.rooms.orchid}","title":"Sy\\ud800nc","startDateTime":"${at(1, "10:00")}","endDateTime":"soon"}`,
      })
      expect(res.status).toBe(400)
      expect(res.body.message).toContain("title: must be well-formed Unicode (no lone surrogates)")
      expect(res.body.message.some((m: string) => m.startsWith("endDateTime:"))).toBe(true)
    })

    it("query strings of the spec and operator surfaces", async () => {
      const get = (path: string, token = world.w.app) => world.h.request("GET", path, { token })
      expectNul(await get(`/meeting-rooms?projectId=${world.w.hq.id}&name=Lo%00tus`), "name")
      expectNul(await get(`/desks?projectId=${world.w.hq.id}&email=a%00@b.c`), "email")
      expectNul(await get(`/meetings?from=${encodeURIComponent(at(0, "00:00"))}&to=${encodeURIComponent(at(3, "00:00"))}&organizerEmails=a@b.c&organizerEmails=x%00@b.c`), "organizerEmails.1")
      expectNul(await get(`/meeting-rooms/${world.w.hq.rooms.orchid}?from=%00`), "from")
      expectNul(await world.h.request("GET", `/admin/v1/webhooks/0123456789abcdef01234567/deliveries?limit=1%00`, { token: undefined, headers: { authorization: "Bearer test-admin-token-0123456789" } }), "limit")
    })

    it("the sandbox pay page form answers its 400 page naming the field", async () => {
      const res = await world.h.booted.app.request("/pay/0123456789abcdef01234567", {
        method: "POST",
        body: "outcome=paid%00",
        headers: { "content-type": "application/x-www-form-urlencoded" },
      })
      expect(res.status).toBe(400)
      expect(await res.text()).toContain(NUL_MESSAGE("outcome"))
    })
  })

  describe("a request's arrays are bounded before their items are checked (400 SV001, the answer bounded too)", () => {
    it("an array of more than 1,000 items is one message naming it, not one per bad item", async () => {
      const res = await world.h.request("POST", "/meetings", {
        token: world.w.alice,
        body: { meetingRoomId: world.w.hq.rooms.orchid, title: "Big", startDateTime: at(1, "10:00"), endDateTime: at(1, "11:00"), attendees: Array(400_000).fill(0) },
      })
      expect(res.status).toBe(400)
      expect(res.body).toMatchObject({ code: "SV001", success: false })
      // One message for the array, not one per bad item.
      expect(res.body.message).toEqual(["attendees: at most 1000 items (400000 sent)"])
    })

    it("the credentials route, whose body may be 15 MiB for a face: cards beyond the bound are refused the same way", async () => {
      const res = await world.h.request("PUT", "/partner/members/ext-big/credentials", {
        token: world.w.app,
        body: { cards: Array.from({ length: 300_000 }, () => ({ cardNo: 5 })) },
      })
      expect(res.status).toBe(400)
      expect(res.body.message).toEqual(["cards: at most 1000 items (300000 sent)"])
    })

    it("under the bound an array keeps its own rule (attendees: at most 500), and every bad item is named", async () => {
      const body = { meetingRoomId: world.w.hq.rooms.orchid, title: "Big", startDateTime: at(1, "10:00"), endDateTime: at(1, "11:00") }
      const many = await world.h.request("POST", "/meetings", {
        token: world.w.alice,
        body: { ...body, attendees: Array.from({ length: 600 }, (_, i) => ({ email: `p${i}@hq.example` })) },
      })
      expect(many.status).toBe(400)
      expect(many.body.message).toEqual(["attendees: at most 500 attendees"])
      const bad = await world.h.request("POST", "/meetings", { token: world.w.alice, body: { ...body, attendees: [0, 0] } })
      expect(bad.body.message.filter((m: string) => m.startsWith("attendees."))).toHaveLength(2)
    })

    it("the manifest's arrays are bounded at 100,000 items, checked before any item is decoded", async () => {
      const manifest = contractManifest() as any
      manifest.projects[0].rooms = Array(100_001).fill(0)
      const res = await world.h.admin("PUT", "/manifest", manifest)
      expect(res.status).toBe(400)
      expect(res.body.message).toEqual(["projects.0.rooms: at most 100000 items (100001 sent)"])
    })

    it("the manifest takes large arrays; an answer names at most 1,000 violations and counts the rest", async () => {
      const manifest = contractManifest() as any
      const room = manifest.projects[0].rooms[0]
      manifest.projects[0].rooms = Array.from({ length: 1_500 }, (_, i) => ({ ...room, key: `bad-${i}`, capacity: "many" }))
      const res = await world.h.admin("PUT", "/manifest", manifest)
      expect(res.status).toBe(400)
      expect(res.body.message).toHaveLength(1_001)
      expect(res.body.message.at(-1)).toBe("and 500 more violations")
    })
  })
})
