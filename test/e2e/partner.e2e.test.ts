import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { e2eTarget, uniqueSuffix, type E2ETarget } from "../support/e2e-target.ts"
import { jpegBase64 } from "../support/face-images.ts"

/** Partner members over HTTP: onboard, credentials, read, offboard, act_as (well under 30 calls). */
describe("partner members over HTTP", () => {
  let t: E2ETarget
  const sfx = uniqueSuffix()
  const appId = `partner-${sfx}`
  const secret = "e2e-partner-secret-123"
  let ids: any
  beforeAll(async () => {
    t = await e2eTarget()
    const applied = await t.admin("PUT", "/manifest", {
      projects: [
        {
          key: `p-${sfx}`,
          name: "E2E partner",
          timezone: "Asia/Bangkok",
          zones: [{ key: "a", name: "A" }],
          units: [{ key: "u1", addressNo: `1/${sfx}`, zone: "a", unitId: `U-${sfx}` }],
          accessGroups: [{ key: "lobby", name: "Lobby" }],
        },
      ],
      apps: [
        {
          key: appId,
          appId,
          appSecret: secret,
          projects: [`p-${sfx}`],
          partnerAccessGroups: ["lobby"],
          canActAs: true,
        },
      ],
    })
    expect(applied.status).toBe(200)
    ids = applied.body.data
  })
  afterAll(async () => t?.close())

  it("onboard, set credentials, read, offboard, re-onboard; act_as for a federated member", async () => {
    const token = (
      await t.call("POST", "/auth/accessToken", {
        body: { grant_type: "app_credentials", app_id: appId, app_secret: secret },
      })
    ).body.access_token
    const project = ids.projects[`p-${sfx}`]
    const path = `/partner/members/ext-${sfx}`

    const put = await t.call("PUT", path, {
      token,
      body: {
        firstName: "E2E",
        lastName: "Member",
        email: `e2e-${sfx}@example.test`,
        unit: { addressNo: `1/${sfx}` },
      },
    })
    expect(put.status).toBe(200)
    expect(put.body.data).toMatchObject({
      created: true,
      matchedBy: "provisioned",
      projectId: project.id,
      accessGroupIds: [project.accessGroups.lobby],
      unit: { roomId: project.units.u1, role: "owner" },
    })

    // A whole JPEG's frame: start of image, start of scan, end of image.

    const creds = await t.call("PUT", `${path}/credentials`, {
      token,
      body: {
        cards: [{ cardNo: "A1B2C3D4", cardCodeFormat: "hex" }],
        face: jpegBase64(256),
        faceConsentAt: "2030-01-07T09:00:00+07:00",
      },
    })
    expect(creds.status).toBe(200)
    expect(creds.body.data.cards).toEqual([
      expect.objectContaining({
        cardNo: String(0xd4c3b2a1).padStart(10, "0"),
        type: "real",
        generated: false,
      }),
    ])
    expect(creds.body.data.face).toEqual({ present: true })

    const got = await t.call("GET", path, { token })
    expect(got.body.data).toMatchObject({ status: "active", source: "partner", userType: "member" })

    const del = await t.call("DELETE", path, { token })
    expect(del.status).toBe(204)
    expect(
      (await t.call("PUT", `${path}/credentials`, { token, body: { cards: [] } })).status,
    ).toBe(409)
    const back = await t.call("PUT", path, {
      token,
      body: { firstName: "E2E", lastName: "Member" },
    })
    expect(back.body.data).toMatchObject({ memberId: put.body.data.memberId, matchedBy: "link" })

    const actAs = await t.call("POST", "/auth/accessToken", {
      body: { grant_type: "act_as", app_id: appId, app_secret: secret, subject: `fed-${sfx}` },
    })
    expect(actAs.status).toBe(201)
    expect(actAs.body.refresh_token).toBeUndefined()
    const refused = await t.call("GET", path, { token: actAs.body.access_token })
    expect(refused.status).toBe(403)
    expect(refused.body.code).toBe("SV003")
    const fed = await t.call("GET", `/partner/members/fed-${sfx}`, { token })
    expect(fed.body.data).toMatchObject({ source: "federated", userType: "visitor" })
  })
})
