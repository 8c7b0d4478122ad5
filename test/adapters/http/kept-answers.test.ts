import { Effect, Layer, ManagedRuntime } from "effect"
import { Hono } from "hono"
import { afterAll, describe, expect, it } from "vitest"
import type { AppEnv } from "../../../adapters/http/app-env.ts"
import type { HttpDeps } from "../../../adapters/http/http-deps.ts"
import { keptAnswers } from "../../../adapters/http/kept-answers.ts"
import { makeLogger } from "../../../adapters/observability/logger.ts"
import { makeEpochCaches } from "../../../adapters/postgres/cache-epoch.ts"
import type { Principal } from "../../../core/auth/principal.ts"
import { SnapshotMemos } from "../../../core/ports/read-freshness.ts"
import { Forbidden } from "../../../core/shared/errors.ts"

const app1: Principal = { appId: "a1", appKey: "k1", grant: "app_credentials", projectIds: ["p"] }
const member: Principal = { ...app1, grant: "act_as", subjectUserId: "u1" }

/** A listing route over keptAnswers, with the database snapshot and the clock in the test's hands. */
const world = (bySecond: boolean) => {
  const state = { snapshot: "1:1:", now: Date.UTC(2030, 0, 7, 2, 0, 0, 100), runs: 0, fail: false, tick: 0 }
  const caches = makeEpochCaches(async () => ({ epoch: 1n, snapshot: state.snapshot }))
  const runtime = ManagedRuntime.make(Layer.succeed(SnapshotMemos, SnapshotMemos.of({ named: caches.bySnapshot })))
  const deps = { runtime, clock: { now: () => state.now, mode: "manual" }, logger: makeLogger("silent") } as unknown as HttpDeps
  const answers = keptAnswers(deps, "test-answers", { bySecond })
  const encoder = new TextEncoder()
  const routes = new Hono<AppEnv>().get("/l", (c) => {
    c.set("principal", c.req.header("x-member") ? member : app1)
    const listing = Effect.sync(() => {
      state.runs++
      state.now += state.tick
      return state.runs
    }).pipe(Effect.flatMap((n) => (state.fail ? Effect.fail(new Forbidden({ reason: "no" })) : Effect.succeed(n))))
    return answers(c, listing, (n) => encoder.encode(`{"run":${n}}`))
  })
  const get = async (query = "", headers: Record<string, string> = {}) => {
    const res = await routes.request(`/l${query}`, { headers })
    return { status: res.status, body: (await res.json()) as { run?: number; code?: string } }
  }
  return { state, runtime, get }
}

describe("whole listing answers kept by database snapshot (keptAnswers)", () => {
  const worlds: Array<ReturnType<typeof world>> = []
  const make = (bySecond: boolean) => {
    const w = world(bySecond)
    worlds.push(w)
    return w
  }
  afterAll(async () => {
    for (const w of worlds) await w.runtime.dispose()
  })

  it("a repeat while the snapshot holds is the kept answer; another caller, URL or snapshot runs the use case", async () => {
    const { state, get } = make(false)
    expect((await get()).body.run).toBe(1)
    expect((await get()).body.run).toBe(1)
    // Another caller of the same app (pin codes differ), another query: their own answers.
    expect((await get("", { "x-member": "1" })).body.run).toBe(2)
    expect((await get("?x=1")).body.run).toBe(3)
    expect((await get()).body.run).toBe(1)
    // Something committed anywhere: the next request reads again.
    state.snapshot = "1:2:"
    expect((await get()).body.run).toBe(4)
    expect((await get()).body.run).toBe(4)
  })

  it("a failure is answered from the error table and never kept", async () => {
    const { state, get } = make(false)
    state.fail = true
    expect(await get()).toMatchObject({ status: 403 })
    expect(await get()).toMatchObject({ status: 403 })
    expect(state.runs).toBe(2)
    state.fail = false
    expect((await get()).body.run).toBe(3)
  })

  it("bySecond: an answer holds for the clock's second it was computed in; a run that crossed a second is not kept", async () => {
    const { state, get } = make(true)
    expect((await get()).body.run).toBe(1)
    state.now += 800
    expect((await get()).body.run).toBe(1)
    state.now += 200 // the next second
    expect((await get()).body.run).toBe(2)
    // The use case's own reading of the clock lands in a later second than the key's.
    state.now += 1000
    state.tick = 1000
    expect((await get()).body.run).toBe(3)
    state.tick = 0
    state.now -= 1000
    expect((await get()).body.run).toBe(4)
    expect((await get()).body.run).toBe(4)
  })
})
