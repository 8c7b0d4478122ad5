import { Effect } from "effect"
import { beforeAll, describe, expect, it } from "vitest"
import { Tokens } from "../../../core/auth/tokens.ts"
import { roomRef } from "../../../core/booking/asset.ts"
import { AssetStore } from "../../../core/ports/asset-store.ts"
import { PartnerMembers } from "../../../core/member/members.ts"
import type { ClockShape } from "../../../core/ports/clock.ts"
import type { Manifest } from "../../../core/tenancy/manifest.ts"
import { Tenancy } from "../../../core/tenancy/tenancy.ts"
import { parseConfig } from "../../../adapters/config/config.ts"
import { openDatabase, type Database } from "../../../adapters/postgres/database.ts"
import { makeAppRuntime, type AppRuntime } from "../../../adapters/wiring/app-layer.ts"

/**
 * The member, token and tenancy use cases (and the assets a manifest provisions) run the same commands on the memory profile and on
 * PGlite, with the same outcomes: the memory stores do not drift from the PostgreSQL ones.
 */
const manifest: Manifest = {
  projects: [
    {
      key: "hq",
      name: "HQ",
      timezone: "Asia/Bangkok",
      zones: [{ key: "a", name: "A", floors: [{ key: "a-1", name: "A1" }] }],
      rooms: [{ key: "r1", name: "Lotus", zone: "a", floor: "a-1", capacity: 6, chargeRate: { perHour: 100, perDay: 500 } }],
      accessGroups: [{ key: "lobby", name: "Lobby" }],
      users: [{ key: "alice", firstName: "Alice", lastName: "Ng", email: "alice@hq.example", links: [{ app: "p", externalUserId: "ext-alice" }] }],
    },
  ],
  apps: [{ key: "p", appId: "p-app", appSecret: "p-secret-123", projects: ["hq"], partnerAccessGroups: ["lobby"], canActAs: true }],
}

const start = Date.parse("2030-01-07T02:00:00.000Z")

const bootProfile = async (profile: "memory" | "postgres") => {
  const clock: ClockShape & { at: number } = { at: start, now: () => clock.at, mode: "manual" }
  let n = 0
  const newId = () => (0x6500000000000000000000n + BigInt(++n)).toString(16).padStart(24, "0")
  const database: Database | undefined = profile === "postgres" ? await openDatabase({ dataDir: "memory" }) : undefined
  const runtime: AppRuntime = makeAppRuntime({
    config: parseConfig({ KEYSPACE_DATA_DIR: "memory", KEYSPACE_CLOCK: "manual", KEYSPACE_PARTNER_RATE_LIMIT: "2" }),
    clock,
    newId,
    storage: database ? { profile: "postgres", database } : { profile: "memory" },
  })
  type Services = {
    tokens: Tokens["Service"]
    members: PartnerMembers["Service"]
    tenancy: Tenancy["Service"]
    assets: AssetStore["Service"]
  }
  const run = <A, E>(f: (s: Services) => Effect.Effect<A, E>) =>
    runtime.runPromise(
      Effect.gen(function* () {
        return yield* f({ tokens: yield* Tokens, members: yield* PartnerMembers, tenancy: yield* Tenancy, assets: yield* AssetStore })
      }).pipe(Effect.result),
    )
  return {
    clock,
    run,
    close: async () => {
      await runtime.dispose()
      await database?.close()
    },
  }
}

