import { Cause, Effect, Exit, Layer, ManagedRuntime, Schema } from "effect"
import { afterAll, describe, expect, it } from "vitest"
import { UnitOfWork } from "../../../core/ports/unit-of-work.ts"
import { MemoryDb, requireTx, UnitOfWorkMemory } from "../../../adapters/memory/memory-db.ts"

class Refused extends Schema.TaggedError<Refused>()("Refused", {}) {}

describe("UnitOfWork in memory", () => {
  const runtime = ManagedRuntime.make(UnitOfWorkMemory.pipe(Layer.provideMerge(MemoryDb.layer)))
  afterAll(() => runtime.dispose())

  const rows = MemoryDb.useSync((db) => db.table<ReadonlyArray<string>>("probe", () => []))
  const insert = (id: string) =>
    Effect.andThen(requireTx("probe.insert"), Effect.map(rows, (t) => t.update((all) => [...all, id])))
  const has = (id: string) => Effect.map(rows, (t) => t.get().includes(id))
  const transaction = <A, E, R>(self: Effect.Effect<A, E, R>) => UnitOfWork.use((u) => u.transaction(self))

  it("commits what the unit of work wrote", async () => {
    await runtime.runPromise(transaction(insert("committed")))
    expect(await runtime.runPromise(has("committed"))).toBe(true)
  })

  it("restores the tables on a typed failure and on a defect", async () => {
    const failed = await runtime.runPromiseExit(transaction(Effect.andThen(insert("failed"), Effect.fail(new Refused()))))
    const died = await runtime.runPromiseExit(transaction(Effect.andThen(insert("died"), Effect.die("boom"))))
    expect(Exit.isFailure(failed) && Cause.findErrorOption(failed.cause)).toMatchObject({ value: { _tag: "Refused" } })
    expect(Exit.isFailure(died)).toBe(true)
    expect(await runtime.runPromise(has("failed"))).toBe(false)
    expect(await runtime.runPromise(has("died"))).toBe(false)
  })

  it("a nested unit of work joins the enclosing one", async () => {
    const exit = await runtime.runPromiseExit(transaction(Effect.andThen(transaction(insert("inner")), Effect.fail(new Refused()))))
    expect(Exit.isFailure(exit)).toBe(true)
    expect(await runtime.runPromise(has("inner"))).toBe(false)
  })

  it("a write that must be atomic dies outside a unit of work", async () => {
    const exit = await runtime.runPromiseExit(insert("outside"))
    expect(Exit.isFailure(exit) && Cause.pretty(exit.cause)).toContain("probe.insert outside a transaction")
  })
})
