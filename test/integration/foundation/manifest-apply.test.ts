import { asc, eq } from "drizzle-orm"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { appLinksTable, desksTable, projectMembershipsTable, roomsTable, usersTable } from "../../../adapters/postgres/schema.ts"
import type { Manifest, ManifestProject } from "../../../core/tenancy/manifest.ts"
import { ENGINES } from "../../support/databases.ts"
import { startHarness, type Harness } from "../../support/harness.ts"

/**
 * Operator contract, section 3: the manifest is applied idempotently, each key keeps its id, and
 * a re-apply changes only what the manifest changed. The store writes a kind's rows together
 * (issue 13, session 15); these pin what one-by-one upserts gave.
 */
const building = (o: { rooms?: number; desks?: number; roomName?: string; users?: NonNullable<Manifest["projects"]>[number]["users"] } = {}): Manifest => ({
  projects: [
    {
      key: "tower",
      name: "Tower",
      timezone: "Asia/Bangkok",
      zones: [{ key: "a", name: "A", floors: [{ key: "a-1", name: "A1" }, { key: "a-2", name: "A2" }] }],
      rooms: Array.from({ length: o.rooms ?? 3 }, (_, i) => ({ key: `r${i}`, name: `${o.roomName ?? "Room"} ${i}`, zone: "a", floor: "a-1", capacity: 4 })),
      desks: Array.from({ length: o.desks ?? 2 }, (_, i) => ({ key: `d${i}`, name: `Desk ${i}`, zone: "a", floor: "a-1", index: i })),
      users: o.users ?? [{ key: "ann", firstName: "Ann", lastName: "Lee", email: "ann@tower.example", links: [{ app: "partner", externalUserId: "ext-ann" }] }],
    },
  ],
  apps: [{ key: "partner", appId: "partner-app", appSecret: "partner-secret-123", projects: ["tower"] }],
})

/** The building with more fields on its one project. */
const tower = (fields: Partial<ManifestProject>): Manifest => {
  const base = building()
  return { ...base, projects: [{ ...base.projects![0]!, ...fields }] }
}