/** One scenario; each step's outcome as a value (failure tag or a success summary). */
const scenario = async (p: Awaited<ReturnType<typeof bootProfile>>) => {
  const out: Record<string, unknown> = {}
  const tag = (r: { _tag: string; failure?: { _tag: string } }) => (r._tag === "Failure" ? r.failure!._tag : "Success")
  const ids = await p.run(({ tenancy }) => tenancy.applyManifest(manifest))
  if (ids._tag !== "Success") throw new Error("manifest failed")
  const projectId = ids.success.projects.hq!.id
  const room = await p.run(({ assets }) => assets.find(roomRef(ids.success.projects.hq!.rooms.r1!)))
  out.room = room._tag === "Success" ? { name: room.success.name, tz: room.success.timeZone, rate: room.success.chargeRate } : room.failure._tag
  out.badManifest = tag(await p.run(({ tenancy }) => tenancy.applyManifest({ apps: [{ key: "x", appId: "x", appSecret: "x-secret-123", projects: ["nope"] }] })))
  out.badSecret = tag(await p.run(({ tokens }) => tokens.issueForApp("p-app", "wrong")))
  const pair = await p.run(({ tokens }) => tokens.issueForApp("p-app", "p-secret-123"))
  if (pair._tag !== "Success") throw new Error("token failed")
  const principal = await p.run(({ tokens }) => tokens.authenticate(`Bearer ${pair.success.access_token}`))
  out.principal = principal._tag === "Success" ? { grant: principal.success.grant, projects: principal.success.projectIds.length } : principal._tag
  const refreshed = await p.run(({ tokens }) => tokens.refresh(pair.success.refresh_token!))
  out.refreshed = tag(refreshed)
  out.refreshedTwice = tag(await p.run(({ tokens }) => tokens.refresh(pair.success.refresh_token!)))
  const scope = { appId: principal._tag === "Success" ? principal.success.appId : "", projectId }
  const created = await p.run(({ members }) => members.upsert(scope, "ext-bob", { firstName: "Bob", lastName: "Ok", email: "bob@hq.example" }))
  out.created = created._tag === "Success" ? { created: created.success.created, matchedBy: created.success.matchedBy, groups: created.success.accessGroupIds.length } : created.failure._tag
  const matched = await p.run(({ members }) => members.upsert(scope, "ext-alice", { firstName: "Alice", lastName: "Ng" }))
  out.matched = matched._tag === "Success" ? matched.success.matchedBy : matched.failure._tag
  out.conflict = tag(await p.run(({ members }) => members.upsert(scope, "ext-carol", { firstName: "C", lastName: "", email: "BOB@hq.example" })))
  const cards = await p.run(({ members }) => members.setCredentials(scope, "ext-bob", { cards: [{ cardNo: "1234" }] }))
  out.cards = cards._tag === "Success" ? cards.success.cards.length : cards.failure._tag
  const detail = await p.run(({ members }) => members.get(scope, "ext-bob"))
  out.detail = detail._tag === "Success" ? { status: detail.success.status, cards: detail.success.credentials.cards.length } : detail.failure._tag
  const delegated = await p.run(({ tokens }) => tokens.actAs({ appId: "p-app", appSecret: "p-secret-123", subject: "ext-bob", subjectType: "external_user_id" }))
  out.offboard = tag(await p.run(({ members }) => members.offboard(scope, "ext-bob")))
  out.afterOffboard = tag(await p.run(({ members }) => members.setCredentials(scope, "ext-bob", { cards: [] })))
  out.delegatedRevoked =
    delegated._tag === "Success" ? tag(await p.run(({ tokens }) => tokens.authenticate(`Bearer ${delegated.success.access_token}`))) : delegated.failure._tag
  out.unknown = tag(await p.run(({ members }) => members.get(scope, "ext-nobody")))
  out.budget = [
    tag(await p.run(({ members }) => members.admit(scope.appId))),
    tag(await p.run(({ members }) => members.admit(scope.appId))),
    tag(await p.run(({ members }) => members.admit(scope.appId))),
  ]
  p.clock.at += 2 * 3600_000
  out.expired = tag(await p.run(({ tokens }) => tokens.authenticate(`Bearer ${pair.success.access_token}`)))
  const seeded = await p.run(({ tenancy }) => tenancy.seedDemo())
  out.seedOnUsedDatabase = seeded._tag === "Success" ? seeded.success.seeded : seeded.failure
  return out
}

describe("member, token and tenancy use cases on both storage profiles", () => {
  const results: Partial<Record<"memory" | "postgres", Record<string, unknown>>> = {}
  beforeAll(async () => {
    for (const profile of ["memory", "postgres"] as const) {
      const p = await bootProfile(profile)
      try {
        results[profile] = await scenario(p)
      } finally {
        await p.close()
      }
    }
  }, 60_000)
  it("the memory profile answers every command as PostgreSQL does", () => {
    expect(results.memory).toEqual(results.postgres)
  })

  it("the outcomes are the spec's", () => {
    expect(results.postgres).toEqual({
      room: { name: "Lotus", tz: "Asia/Bangkok", rate: { perHour: 100, perDay: 500 } },
      badManifest: "ValidationFailed",
      badSecret: "Unauthenticated",
      principal: { grant: "app_credentials", projects: 1 },
      refreshed: "Success",
      refreshedTwice: "Unauthenticated",
      created: { created: true, matchedBy: "provisioned", groups: 1 },
      matched: "link",
      conflict: "IdentityConflict",
      cards: 1,
      detail: { status: "active", cards: 1 },
      offboard: "Success",
      afterOffboard: "MemberOffboarded",
      delegatedRevoked: "Unauthenticated",
      unknown: "SubjectNotAuthorized",
      budget: ["Success", "Success", "RateLimited"],
      expired: "Unauthenticated",
      seedOnUsedDatabase: false,
    })
  })
})
