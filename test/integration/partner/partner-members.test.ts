import { and, eq } from "drizzle-orm"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import {
  appLinksTable,
  projectMembershipsTable,
  usersTable,
} from "../../../adapters/postgres/schema.ts"
import { ENGINES } from "../../support/databases.ts"
import { addHqUser, startPartnerWorld, type PartnerWorld } from "./partner-fixture.ts"

/** Spec: Endpoints > Partner members, PUT member rules 1-8, and the Errors section. */
describe.each(ENGINES)("partner members on %s", (engine) => {
  let w: PartnerWorld
  let hq: any
  beforeAll(async () => {
    w = await startPartnerWorld(engine)
    hq = w.ids.projects.hq
  })
  afterAll(async () => w?.h.close())

  const put = (ext: string, body: unknown, app?: string) => w.call("PUT", w.member(ext), body, app)
  const get = (ext: string, app?: string) => w.call("GET", w.member(ext), undefined, app)
  const db = () => w.h.booted.services.database.db
  const partnerGroups = () => [hq.accessGroups.lobby, hq.accessGroups.gym].sort()

  describe("PUT member rule 1: idempotent on externalUserId", () => {
    it("a repeated PUT returns the same member, created false, matchedBy link", async () => {
      const body = { firstName: "Ida", lastName: "Em", employeeId: "R1-1" }
      const first = await put("r1-ida", body)
      const second = await put("r1-ida", body)
      expect(first.status).toBe(200)
      expect(first.body.data).toMatchObject({
        created: true,
        matchedBy: "provisioned",
        externalUserId: "r1-ida",
      })
      expect(second.status).toBe(200)
      expect(second.body.data).toMatchObject({
        memberId: first.body.data.memberId,
        created: false,
        matchedBy: "link",
      })
      expect(second.body.data).toEqual({ ...first.body.data, created: false, matchedBy: "link" })
    })
  })

  describe("PUT member rule 2: resolution order link, email, phone, employeeId, create", () => {
    it("(1) the member already linked to this externalUserId wins", async () => {
      const res = await put("ext-alice", {
        firstName: "Alice",
        lastName: "Ng",
        email: "alice@hq.example",
      })
      expect(res.status).toBe(200)
      expect(res.body.data).toMatchObject({
        memberId: hq.users.alice,
        matchedBy: "link",
        created: false,
      })
    })

    it("(2) email matches an existing user case-insensitively", async () => {
      const id = await addHqUser(w.h, {
        key: "r2-email",
        firstName: "E",
        lastName: "M",
        email: "Mixed.Case@HQ.example",
      })
      const res = await put("r2-email", {
        firstName: "E",
        lastName: "M",
        email: "mixed.case@hq.EXAMPLE",
      })
      expect(res.status).toBe(200)
      expect(res.body.data).toMatchObject({ memberId: id, matchedBy: "email", created: false })
    })

    it("(3) phone matches after normalization (spaces and dashes stripped, +66 for local numbers)", async () => {
      const id = await addHqUser(w.h, {
        key: "r2-phone",
        firstName: "P",
        lastName: "H",
        phone: "+66833333333",
      })
      const res = await put("r2-phone", { firstName: "P", lastName: "H", phone: "083-333 3333" })
      expect(res.status).toBe(200)
      expect(res.body.data).toMatchObject({ memberId: id, matchedBy: "phone", created: false })
    })

    it("(4) employeeId matches a member of the project carrying it", async () => {
      const id = await addHqUser(w.h, {
        key: "r2-emp",
        firstName: "Em",
        lastName: "P",
        employeeId: "R2-EMP",
      })
      const res = await put("r2-emp", { firstName: "Em", lastName: "P", employeeId: "R2-EMP" })
      expect(res.status).toBe(200)
      expect(res.body.data).toMatchObject({
        memberId: id,
        matchedBy: "employeeId",
        created: false,
        employeeId: "R2-EMP",
      })
    })

    it("first hit wins: email is tried before phone and employeeId of the same user", async () => {
      const id = await addHqUser(w.h, {
        key: "r2-first",
        firstName: "F",
        lastName: "H",
        email: "first@hq.example",
        phone: "+66844444444",
        employeeId: "R2-F",
      })
      const res = await put("r2-first", {
        firstName: "F",
        lastName: "H",
        email: "first@hq.example",
        phone: "0844444444",
        employeeId: "R2-F",
      })
      expect(res.body.data).toMatchObject({ memberId: id, matchedBy: "email" })
    })

    it("(5) no match creates a new member: created true, matchedBy provisioned", async () => {
      const res = await put("r2-new", {
        firstName: "New",
        lastName: "One",
        email: "r2-new@hq.example",
      })
      expect(res.status).toBe(200)
      expect(res.body.data.created).toBe(true)
      expect(res.body.data.matchedBy).toBe("provisioned")
      expect(res.body.data.memberId).toMatch(/^[0-9a-f]{24}$/)
    })
  })

  describe("PUT member rule 3: a user matched by email or phone joins the project", () => {
    it("a user of another project matched by email is added to this project", async () => {
      const frank = w.ids.projects.annex.users.frank
      const res = await put("r3-frank", {
        firstName: "Frank",
        lastName: "Annex",
        email: "FRANK@annex.example",
      })
      expect(res.status).toBe(200)
      expect(res.body.data).toMatchObject({ memberId: frank, matchedBy: "email", projectId: hq.id })
      const [m] = await db()
        .select()
        .from(projectMembershipsTable)
        .where(
          and(
            eq(projectMembershipsTable.projectId, hq.id),
            eq(projectMembershipsTable.userId, frank),
          ),
        )
      expect(m?.status).toBe("active")
      expect((await get("r3-frank")).body.data.status).toBe("active")
    })

    it("the profile of a person who is also another project's member is not this app's to rewrite: names stay, a new email or phone is 409", async () => {
      // frank (project annex) joined hq through the test above.
      const renamed = await put("r3-frank", { firstName: "Mallory", lastName: "M" })
      expect(renamed.status).toBe(200)
      expect((await get("r3-frank")).body.data.profile).toMatchObject({ firstName: "Frank", lastName: "Annex", email: "frank@annex.example" })
      const email = await put("r3-frank", { firstName: "Frank", lastName: "Annex", email: "mallory@evil.example" })
      expect(email.status).toBe(409)
      expect(email.body).toMatchObject({ code: "SV006", data: { conflictKey: "email" } })
      const phone = await put("r3-frank", { firstName: "Frank", lastName: "Annex", phone: "+66877777777" })
      expect(phone.status).toBe(409)
      expect(phone.body).toMatchObject({ code: "SV006", data: { conflictKey: "phone" } })
      expect((await get("r3-frank")).body.data.profile).toMatchObject({ email: "frank@annex.example", phone: null })
    })
  })

  describe("PUT member rule 4: unit is a binding, never an identity", () => {
    it("a PUT carrying only a unit always creates a new member", async () => {
      const a = await put("r4-only-a", {
        firstName: "A",
        lastName: "",
        unit: { addressNo: "10/1" },
      })
      const b = await put("r4-only-b", {
        firstName: "A",
        lastName: "",
        unit: { addressNo: "10/1" },
      })
      expect(a.body.data.created).toBe(true)
      expect(b.body.data.created).toBe(true)
      expect(b.body.data.memberId).not.toBe(a.body.data.memberId)
    })

    it("the first resident bound to a unit becomes the reservation owner; later ones are participants", async () => {
      const a = await put("r4-own-a", { firstName: "A", lastName: "", unit: { addressNo: "10/2" } })
      const b = await put("r4-own-b", { firstName: "B", lastName: "", unit: { addressNo: "10/2" } })
      expect(a.body.data.unit).toEqual({
        roomId: hq.units.t2,
        addressNo: "10/2",
        groupId: expect.stringMatching(/^[0-9a-f]{24}$/),
        role: "owner",
      })
      expect(b.body.data.unit).toMatchObject({
        roomId: hq.units.t2,
        role: "participant",
        groupId: a.body.data.unit.groupId,
      })
    })

    it("moving to another unit removes the member from the old unit (the next resident becomes owner)", async () => {
      await put("r4-mv-a", { firstName: "A", lastName: "", unit: { addressNo: "10/3" } })
      await put("r4-mv-b", { firstName: "B", lastName: "", unit: { addressNo: "10/3" } })
      const moved = await put("r4-mv-a", {
        firstName: "A",
        lastName: "",
        unit: { addressNo: "10/4" },
      })
      expect(moved.body.data.unit).toMatchObject({
        roomId: hq.units.t4,
        addressNo: "10/4",
        role: "owner",
      })
      expect((await get("r4-mv-b")).body.data.unit).toMatchObject({
        roomId: hq.units.t3,
        role: "owner",
      })
    })

    it("unit null unbinds; an omitted unit is left untouched", async () => {
      await put("r4-null", { firstName: "A", lastName: "", unit: { addressNo: "10/5" } })
      const kept = await put("r4-null", { firstName: "A", lastName: "" })
      expect(kept.body.data.unit).toMatchObject({ roomId: hq.units.t5 })
      const res = await put("r4-null", { firstName: "A", lastName: "", unit: null })
      expect(res.status).toBe(200)
      expect(res.body.data.unit).toBeNull()
      expect((await get("r4-null")).body.data.unit).toBeNull()
    })

    it("unitId is an alternate lookup key", async () => {
      const res = await put("r4-unitid", {
        firstName: "A",
        lastName: "",
        unit: { addressNo: "99/2", unitId: "U-99-2" },
      })
      expect(res.status).toBe(200)
      expect(res.body.data.unit).toMatchObject({ roomId: hq.units.u2, addressNo: "99/2" })
    })

    it("unit.addressNo naming no room of the project is 404 SV005 and creates nothing", async () => {
      const res = await put("r4-404", {
        firstName: "A",
        lastName: "",
        unit: { addressNo: "404/404" },
      })
      expect(res.status).toBe(404)
      expect(res.body).toMatchObject({ code: "SV005", success: false })
      expect((await get("r4-404")).status).toBe(403)
    })

    it("unit.unitId naming no room of the project is 404 SV005", async () => {
      const res = await put("r4-404b", {
        firstName: "A",
        lastName: "",
        unit: { addressNo: "99/1", unitId: "U-NOPE" },
      })
      expect(res.status).toBe(404)
      expect(res.body.code).toBe("SV005")
    })

    it("unit.addressNo in several zones without unit.zoneId is 409 SV006 conflictKey unit.addressNo", async () => {
      const res = await put("r4-amb", { firstName: "A", lastName: "", unit: { addressNo: "12/3" } })
      expect(res.status).toBe(409)
      expect(res.body).toMatchObject({
        code: "SV006",
        success: false,
        data: { conflictKey: "unit.addressNo" },
      })
      const ok = await put("r4-amb", {
        firstName: "A",
        lastName: "",
        unit: { addressNo: "12/3", zoneId: hq.zones.b },
      })
      expect(ok.status).toBe(200)
      expect(ok.body.data.unit.roomId).toBe(hq.units["dup-b"])
    })
  })

  describe("PUT member rule 5: first call adds the member to the app's fixed partner groups", () => {
    it("accessGroupIds are the partnerAccessGroupIds of the app", async () => {
      const res = await put("r5-groups", { firstName: "G", lastName: "" })
      expect([...res.body.data.accessGroupIds].sort()).toEqual(partnerGroups())
      expect(res.body.data.accessGroupIds).not.toContain(hq.accessGroups.roof)
    })

    it("empty accessGroupIds when the app has no partner groups", async () => {
      const res = await put("r5-none", { firstName: "G", lastName: "" }, "other-app")
      expect(res.status).toBe(200)
      expect(res.body.data.accessGroupIds).toEqual([])
    })
  })

  describe("PUT member rule 6: employeeId alone is valid", () => {
    it("creates a member without a login, username {projectId}_{employeeId}", async () => {
      const res = await put("r6-emp", { firstName: "Emp", lastName: "Only", employeeId: "R6-1" })
      expect(res.status).toBe(200)
      expect(res.body.data).toMatchObject({ created: true, employeeId: "R6-1" })
      const [u] = await db()
        .select()
        .from(usersTable)
        .where(eq(usersTable.id, res.body.data.memberId))
      expect(u).toMatchObject({ username: `${hq.id}_R6-1`, email: null, phone: null })
    })

    it("a changed employeeId lets go of the login name derived from the old one, so the old employeeId is free for someone else", async () => {
      expect((await put("r6-ren-a", { firstName: "R", lastName: "A", employeeId: "R6-REN-1" })).status).toBe(200)
      const moved = await put("r6-ren-a", { firstName: "R", lastName: "A", employeeId: "R6-REN-2" })
      expect(moved.status).toBe(200)
      const [a] = await db().select().from(usersTable).where(eq(usersTable.id, moved.body.data.memberId))
      expect(a).toMatchObject({ username: null })
      const other = await put("r6-ren-b", { firstName: "R", lastName: "B", employeeId: "R6-REN-1" })
      expect(other.status, JSON.stringify(other.body)).toBe(200)
      expect(other.body.data).toMatchObject({ created: true, employeeId: "R6-REN-1" })
      // And the new employeeId is still this member's own: another create with it is a conflict.
      const clash = await put("r6-ren-c", { firstName: "R", lastName: "C", employeeId: "R6-REN-2" })
      expect(clash.status).toBe(409)
      expect(clash.body.data).toMatchObject({ conflictKey: "employeeId" })
    })
  })

  describe("PUT member rule 7: userType and source", () => {
    it("a member created through this surface has userType member and source partner", async () => {
      await put("r7-new", { firstName: "S", lastName: "" })
      expect((await get("r7-new")).body.data).toMatchObject({
        userType: "member",
        source: "partner",
      })
    })

    it("a member resolved rather than created keeps its existing source", async () => {
      await addHqUser(w.h, {
        key: "r7-old",
        firstName: "O",
        lastName: "",
        email: "r7-old@hq.example",
      })
      await put("r7-old", { firstName: "O", lastName: "", email: "r7-old@hq.example" })
      expect((await get("r7-old")).body.data).toMatchObject({
        userType: "member",
        source: "manifest",
      })
    })
  })

  describe("PUT member rule 8: never silently re-links; identity conflicts are 409 SV006 with data", () => {
    it("a body key resolving to a different member than the one linked: conflictKey email", async () => {
      await addHqUser(w.h, {
        key: "r8-other",
        firstName: "O",
        lastName: "",
        email: "r8-other@hq.example",
      })
      const res = await put("ext-alice", {
        firstName: "Alice",
        lastName: "Ng",
        email: "r8-other@hq.example",
      })
      expect(res.status).toBe(409)
      expect(res.body).toEqual({
        code: "SV006",
        success: false,
        message: expect.anything(),
        data: { conflictKey: "email" },
      })
      expect((await get("ext-alice")).body.data.profile.email).toBe("alice@hq.example")
    })

    it("a key resolving to a member this app manages under another externalUserId carries linkedExternalUserId", async () => {
      const res = await put("r8-thief", { firstName: "X", lastName: "", email: "ALICE@hq.example" })
      expect(res.status).toBe(409)
      expect(res.body.data).toEqual({ conflictKey: "email", linkedExternalUserId: "ext-alice" })
      expect((await get("r8-thief")).status).toBe(403)
    })

    it("phone taken by someone else: conflictKey phone", async () => {
      await put("r8-phone", { firstName: "X", lastName: "" })
      const res = await put("r8-phone", { firstName: "X", lastName: "", phone: "081 111 1111" })
      expect(res.status).toBe(409)
      expect(res.body.data).toEqual({ conflictKey: "phone", linkedExternalUserId: "ext-alice" })
    })

    it("employeeId taken by someone else in the project: conflictKey employeeId", async () => {
      await put("r8-emp", { firstName: "X", lastName: "" })
      const res = await put("r8-emp", { firstName: "X", lastName: "", employeeId: "E-3" })
      expect(res.status).toBe(409)
      expect(res.body.data).toEqual({ conflictKey: "employeeId" })
    })

    it("a key resolving to a member another app manages is 409 SV006 without that app's id: nothing linked, the profile untouched", async () => {
      const res = await put("mine-dave", {
        firstName: "Mallory",
        lastName: "Su",
        email: "DAVE@hq.example",
      })
      expect(res.status).toBe(409)
      expect(res.body).toMatchObject({ code: "SV006", success: false, data: { conflictKey: "email" } })
      expect(res.body.data.linkedExternalUserId).toBeUndefined()
      expect((await get("mine-dave")).status).toBe(403)
      const dave = (await get("ext-dave", "other-app")).body.data
      expect(dave).toMatchObject({ memberId: hq.users.dave, status: "active", profile: { firstName: "Dave" } })
    })
  })

  describe("staff (a project admin) are the operator's", () => {
    it("a key resolving to a project admin is 409 SV006: no partner app links staff by a key (act_as would carry their admin authority), their profile untouched", async () => {
      for (const [key, body] of [
        ["email", { email: "SAM@hq.example" }],
        ["phone", { phone: "0899999999" }],
        ["employeeId", { employeeId: "E-9" }],
      ] as const) {
        const res = await put(`claim-sam-${key}`, { firstName: "Mallory", lastName: "Claim", ...body })
        expect(res.status, key).toBe(409)
        expect(res.body, key).toMatchObject({ code: "SV006", data: { conflictKey: key } })
        expect((await get(`claim-sam-${key}`)).status, key).toBe(403)
      }
    })
  })

  describe("PUT member validation (400 SV001)", () => {
    it("missing lastName is 400 SV001 with one message per violated constraint", async () => {
      const res = await put("v-1", { employeeId: "" })
      expect(res.status).toBe(400)
      expect(res.body.code).toBe("SV001")
      expect(res.body.message).toEqual(
        expect.arrayContaining([
          expect.stringContaining("firstName"),
          expect.stringContaining("lastName"),
          expect.stringContaining("employeeId"),
        ]),
      )
    })

    it("lastName may be the empty string", async () => {
      expect((await put("v-empty-last", { firstName: "A", lastName: "" })).status).toBe(200)
    })

    it("employeeId longer than 64 characters, a bad phone, a bad email are 400", async () => {
      for (const body of [
        { firstName: "A", lastName: "", employeeId: "x".repeat(65) },
        { firstName: "A", lastName: "", phone: "call me maybe" },
        { firstName: "A", lastName: "", email: "not-an-email" },
        { firstName: "A", lastName: "", email: null },
        { firstName: "A\u0000", lastName: "" },
        { firstName: "A", lastName: "", unit: { zoneId: "x" } },
      ]) {
        const res = await put("v-bad", body)
        expect(res.status, JSON.stringify(body)).toBe(400)
        expect(res.body.code).toBe("SV001")
      }
      expect((await get("v-bad")).status).toBe(403)
    })

    it("malformed JSON is 400 SV001", async () => {
      const res = await w.h.request("PUT", w.member("v-json"), {
        body: "{nope",
        token: w.tokens["partner-app"],
      })
      expect(res.status).toBe(400)
      expect(res.body.code).toBe("SV001")
    })

    it("phone is stored in E.164 after normalization", async () => {
      await put("v-phone", { firstName: "A", lastName: "", phone: "089-555 1234" })
      expect((await get("v-phone")).body.data.profile.phone).toBe("+66895551234")
    })

    it("externalUserId: 128 characters are accepted, 129 are 400 SV001", async () => {
      const ok = await put("x".repeat(128), { firstName: "A", lastName: "" })
      expect(ok.status).toBe(200)
      expect(ok.body.data.externalUserId).toBe("x".repeat(128))
      for (const method of ["PUT", "GET", "DELETE"]) {
        const res = await w.call(
          method,
          w.member("y".repeat(129)),
          method === "PUT" ? { firstName: "A", lastName: "" } : undefined,
        )
        expect(res.status).toBe(400)
        expect(res.body.code).toBe("SV001")
      }
      const cred = await w.call("PUT", `${w.member("y".repeat(129))}/credentials`, { cards: [] })
      expect(cred.status).toBe(400)
    })

    it("externalUserId with control characters (%00) is 400 SV001, not a server error", async () => {
      const res = await w.call("GET", "/partner/members/a%00b")
      expect(res.status).toBe(400)
      expect(res.body.code).toBe("SV001")
    })

    it("externalUserId is opaque: reserved characters round-trip", async () => {
      const ext = "tenant/42 ü?#"
      const res = await put(ext, { firstName: "A", lastName: "" })
      expect(res.status).toBe(200)
      expect(res.body.data.externalUserId).toBe(ext)
      expect((await get(ext)).body.data.externalUserId).toBe(ext)
    })
  })

  describe("GET member", () => {
    it("returns PartnerMemberDetail with exactly the spec's fields", async () => {
      await put("g-detail", {
        firstName: "Gus",
        lastName: "Tav",
        profileName: "G",
        email: "g-detail@hq.example",
        phone: "0891112222",
        employeeId: "G-1",
        unit: { addressNo: "10/6" },
      })
      const res = await get("g-detail")
      expect(res.status).toBe(200)
      expect(Object.keys(res.body.data).sort()).toEqual(
        [
          "accessGroupIds",
          "credentials",
          "employeeId",
          "externalUserId",
          "memberId",
          "profile",
          "projectId",
          "source",
          "status",
          "unit",
          "userType",
        ].sort(),
      )
      expect(res.body.data).toMatchObject({
        externalUserId: "g-detail",
        projectId: hq.id,
        status: "active",
        source: "partner",
        userType: "member",
        employeeId: "G-1",
        profile: {
          firstName: "Gus",
          lastName: "Tav",
          profileName: "G",
          email: "g-detail@hq.example",
          phone: "+66891112222",
        },
        credentials: { cards: [], face: { present: false } },
        unit: { roomId: hq.units.t6, addressNo: "10/6", role: "owner" },
      })
      expect([...res.body.data.accessGroupIds].sort()).toEqual(partnerGroups())
    })

    it("PUT member returns PartnerMember with exactly the spec's fields", async () => {
      const res = await put("g-shape", { firstName: "A", lastName: "" })
      expect(Object.keys(res.body.data).sort()).toEqual(
        [
          "accessGroupIds",
          "created",
          "employeeId",
          "externalUserId",
          "matchedBy",
          "memberId",
          "projectId",
          "unit",
        ].sort(),
      )
    })

    it("an unknown externalUserId is 403 SV221 and never creates a member", async () => {
      const res = await get("g-unknown")
      expect(res.status).toBe(403)
      expect(res.body).toMatchObject({ code: "SV221", success: false })
      const links = await db()
        .select()
        .from(appLinksTable)
        .where(eq(appLinksTable.externalUserId, "g-unknown"))
      expect(links).toEqual([])
    })

    it("another app's member is 403 SV221 (its externalUserId is unknown to this app)", async () => {
      const res = await get("ext-dave")
      expect(res.status).toBe(403)
      expect(res.body.code).toBe("SV221")
    })
  })

  describe("DELETE member", () => {
    it("is 204 with an empty body, and 204 again when already offboarded", async () => {
      await put("d-twice", { firstName: "A", lastName: "" })
      const first = await w.h.request("DELETE", w.member("d-twice"), {
        token: w.tokens["partner-app"],
      })
      expect(first.status).toBe(204)
      expect(first.body).toBeUndefined()
      const second = await w.call("DELETE", w.member("d-twice"))
      expect(second.status).toBe(204)
      expect(second.body).toBeUndefined()
      expect((await get("d-twice")).body.data.status).toBe("deactivated")
    })

    it("an unknown externalUserId is 403 SV221 and creates nothing", async () => {
      const res = await w.call("DELETE", w.member("d-unknown"))
      expect(res.status).toBe(403)
      expect(res.body.code).toBe("SV221")
      expect((await get("d-unknown")).status).toBe(403)
    })
  })

  describe("SV223: the member record is missing", () => {
    it("a link whose project membership is gone answers 401 SV223 on GET, credentials, DELETE and PUT", async () => {
      const created = await put("m-missing", { firstName: "A", lastName: "" })
      await db()
        .delete(projectMembershipsTable)
        .where(eq(projectMembershipsTable.userId, created.body.data.memberId))
      for (const [method, path, body] of [
        ["GET", w.member("m-missing"), undefined],
        ["PUT", `${w.member("m-missing")}/credentials`, { cards: [] }],
        ["DELETE", w.member("m-missing"), undefined],
        ["PUT", w.member("m-missing"), { firstName: "A", lastName: "" }],
      ] as const) {
        const res = await w.call(method, path, body)
        expect(res.status, `${method} ${path}`).toBe(401)
        expect(res.body).toMatchObject({ code: "SV223", success: false })
      }
    })
  })

  describe("SV003: only an app_credentials token of a single-project app", () => {
    it("a delegated (act_as) token is 403 SV003 on every partner route", async () => {
      const tok = await w.h.request("POST", "/auth/accessToken", {
        body: {
          grant_type: "act_as",
          app_id: "partner-app",
          app_secret: "partner-secret-123",
          subject: "ext-alice",
        },
      })
      expect(tok.status).toBe(201)
      for (const [method, path] of [
        ["PUT", w.member("ext-alice")],
        ["GET", w.member("ext-alice")],
        ["DELETE", w.member("ext-alice")],
        ["PUT", `${w.member("ext-alice")}/credentials`],
      ] as const) {
        const body = method === "PUT" ? { firstName: "A", lastName: "" } : undefined
        const res = await w.h.request(method, path, { token: tok.body.access_token, body })
        expect(res.status, `${method} ${path}`).toBe(403)
        expect(res.body).toMatchObject({ code: "SV003", success: false })
      }
      expect((await get("ext-alice")).body.data.status).toBe("active")
    })

    it("a multi-project app's token is 403 SV003", async () => {
      const res = await w.call(
        "PUT",
        w.member("multi-1"),
        { firstName: "A", lastName: "" },
        "multi-app",
      )
      expect(res.status).toBe(403)
      expect(res.body.code).toBe("SV003")
    })

    it("no token is 401 SV002", async () => {
      const res = await w.h.request("GET", w.member("ext-alice"))
      expect(res.status).toBe(401)
      expect(res.body.code).toBe("SV002")
    })
  })
})
