import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { admit } from "../../../core/auth/rate-limit.ts"
import { boot, type Booted } from "../../../adapters/wiring/boot.ts"
import { ENGINES } from "../../support/databases.ts"
import { ADMIN_TOKEN, CLOCK_START } from "../../support/harness.ts"
import { startPartnerWorld, type PartnerWorld } from "./partner-fixture.ts"

const LIMIT = { requests: 30, windowSeconds: 60 }

describe("partner rate limit: the sliding window", () => {
  it("admits 30 requests per 60 s and tells when the next slot frees", () => {
    let hits: number[] = []
    for (let i = 0; i < 30; i++) {
      const d = admit(hits, 1_000 * i, LIMIT)
      expect(d.admitted).toBe(true)
      if (d.admitted) hits = d.hits
    }
    expect(admit(hits, 30_000, LIMIT)).toEqual({ admitted: false, retryAfterSeconds: 30 })
    expect(admit(hits, 59_999, LIMIT)).toEqual({ admitted: false, retryAfterSeconds: 1 })
    expect(admit(hits, 60_000, LIMIT).admitted).toBe(true)
  })

  it("hits stamped more than a window ahead of now (a manual clock set back by a restart) do not count; a little ahead they do", () => {
    const ahead = Array.from({ length: 30 }, (_, i) => 7_200_000 + i)
    expect(admit(ahead, 0, LIMIT).admitted).toBe(true)
    const skewed = Array.from({ length: 30 }, (_, i) => 50 + i)
    expect(admit(skewed, 0, LIMIT).admitted).toBe(false)
  })
})

/** Spec Limits: 30 requests per 60 seconds per app across all partner routes, 429 SV036. */
describe.each(ENGINES)("partner rate limit on %s", (engine) => {
  let w: PartnerWorld
  beforeAll(async () => {
    // The spec's 30 per 60 s (the fixture lifts the limit for the other suites).
    w = await startPartnerWorld(engine, { KEYSPACE_PARTNER_RATE_LIMIT: "30" })
  })
  afterAll(async () => w?.h.close())

  it("the 31st request within 60 s is 429 SV036 with Retry-After; the budget spans all partner routes", async () => {
    await w.h.advance(5)
    const routes = [
      () => w.call("PUT", w.member("rl-1"), { firstName: "R", lastName: "" }),
      () => w.call("GET", w.member("rl-1")),
      () => w.call("PUT", `${w.member("rl-1")}/credentials`, { cards: [] }),
      () => w.call("GET", w.member("rl-unknown")),
    ]
    for (let i = 0; i < 30; i++) expect((await routes[i % routes.length]!()).status).not.toBe(429)
    const res = await w.call("DELETE", w.member("rl-1"))
    expect(res.status).toBe(429)
    expect(res.body).toMatchObject({ code: "SV036", success: false })
    expect(res.headers.get("retry-after")).toBe("60")
    // Refused requests do not spend budget; other apps have their own.
    expect((await w.call("GET", w.member("rl-1"))).status).toBe(429)
    expect((await w.call("GET", w.member("ext-dave"), undefined, "other-app")).status).toBe(200)
  })

  it("the window reads the service clock: advancing it 60 s frees the budget", async () => {
    await w.h.advance(1)
    const res = await w.call("GET", w.member("rl-1"))
    expect(res.status).toBe(200)
  })

  it("the token endpoint and non-partner routes are not counted", async () => {
    await w.h.advance(2)
    for (let i = 0; i < 30; i++) await w.call("GET", w.member("rl-1"))
    expect((await w.call("GET", w.member("rl-1"))).status).toBe(429)
    expect(
      (
        await w.h.request("POST", "/auth/accessToken", {
          body: {
            grant_type: "app_credentials",
            app_id: "partner-app",
            app_secret: "partner-secret-123",
          },
        })
      ).status,
    ).toBe(201)
  })
})

describe("partner rate limit across server processes on one PostgreSQL", () => {
  let w: PartnerWorld
  let second: Booted
  beforeAll(async () => {
    w = await startPartnerWorld("postgres", { KEYSPACE_PARTNER_RATE_LIMIT: "30" })
    second = await boot(
      {
        DATABASE_URL: w.h.booted.services.config.databaseUrl,
        KEYSPACE_SEED: "none",
        KEYSPACE_CLOCK: "manual",
        KEYSPACE_CLOCK_START: CLOCK_START,
        KEYSPACE_ADMIN_TOKEN: ADMIN_TOKEN,
        KEYSPACE_LOG_LEVEL: "silent",
        KEYSPACE_PARTNER_RATE_LIMIT: "30",
      },
      { print: () => {}, background: false },
    )
  })
  afterAll(async () => {
    await second?.close()
    await w?.h.close()
  })

  it("the budget is shared by every server process on one database", async () => {
    const viaSecond = async (path: string): Promise<Response> =>
      second.app.request(path, { headers: { authorization: `Bearer ${w.tokens["partner-app"]}` } })
    const results: number[] = await Promise.all(
      Array.from({ length: 30 }, async (_, i) =>
        i % 2 === 0
          ? (await w.call("GET", w.member("ext-alice"))).status
          : (await viaSecond(w.member("ext-alice"))).status,
      ),
    )
    expect(results.every((s) => s === 200)).toBe(true)
    expect((await viaSecond(w.member("ext-alice"))).status).toBe(429)
    expect((await w.call("GET", w.member("ext-alice"))).status).toBe(429)
  })
})
