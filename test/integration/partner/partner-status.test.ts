import { and, eq } from "drizzle-orm"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { deviceCommandsOf } from "../../../adapters/postgres/device-store.ts"
import { appLinksTable, memberCardsTable } from "../../../adapters/postgres/schema.ts"
import { ENGINES } from "../../support/databases.ts"
import {
  addHqUser,
  CONSENT,
  jpegBase64,
  startPartnerWorld,
  type PartnerWorld,
} from "./partner-fixture.ts"

/** Spec: Partner member status, one test per row of the table. */
describe.each(ENGINES)("partner member status on %s", (engine) => {
  let w: PartnerWorld
  let hq: any
  beforeAll(async () => {
    w = await startPartnerWorld(engine)
    hq = w.ids.projects.hq
  })
  afterAll(async () => w?.h.close())

  const put = (ext: string, body: unknown = { firstName: "S", lastName: "T" }) =>
    w.call("PUT", w.member(ext), body)
  const get = (ext: string) => w.call("GET", w.member(ext))
  const creds = (ext: string, body: unknown) => w.call("PUT", `${w.member(ext)}/credentials`, body)
  const db = () => w.h.booted.services.database.db
  const partnerGroups = () => [hq.accessGroups.lobby, hq.accessGroups.gym].sort()

  it("(none) -> active: first PUT with no identity match creates, links and adds the fixed access groups", async () => {
    const res = await put("st-new", { firstName: "N", lastName: "", email: "st-new@hq.example" })
    expect(res.body.data).toMatchObject({ created: true, matchedBy: "provisioned" })
    expect([...res.body.data.accessGroupIds].sort()).toEqual(partnerGroups())
    const [link] = await db()
      .select()
      .from(appLinksTable)
      .where(eq(appLinksTable.externalUserId, "st-new"))
    expect(link?.userId).toBe(res.body.data.memberId)
    expect((await get("st-new")).body.data.status).toBe("active")
  })

  it("(none) -> active: first PUT matching an existing user links it (and adds it to the project)", async () => {
    const id = await addHqUser(w.h, {
      key: "st-existing",
      firstName: "E",
      lastName: "",
      email: "st-existing@hq.example",
    })
    const res = await put("st-existing", {
      firstName: "E",
      lastName: "",
      email: "st-existing@hq.example",
    })
    expect(res.body.data).toMatchObject({ memberId: id, created: false, matchedBy: "email" })
    expect((await get("st-existing")).body.data).toMatchObject({ memberId: id, status: "active" })
  })

  it("active -> active: PUT member updates the profile; omitted fields are left untouched", async () => {
    await put("st-upd", {
      firstName: "Old",
      lastName: "Name",
      profileName: "P",
      email: "st-upd@hq.example",
    })
    const res = await put("st-upd", { firstName: "New", lastName: "Name" })
    expect(res.status).toBe(200)
    expect((await get("st-upd")).body.data.profile).toEqual({
      firstName: "New",
      lastName: "Name",
      profileName: "P",
      email: "st-upd@hq.example",
      phone: null,
    })
  })

  it("active -> deactivated: DELETE revokes every card (physical and generated), withdraws device access and groups, keeps the link", async () => {
    const { body } = await put("st-off")
    const memberId = body.data.memberId
    const withFace = await creds("st-off", { face: jpegBase64(64), faceConsentAt: CONSENT })
    const virtual = withFace.body.data.cards[0]
    expect(virtual).toMatchObject({ type: "virtual", generated: true })
    await creds("st-off", { cards: [{ cardNo: "60001" }] })
    expect((await w.call("DELETE", w.member("st-off"))).status).toBe(204)

    const detail = (await get("st-off")).body.data
    expect(detail).toMatchObject({ memberId, status: "deactivated", accessGroupIds: [] })
    expect(detail.credentials.cards).toEqual([])
    const cards = await db()
      .select()
      .from(memberCardsTable)
      .where(eq(memberCardsTable.userId, memberId))
    expect(cards.map((c) => c.status)).toEqual(["revoked", "revoked"])
    // Device access withdrawn: every credential granted to each group is revoked again.
    const commands = await deviceCommandsOf(db(), memberId)
    const net = new Map<string, number>()
    for (const c of commands) {
      const k = `${c.accessGroupId}|${c.credentialId}`
      net.set(k, (net.get(k) ?? 0) + (c.action === "grant" ? 1 : -1))
    }
    expect([...net.values()].every((n) => n === 0)).toBe(true)
    expect(commands.some((c) => c.action === "revoke" && c.credentialId === virtual.cardId)).toBe(
      true,
    )
    const links = await db()
      .select()
      .from(appLinksTable)
      .where(and(eq(appLinksTable.externalUserId, "st-off"), eq(appLinksTable.userId, memberId)))
    expect(links).toHaveLength(1)
  })

  it("deactivated -> active: PUT keeps the memberId, restores the groups and issues a fresh generated card number", async () => {
    const { body } = await put("st-re")
    const first = await creds("st-re", { face: jpegBase64(64), faceConsentAt: CONSENT })
    const oldVirtual = first.body.data.cards[0]
    await w.call("DELETE", w.member("st-re"))
    const back = await put("st-re")
    expect(back.status).toBe(200)
    expect(back.body.data).toMatchObject({
      memberId: body.data.memberId,
      created: false,
      matchedBy: "link",
    })
    expect([...back.body.data.accessGroupIds].sort()).toEqual(partnerGroups())
    const detail = (await get("st-re")).body.data
    expect(detail.status).toBe("active")
    expect(detail.credentials.face).toEqual({ present: true })
    expect(detail.credentials.cards).toHaveLength(1)
    const fresh = detail.credentials.cards[0]
    expect(fresh).toMatchObject({ type: "virtual", generated: true })
    expect(fresh.cardId).not.toBe(oldVirtual.cardId)
    expect(fresh.cardNo).not.toBe(oldVirtual.cardNo)
    // The fresh card is enrolled on the restored groups.
    const commands = await deviceCommandsOf(db(), body.data.memberId)
    const grants = commands
      .filter((c) => c.action === "grant" && c.credentialId === fresh.cardId)
      .map((c) => c.accessGroupId)
    expect(grants.sort()).toEqual(partnerGroups())
  })

  it("deactivated -> PUT credentials: rejected with a state conflict (409 SV006), still deactivated", async () => {
    await put("st-409")
    await w.call("DELETE", w.member("st-409"))
    const res = await creds("st-409", { face: null })
    expect(res.status).toBe(409)
    expect(res.body.code).toBe("SV006")
    expect((await get("st-409")).body.data.status).toBe("deactivated")
  })

  it("deactivated -> DELETE: 204 again and nothing changes", async () => {
    const { body } = await put("st-del2")
    await w.call("DELETE", w.member("st-del2"))
    const before = await deviceCommandsOf(db(), body.data.memberId)
    expect((await w.call("DELETE", w.member("st-del2"))).status).toBe(204)
    expect(await deviceCommandsOf(db(), body.data.memberId)).toEqual(before)
  })
})