describe.each(ENGINES)("applying a manifest on %s", (engine) => {
  let h: Harness
  beforeAll(async () => {
    h = await startHarness(engine)
  })
  afterAll(async () => h?.close())
  const db = () => h.booted.services.database.db

  it("an unchanged manifest applied again keeps every id and writes nothing", async () => {
    const first = await h.applyManifest(building())
    const before = await db().select().from(roomsTable).orderBy(asc(roomsTable.key))
    await h.advance(5)
    expect(await h.applyManifest(building())).toEqual(first)
    expect(await db().select().from(roomsTable).orderBy(asc(roomsTable.key))).toEqual(before)
  })

  it("a changed manifest updates only the rows it changed, keeps their ids and adds the new keys", async () => {
    const first = await h.applyManifest(building())
    const before = new Map((await db().select().from(roomsTable)).map((r) => [r.key, r]))
    await h.advance(5)
    const base = building({ rooms: 4 })
    const project = base.projects![0]!
    const m: Manifest = { ...base, projects: [{ ...project, rooms: project.rooms!.map((r) => (r.key === "r1" ? { ...r, name: "Lotus", floor: "a-2" } : r)) }] }
    const second = await h.applyManifest(m)
    const tower = second.projects.tower
    expect(tower.rooms.r0).toBe(first.projects.tower.rooms.r0)
    expect(tower.rooms.r1).toBe(first.projects.tower.rooms.r1)
    expect(tower.rooms.r3).toMatch(/^[0-9a-f]{24}$/)
    const after = new Map((await db().select().from(roomsTable)).map((r) => [r.key, r]))
    expect(after.get("r0")).toEqual(before.get("r0"))
    expect(after.get("r1")).toMatchObject({ name: "Lotus", floorId: tower.floors["a-2"] })
    expect(after.get("r1")!.updatedAt.getTime()).toBeGreaterThan(before.get("r1")!.updatedAt.getTime())
    expect(after.get("r3")).toMatchObject({ name: "Room 3", floorId: tower.floors["a-1"], capacity: 4 })
  })

  it("a building larger than one statement's parameters applies whole, and again unchanged", async () => {
    // 2,500 desks of 17 columns: more parameters than one insert statement takes here.
    const m = building({ rooms: 10, desks: 2500 })
    const first = await h.applyManifest(m)
    expect(Object.keys(first.projects.tower.desks)).toHaveLength(2500)
    const rows = await db().select({ id: desksTable.id, key: desksTable.key }).from(desksTable)
    expect(rows).toHaveLength(2500)
    for (const r of rows) expect(first.projects.tower.desks[r.key!]).toBe(r.id)
    expect(await h.applyManifest(m)).toEqual(first)
  })

  it("a user found by email who is a member under another key becomes that key's user", async () => {
    const first = await h.applyManifest(building())
    const renamed = building({ users: [{ key: "ann-lee", firstName: "Ann", lastName: "Lee", email: "ANN@tower.example", role: "admin" }] })
    const second = await h.applyManifest(renamed)
    expect(second.projects.tower.users["ann-lee"]).toBe(first.projects.tower.users.ann)
    const [membership] = await db()
      .select()
      .from(projectMembershipsTable)
      .where(eq(projectMembershipsTable.userId, first.projects.tower.users.ann))
    expect(membership).toMatchObject({ manifestKey: "ann-lee", role: "admin" })
    const [user] = await db().select().from(usersTable).where(eq(usersTable.id, first.projects.tower.users.ann))
    expect(user).toMatchObject({ email: "ANN@tower.example", emailNorm: "ann@tower.example" })
  })

  it("two manifest users with one email are one person, the later key holding the membership", async () => {
    const ids = await h.applyManifest(
      building({
        users: [
          { key: "bo", firstName: "Bo", lastName: "One", email: "bo@tower.example" },
          { key: "bo-2", firstName: "Bo", lastName: "Two", email: "bo@tower.example" },
        ],
      }),
    )
    expect(ids.projects.tower.users.bo).toBe(ids.projects.tower.users["bo-2"])
    const people = await db().select().from(usersTable).where(eq(usersTable.emailNorm, "bo@tower.example"))
    expect(people).toHaveLength(1)
    expect(people[0]).toMatchObject({ lastName: "Two" })
    const memberships = await db().select().from(projectMembershipsTable).where(eq(projectMembershipsTable.userId, people[0]!.id))
    expect(memberships.map((m) => m.manifestKey)).toEqual(["bo-2"])
  })

  it("a phone one user gives up is free for a new user of the same manifest", async () => {
    const first = await h.applyManifest(building({ users: [{ key: "eve", firstName: "Eve", lastName: "A", email: "eve@tower.example", phone: "+66811110001" }] }))
    const second = await h.applyManifest(
      building({
        users: [
          { key: "eve", firstName: "Eve", lastName: "A", email: "eve@tower.example", phone: "+66811110002" },
          { key: "fay", firstName: "Fay", lastName: "B", email: "fay@tower.example", phone: "+66811110001" },
        ],
      }),
    )
    expect(second.projects.tower.users.eve).toBe(first.projects.tower.users.eve)
    const [fay] = await db().select().from(usersTable).where(eq(usersTable.id, second.projects.tower.users.fay))
    expect(fay).toMatchObject({ phone: "+66811110001" })
  })

  it("an employee id one membership gives up is taken by a later user, in the manifest's order", async () => {
    await h.applyManifest(
      building({
        users: [
          { key: "gus", firstName: "Gus", lastName: "A", email: "gus@tower.example", employeeId: "E-9" },
          { key: "hal", firstName: "Hal", lastName: "B", email: "hal@tower.example" },
        ],
      }),
    )
    // Gus comes back under a new key without an employee id (found by email, his membership
    // taken over), and Hal, after him, takes E-9.
    const ids = await h.applyManifest(
      building({
        users: [
          { key: "gus-2", firstName: "Gus", lastName: "A", email: "gus@tower.example" },
          { key: "hal", firstName: "Hal", lastName: "B", email: "hal@tower.example", employeeId: "E-9" },
        ],
      }),
    )
    const rows = await db().select().from(projectMembershipsTable).where(eq(projectMembershipsTable.projectId, ids.projects.tower.id))
    const of = (key: string) => rows.find((r) => r.userId === ids.projects.tower.users[key])
    expect(of("gus-2")).toMatchObject({ manifestKey: "gus-2", employeeId: null })
    expect(of("hal")).toMatchObject({ manifestKey: "hal", employeeId: "E-9" })
  })

  it("a manifest user's phone is stored normalized as the partner surface stores it (+66 for local numbers)", async () => {
    const ids = await h.applyManifest(building({ users: [{ key: "ina", firstName: "Ina", lastName: "A", email: "ina@tower.example", phone: "081-999 9999" }] }))
    const [ina] = await db().select().from(usersTable).where(eq(usersTable.id, ids.projects.tower.users.ina))
    expect(ina).toMatchObject({ phone: "+66819999999" })
  })

  it("two people of one manifest with one phone, or one project's employee id: 400 SV001, a message each, nothing written", async () => {
    const before = await db().select().from(usersTable)
    const res = await h.admin("PUT", "/manifest", building({
      users: [
        { key: "jo", firstName: "Jo", lastName: "A", email: "jo@tower.example", phone: "+66812220001", employeeId: "X-1" },
        { key: "kim", firstName: "Kim", lastName: "B", email: "kim@tower.example", phone: "0812220001", employeeId: "X-1" },
        // One person under two keys may repeat both.
        { key: "jo-2", firstName: "Jo", lastName: "A", email: "JO@tower.example", phone: "+66812220001", employeeId: "X-1" },
      ],
    }))
    expect(res.status).toBe(400)
    expect(res.body).toMatchObject({ code: "SV001", success: false })
    expect(res.body.message).toEqual([
      'projects.0.users.1.phone: "+66812220001" is also the phone of projects.0.users.0',
      'projects.0.users.1.employeeId: "X-1" is also the employeeId of projects.0.users.0',
    ])
    expect(await db().select().from(usersTable)).toEqual(before)
  })

  it("a discount code with surrounding spaces, with both kinds of value or none, or an amount below a satang is 400 SV001, a message each", async () => {
    const res = await h.admin("PUT", "/manifest", tower({
      discounts: [
        { key: "spaced", code: " SP ", name: "Spaced", percentOff: 50 },
        { key: "both", code: "BOTH", name: "Both", percentOff: 10, amountOff: 5 },
        { key: "none", code: "NONE", name: "None" },
        { key: "tiny", code: "TINY", name: "Tiny", amountOff: 0.001 },
        { key: "fine", code: "FINE", name: "Fine", amountOff: 12.5 },
      ],
    }))
    expect(res.status).toBe(400)
    expect(res.body.message).toEqual([
      "projects.0.discounts.0.code: must not begin or end with spaces: codes are matched trimmed",
      "projects.0.discounts.1.percentOff: give exactly one of percentOff and amountOff",
      "projects.0.discounts.2.percentOff: give exactly one of percentOff and amountOff",
      "projects.0.discounts.3.amountOff: must be in whole satang (at most 2 decimals)",
    ])
  })

  it("a phone or employee id held by a user outside the manifest: 409 SV006, nothing written", async () => {
    await h.applyManifest(building({ users: [{ key: "lu", firstName: "Lu", lastName: "A", email: "lu@tower.example", phone: "+66813330001", employeeId: "Y-1" }] }))
    const before = await db().select().from(usersTable)
    const other = (u: object) => ({ projects: [{ key: "annex", name: "Annex", timezone: "Asia/Bangkok", users: [u] }] }) as Manifest
    const phone = await h.admin("PUT", "/manifest", other({ key: "mo", firstName: "Mo", lastName: "B", email: "mo@annex.example", phone: "081-333 0001" }))
    expect(phone.status).toBe(409)
    expect(phone.body).toMatchObject({ code: "SV006", success: false })
    // Lu stays a member of the tower when a later manifest leaves her out: her employee id is hers.
    const employee = await h.admin("PUT", "/manifest", building({ users: [{ key: "ned", firstName: "Ned", lastName: "C", email: "ned@tower.example", employeeId: "Y-1" }] }))
    expect(employee.status).toBe(409)
    expect(employee.body).toMatchObject({ code: "SV006", success: false })
    expect(await db().select().from(usersTable)).toEqual(before)
  })

  it("app links are added once; an existing link is left as it is", async () => {
    const m = building({
      users: [
        { key: "cy", firstName: "Cy", lastName: "A", email: "cy@tower.example", links: [{ app: "partner", externalUserId: "ext-cy" }] },
        { key: "di", firstName: "Di", lastName: "B", email: "di@tower.example" },
      ],
    })
    const first = await h.applyManifest(m)
    const project = m.projects![0]!
    const linked: Manifest = {
      ...m,
      projects: [{ ...project, users: project.users!.map((u) => (u.key === "di" ? { ...u, links: [{ app: "partner", externalUserId: "ext-di" }] } : u)) }],
    }
    const second = await h.applyManifest(linked)
    expect(second).toEqual(first)
    const links = await db().select().from(appLinksTable).orderBy(asc(appLinksTable.externalUserId))
    expect(links.filter((l) => l.externalUserId === "ext-cy" || l.externalUserId === "ext-di").map((l) => [l.externalUserId, l.userId])).toEqual([
      ["ext-cy", first.projects.tower.users.cy],
      ["ext-di", first.projects.tower.users.di],
    ])
  })

  const linksOf = async (...ext: string[]) =>
    (await db().select().from(appLinksTable).orderBy(asc(appLinksTable.externalUserId)))
      .filter((l) => ext.includes(l.externalUserId))
      .map((l) => [l.externalUserId, l.userId])

  it("a user's link under a new externalUserId is moved to it, and two users may swap theirs in one apply", async () => {
    const users = (ev: string, fay: string) =>
      building({
        users: [
          { key: "ev", firstName: "Ev", lastName: "A", email: "ev@tower.example", links: [{ app: "partner", externalUserId: ev }] },
          { key: "fay", firstName: "Fay", lastName: "B", email: "fay@tower.example", links: [{ app: "partner", externalUserId: fay }] },
        ],
      })
    const ids = (await h.applyManifest(users("ext-ev", "ext-fay"))).projects.tower.users
    expect((await h.admin("PUT", "/manifest", users("ext-ev-2", "ext-fay"))).status).toBe(200)
    expect(await linksOf("ext-ev", "ext-ev-2", "ext-fay")).toEqual([["ext-ev-2", ids.ev], ["ext-fay", ids.fay]])
    const swapped = await h.admin("PUT", "/manifest", users("ext-fay", "ext-ev-2"))
    expect(swapped.status, JSON.stringify(swapped.body)).toBe(200)
    expect(await linksOf("ext-ev-2", "ext-fay")).toEqual([["ext-ev-2", ids.fay], ["ext-fay", ids.ev]])
  })

  it("two users of two projects sharing an app may swap their externalUserIds in one apply", async () => {
    const m = (u: string, v: string): Manifest => ({
      projects: [
        { key: "east", name: "East", timezone: "Asia/Bangkok", users: [{ key: "uma", firstName: "Uma", lastName: "A", email: "uma@east.example", links: [{ app: "shared", externalUserId: u }] }] },
        { key: "west", name: "West", timezone: "Asia/Bangkok", users: [{ key: "vic", firstName: "Vic", lastName: "B", email: "vic@west.example", links: [{ app: "shared", externalUserId: v }] }] },
      ],
      apps: [{ key: "shared", appId: "shared-app", appSecret: "shared-secret-123", projects: ["east", "west"] }],
    })
    const first = await h.applyManifest(m("x-uma", "x-vic"))
    const swapped = await h.admin("PUT", "/manifest", m("x-vic", "x-uma"))
    expect(swapped.status, JSON.stringify(swapped.body)).toBe(200)
    expect(await linksOf("x-uma", "x-vic")).toEqual([["x-uma", first.projects.west.users.vic], ["x-vic", first.projects.east.users.uma]])
  })

  it("two links of one user to one app, one link for two users, or a link to an app that does not serve the project: 400 SV001, a message each", async () => {
    const m = building({
      users: [
        { key: "gil", firstName: "Gil", lastName: "A", email: "gil@tower.example", links: [{ app: "partner", externalUserId: "g-1" }, { app: "partner", externalUserId: "g-2" }] },
        { key: "hal", firstName: "Hal", lastName: "B", email: "hal@tower.example", links: [{ app: "partner", externalUserId: "g-1" }] },
        { key: "ivy", firstName: "Ivy", lastName: "C", email: "ivy@tower.example", links: [{ app: "elsewhere", externalUserId: "i-1" }] },
      ],
    })
    const res = await h.admin("PUT", "/manifest", {
      ...m,
      projects: [...m.projects!, { key: "annex-2", name: "Annex", timezone: "Asia/Bangkok" }],
      apps: [...m.apps!, { key: "elsewhere", appId: "elsewhere-app", appSecret: "elsewhere-secret-1", projects: ["annex-2"] }],
    })
    expect(res.status).toBe(400)
    expect(res.body).toMatchObject({ code: "SV001", success: false })
    expect(res.body.message).toEqual([
      'projects.0.users.0.links.1: a user has one link per app; projects.0.users.0.links.0 already links it to app "partner" as "g-1"',
      'projects.0.users.1.links.0.externalUserId: "g-1" of app "partner" is also the link of projects.0.users.0.links.0',
      'projects.0.users.2.links.0.app: app "elsewhere" does not serve project "tower"',
    ])
    expect(await linksOf("g-1", "g-2", "i-1")).toEqual([])
  })

  it("a link held by a user the manifest does not move: 409 SV006, nothing written", async () => {
    const ids = (await h.applyManifest(building({ users: [{ key: "jay", firstName: "Jay", lastName: "A", email: "jay@tower.example", links: [{ app: "partner", externalUserId: "ext-jay" }] }] }))).projects.tower.users
    const res = await h.admin("PUT", "/manifest", building({ users: [{ key: "kai", firstName: "Kai", lastName: "B", email: "kai@tower.example", links: [{ app: "partner", externalUserId: "ext-jay" }] }] }))
    expect(res.status).toBe(409)
    expect(res.body).toMatchObject({ code: "SV006", success: false })
    expect(await linksOf("ext-jay")).toEqual([["ext-jay", ids.jay]])
    expect((await db().select().from(usersTable).where(eq(usersTable.emailNorm, "kai@tower.example"))).length).toBe(0)
  })

  it("\"__proto__\" is a key like any other (1-64 of a-z0-9-_): referenced, and in the key-to-id map", async () => {
    const manifest: Manifest = {
      projects: [
        {
          key: "__proto__",
          name: "Proto",
          timezone: "Asia/Bangkok",
          zones: [{ key: "__proto__", name: "Z", floors: [{ key: "__proto__", name: "F" }] }],
          rooms: [{ key: "__proto__", name: "R", zone: "__proto__", floor: "__proto__", capacity: 2 }],
          accessGroups: [{ key: "__proto__", name: "G" }],
          users: [{ key: "__proto__", firstName: "P", lastName: "Roto", email: "proto@proto.example", links: [{ app: "__proto__", externalUserId: "ext-proto" }] }],
        },
      ],
      apps: [{ key: "__proto__", appId: "proto-app", appSecret: "proto-secret-123", projects: ["__proto__"], partnerAccessGroups: ["__proto__"] }],
    }
    const res = await h.admin("PUT", "/manifest", manifest)
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    const project = res.body.data.projects.__proto__
    for (const kind of ["zones", "floors", "rooms", "accessGroups", "users"]) expect(project[kind].__proto__, kind).toMatch(/^[0-9a-f]{24}$/)
    expect(res.body.data.apps.__proto__).toMatch(/^[0-9a-f]{24}$/)
    const read = await h.admin("GET", "/manifest/ids")
    expect(read.body.data.projects.__proto__.rooms.__proto__).toBe(project.rooms.__proto__)
    const again = await h.admin("PUT", "/manifest", manifest)
    expect(again.body.data).toEqual(res.body.data)
  })

  it("discount codes may move between keys in one apply (swapped)", async () => {
    const m = (a: string, b: string) =>
      tower({ discounts: [{ key: "d1", code: a, name: "One", percentOff: 10 }, { key: "d2", code: b, name: "Two", percentOff: 20 }] })
    const first = await h.applyManifest(m("SWAP-A", "SWAP-B"))
    const res = await h.admin("PUT", "/manifest", m("SWAP-B", "SWAP-A"))
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    expect(res.body.data.projects.tower.discounts).toEqual(first.projects.tower.discounts)
    const { discountsTable } = await import("../../../adapters/postgres/schema.ts")
    const rows = await db().select().from(discountsTable).where(eq(discountsTable.projectId, first.projects.tower.id))
    expect(Object.fromEntries(rows.map((r) => [r.key, r.code]))).toMatchObject({ d1: "SWAP-B", d2: "SWAP-A" })
  })

  it("a listed code that a discount the manifest does not list holds in another case (codes match in any case): 409 SV006, nothing written", async () => {
    const first = await h.applyManifest(tower({ discounts: [{ key: "old", code: "spring", name: "Old", percentOff: 10 }] }))
    const res = await h.admin("PUT", "/manifest", tower({ discounts: [{ key: "new", code: "SPRING", name: "New", percentOff: 50 }] }))
    expect(res.status, JSON.stringify(res.body)).toBe(409)
    expect(res.body).toMatchObject({ code: "SV006", success: false })
    const { discountsTable } = await import("../../../adapters/postgres/schema.ts")
    const rows = await db().select().from(discountsTable).where(eq(discountsTable.projectId, first.projects.tower.id))
    expect(rows.filter((r) => ["old", "new"].includes(r.key!)).map((r) => [r.key, r.code])).toEqual([["old", "spring"]])
  })

  it("two units of one project with one addressNo in one zone (compared as binding does: trimmed, any case; both without a zone), one unitId, or a unit without zone or unitId whose addressNo another unit has: 400 SV001, a message each", async () => {
    const res = await h.admin("PUT", "/manifest", tower({
      units: [
        { key: "u1", addressNo: "1/1", zone: "a", unitId: "U-1" },
        { key: "u2", addressNo: " 1/1 ", zone: "a" },
        { key: "u3", addressNo: "2/2" },
        { key: "u4", addressNo: "2/2", unitId: "U-1" },
        { key: "u5", addressNo: "1/1" },
      ],
    }))
    expect(res.status).toBe(400)
    expect(res.body.message).toEqual([
      'projects.0.units.1: addressNo " 1/1 " in zone "a" is also that of projects.0.units.0',
      'projects.0.units.3: addressNo "2/2" without a zone is also that of projects.0.units.2',
      'projects.0.units.3: unitId "U-1" is also that of projects.0.units.0',
      'projects.0.units.4: addressNo "1/1" without a zone or unitId is also that of projects.0.units.0, so a partner could never name it',
    ])
  })
})
