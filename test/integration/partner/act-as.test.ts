import { eq } from "drizzle-orm"
import { Effect } from "effect"
import { Tokens } from "../../../core/auth/tokens.ts"
import { afterAll, beforeAll, describe, expect, it } from "vitest"

import {
  appLinksTable,
  projectMembershipsTable,
  usersTable,
} from "../../../adapters/postgres/schema.ts"
import { actingUserId } from "../../../core/auth/principal.ts"
import { ENGINES } from "../../support/databases.ts"
import { startPartnerWorld, type PartnerWorld } from "./partner-fixture.ts"

/** Spec: Authentication 3 and 5 (act_as), Errors SV221 and SV223. */
describe.each(ENGINES)("act_as on %s", (engine) => {
  let w: PartnerWorld
  let hq: any
  beforeAll(async () => {
    w = await startPartnerWorld(engine)
    hq = w.ids.projects.hq
  })
  afterAll(async () => w?.h.close())

  const actAs = (
    fields: Record<string, unknown>,
    app = "partner-app",
    secret = "partner-secret-123",
  ) =>
    w.h.request("POST", "/auth/accessToken", {
      body: { grant_type: "act_as", app_id: app, app_secret: secret, ...fields },
    })
  const principalOf = (token: string) =>
    w.h.booted.runtime.runPromise(Tokens.use((t) => t.authenticate(`Bearer ${token}`)))
  const db = () => w.h.booted.services.database.db

  it("by external_user_id (the default) creates a federated visitor member on first use", async () => {
    const res = await actAs({ subject: "fed-1" })
    expect(res.status).toBe(201)
    expect(Object.keys(res.body).sort()).toEqual(["access_token", "expires_in"])
    expect(res.body.refresh_token).toBeUndefined()
    expect(res.body.expires_in).toBe(w.h.booted.services.config.actAsTokenTtlSeconds)
    const detail = await w.call("GET", w.member("fed-1"))
    expect(detail.status).toBe(200)
    expect(detail.body.data).toMatchObject({
      source: "federated",
      userType: "visitor",
      status: "active",
      accessGroupIds: [],
    })
    const again = await actAs({ subject: "fed-1", subject_type: "external_user_id" })
    expect(again.status).toBe(201)
    const links = await db()
      .select()
      .from(appLinksTable)
      .where(eq(appLinksTable.externalUserId, "fed-1"))
    expect(links).toHaveLength(1)
    expect((await principalOf(again.body.access_token)).subjectUserId).toBe(
      detail.body.data.memberId,
    )
  })

  it("subject counts characters as the partner routes count externalUserId: 128 emoji are one, 129 are 400 SV001", async () => {
    const id = "😀".repeat(128)
    expect((await w.call("PUT", w.member(id), { firstName: "E", lastName: "M" })).status).toBe(200)
    expect((await actAs({ subject: id })).status).toBe(201)
    const long = await actAs({ subject: "😀".repeat(129) })
    expect(long.status).toBe(400)
    expect(long.body).toMatchObject({ code: "SV001", message: ["subject: must be at most 128 characters"] })
  })

  it("subject follows the partner routes' externalUserId rule: only whitespace or a control character is 400 SV001, no member created", async () => {
    for (const [subject, message] of [
      ["   ", "subject: must not be only whitespace"],
      ["\u3000", "subject: must not be only whitespace"],
      ["a\u0007b", "subject: must not contain control characters"],
      ["..", 'subject: must not be "." or ".."'],
    ] as const) {
      const res = await actAs({ subject })
      expect(res.status, JSON.stringify(subject)).toBe(400)
      expect(res.body).toMatchObject({ code: "SV001", message: [message] })
    }
    const { appLinksTable } = await import("../../../adapters/postgres/schema.ts")
    const links = await w.h.booted.services.database.db.select().from(appLinksTable)
    expect(links.filter((l) => ["   ", "\u3000", "a\u0007b", ".."].includes(l.externalUserId))).toEqual([])
    const path = await w.call("GET", w.member("   "))
    expect(path.body.message).toEqual(["externalUserId: must not be only whitespace"])
  })

  it("the alias urn:ietf:params:oauth:grant-type:token-exchange is the same grant", async () => {
    const res = await w.h.request("POST", "/auth/accessToken", {
      body: {
        grant_type: "urn:ietf:params:oauth:grant-type:token-exchange",
        app_id: "partner-app",
        app_secret: "partner-secret-123",
        subject: "ext-alice",
      },
    })
    expect(res.status).toBe(201)
    expect(res.body.refresh_token).toBeUndefined()
    expect((await principalOf(res.body.access_token)).subjectUserId).toBe(hq.users.alice)
  })

  it("an already linked member is not recreated; a later PUT member keeps source federated", async () => {
    const first = await actAs({ subject: "fed-2" })
    const fedId = (await principalOf(first.body.access_token)).subjectUserId
    const put = await w.call("PUT", w.member("fed-2"), { firstName: "Fed", lastName: "Two" })
    expect(put.body.data).toMatchObject({ memberId: fedId, matchedBy: "link", created: false })
    const [u] = await db().select().from(usersTable).where(eq(usersTable.id, fedId!))
    expect(u?.source).toBe("federated")
  })

  it("the token's authority is the member's scope intersected with the app's; it acts as the member", async () => {
    // erin is linked to the two-project app but is a member of the annex project only.
    const erin = w.ids.projects.annex.users.erin
    const res = await actAs(
      { subject: erin, subject_type: "keyspace_member_id" },
      "multi-app",
      "multi-secret-123",
    )
    expect(res.status).toBe(201)
    const p = await principalOf(res.body.access_token)
    expect(p).toMatchObject({
      grant: "act_as",
      subjectUserId: erin,
      projectIds: [w.ids.projects.annex.id],
    })
    expect(actingUserId(p)).toBe(erin)
    const app = await principalOf(w.tokens["multi-app"]!)
    expect([...app.projectIds].sort()).toEqual([hq.id, w.ids.projects.annex.id].sort())
  })

  it("by keyspace_member_id: an already linked member of this app", async () => {
    const res = await actAs({ subject: hq.users.alice, subject_type: "keyspace_member_id" })
    expect(res.status).toBe(201)
    expect(await principalOf(res.body.access_token)).toMatchObject({
      subjectUserId: hq.users.alice,
      projectIds: [hq.id],
    })
  })

  it("a multi-project app by external_user_id is 403 SV221 and creates nothing", async () => {
    const res = await actAs({ subject: "fed-multi" }, "multi-app", "multi-secret-123")
    expect(res.status).toBe(403)
    expect(res.body).toMatchObject({ code: "SV221", success: false })
    expect(
      await db().select().from(appLinksTable).where(eq(appLinksTable.externalUserId, "fed-multi")),
    ).toEqual([])
  })

  it("an app not provisioned for act_as (canActAs false) is 403 SV221", async () => {
    const res = await actAs({ subject: "fed-x" }, "no-act-app", "no-act-secret-123")
    expect(res.status).toBe(403)
    expect(res.body.code).toBe("SV221")
  })

  it("keyspace_member_id of a member this app does not manage (another app's member) is 403 SV221", async () => {
    const res = await actAs({ subject: hq.users.dave, subject_type: "keyspace_member_id" })
    expect(res.status).toBe(403)
    expect(res.body.code).toBe("SV221")
  })

  it("keyspace_member_id that resolves to no member is 401 SV223", async () => {
    for (const subject of ["0123456789abcdef01234567", "not-an-object-id"]) {
      const res = await actAs({ subject, subject_type: "keyspace_member_id" })
      expect(res.status).toBe(401)
      expect(res.body).toMatchObject({ code: "SV223", success: false })
    }
  })

  it("a linked member whose record is missing is 401 SV223", async () => {
    await actAs({ subject: "fed-gone" })
    const detail = await w.call("GET", w.member("fed-gone"))
    await db()
      .delete(projectMembershipsTable)
      .where(eq(projectMembershipsTable.userId, detail.body.data.memberId))
    const res = await actAs({ subject: "fed-gone" })
    expect(res.status).toBe(401)
    expect(res.body.code).toBe("SV223")
  })

  it("an offboarded member cannot be acted as (403 SV221) and its delegated tokens are revoked", async () => {
    await w.call("PUT", w.member("fed-off"), { firstName: "Off", lastName: "" })
    const tok = await actAs({ subject: "fed-off" })
    expect(tok.status).toBe(201)
    expect(await principalOf(tok.body.access_token)).toMatchObject({ grant: "act_as" })
    expect((await w.call("DELETE", w.member("fed-off"))).status).toBe(204)
    await expect(principalOf(tok.body.access_token)).rejects.toMatchObject({
      _tag: "Unauthenticated",
    })
    const res = await actAs({ subject: "fed-off" })
    expect(res.status).toBe(403)
    expect(res.body.code).toBe("SV221")
  })

  it("offboarding revokes the member's delegated tokens of every app that may act in the project, not only the offboarding app's", async () => {
    const created = await w.call("PUT", w.member("fed-two-apps"), { firstName: "Two", lastName: "Apps" })
    const memberId = created.body.data.memberId
    // The operator linked the same person to a second app of the project (a manifest link).
    const at = new Date()
    await db().insert(appLinksTable).values({ appId: w.ids.apps.other, externalUserId: "ext-two", userId: memberId, projectId: hq.id, createdAt: at, updatedAt: at })
    const viaOther = await actAs({ subject: "ext-two" }, "other-app", "other-secret-123")
    expect(viaOther.status).toBe(201)
    expect((await w.call("DELETE", w.member("fed-two-apps"))).status).toBe(204)
    await expect(principalOf(viaOther.body.access_token)).rejects.toMatchObject({ _tag: "Unauthenticated" })
  })

  it("wrong app credentials are 401 SV002; a missing subject is 400 SV001", async () => {
    const bad = await actAs({ subject: "x" }, "partner-app", "wrong")
    expect(bad.status).toBe(401)
    expect(bad.body.code).toBe("SV002")
    const missing = await actAs({})
    expect(missing.status).toBe(400)
    expect(missing.body.code).toBe("SV001")
    const nul = await actAs({ subject: "a\u0000b" })
    expect(nul.status).toBe(400)
  })

  it("concurrent first act_as calls for one subject create exactly one member", async () => {
    const results = await Promise.all(
      Array.from({ length: 10 }, () => actAs({ subject: "fed-race" })),
    )
    expect(results.map((r) => r.status)).toEqual(Array(10).fill(201))
    const subjects = new Set(
      await Promise.all(
        results.map(async (r) => (await principalOf(r.body.access_token)).subjectUserId),
      ),
    )
    expect(subjects.size).toBe(1)
  })
})
