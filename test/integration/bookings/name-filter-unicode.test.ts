import { sql } from "drizzle-orm"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { ENGINES } from "../../support/databases.ts"
import { startHarness, type Harness } from "../../support/harness.ts"
import { qs, setUpWorld, type BookingWorld } from "./booking-fixtures.ts"

/**
 * The `name` filter of GET /meeting-rooms and GET /desks finds a name in any case and in either
 * Unicode form: "Café" written with é (NFC) or with e and a combining accent (NFD, as macOS
 * input gives it) is one name to a person. Names are returned as stored.
 */
describe.each(ENGINES)("the name filter and Unicode forms, on %s", (engine) => {
  let h: Harness
  let w: BookingWorld
  const NFC = "Caf\u00e9"
  const NFD = "Cafe\u0301"
  beforeAll(async () => {
    h = await startHarness(engine)
    w = await setUpWorld(h)
    const rename = (table: "rooms" | "desks", id: string, name: string) =>
      h.booted.services.database.db.execute(sql`update ${sql.identifier(table)} set name = ${name} where id = ${id}`)
    await rename("rooms", w.hq.rooms.lotus!, `${NFC} Lotus`)
    await rename("rooms", w.hq.rooms.orchid!, `${NFD} Orchid`)
    await rename("desks", w.hq.desks.d1!, `${NFC} Desk`)
    await rename("desks", w.hq.desks.d2!, `${NFD} desk`)
  })
  afterAll(async () => h?.close())

  const names = async (path: string, params: Record<string, any>) =>
    ((await h.request("GET", `${path}?${qs(params)}`, { token: w.app })).body.data as Array<{ name: string }>).map((r) => r.name).sort()

  it("rooms: either form of the filter finds both forms of the name, as stored", async () => {
    for (const name of [NFC, NFD, NFC.toUpperCase(), NFD.toUpperCase()])
      expect(await names("/meeting-rooms", { projectId: w.hq.id, name })).toEqual([`${NFC} Lotus`, `${NFD} Orchid`].sort())
  })

  it("desks: either form of the filter finds both forms of the name, as stored", async () => {
    for (const name of [NFC, NFD])
      expect(await names("/desks", { projectId: w.hq.id, name })).toEqual([`${NFC} Desk`, `${NFD} desk`].sort())
  })
})
