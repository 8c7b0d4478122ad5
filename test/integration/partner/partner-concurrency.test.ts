import { eq } from "drizzle-orm"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { appLinksTable, usersTable } from "../../../adapters/postgres/schema.ts"
import { ENGINES } from "../../support/databases.ts"
import { startPartnerWorld, type PartnerWorld } from "./partner-fixture.ts"

/** PUT member rule 1 under concurrency, and rule 8 when two ids race for one key. */
describe.each(ENGINES)("partner member concurrency on %s", (engine) => {
  let w: PartnerWorld
  beforeAll(async () => {
    w = await startPartnerWorld(engine)
  })
  afterAll(async () => w?.h.close())
  const db = () => w.h.booted.services.database.db

  it("20 concurrent PUTs for one new externalUserId create exactly one member; the others resolve it by link", async () => {
    const results = await Promise.all(
      Array.from({ length: 20 }, () =>
        w.call("PUT", w.member("race-1"), {
          firstName: "Race",
          lastName: "One",
          unit: { addressNo: "10/7" },
        }),
      ),
    )
    expect(results.map((r) => r.status)).toEqual(Array(20).fill(200))
    expect(results.filter((r) => r.body.data.created)).toHaveLength(1)
    expect(results.filter((r) => r.body.data.matchedBy === "link")).toHaveLength(19)
    expect(new Set(results.map((r) => r.body.data.memberId)).size).toBe(1)
    const links = await db()
      .select()
      .from(appLinksTable)
      .where(eq(appLinksTable.externalUserId, "race-1"))
    expect(links).toHaveLength(1)
    const users = await db().select().from(usersTable).where(eq(usersTable.firstName, "Race"))
    expect(users).toHaveLength(1)
    expect(results.every((r) => r.body.data.unit?.role === "owner")).toBe(true)
  })

  it("two externalUserIds racing for one email: one member, the loser gets 409 SV006 with linkedExternalUserId", async () => {
    const results = await Promise.all(
      ["race-a", "race-b"].map((ext) =>
        w.call("PUT", w.member(ext), { firstName: "R", lastName: "", email: "race@hq.example" }),
      ),
    )
    const statuses = results.map((r) => r.status).sort()
    expect(statuses).toEqual([200, 409])
    const winner = results.find((r) => r.status === 200)!
    const loser = results.find((r) => r.status === 409)!
    expect(loser.body.data).toEqual({
      conflictKey: "email",
      linkedExternalUserId: winner.body.data.externalUserId,
    })
  })

  it("concurrent PUTs binding new members to one empty unit leave exactly one owner", async () => {
    const results = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        w.call("PUT", w.member(`race-unit-${i}`), {
          firstName: "U",
          lastName: "",
          unit: { addressNo: "10/8" },
        }),
      ),
    )
    expect(results.map((r) => r.status)).toEqual(Array(6).fill(200))
    const roles = await Promise.all(
      results.map(
        async (r) =>
          (await w.call("GET", w.member(r.body.data.externalUserId))).body.data.unit.role,
      ),
    )
    expect(roles.filter((r) => r === "owner")).toHaveLength(1)
  })
})
