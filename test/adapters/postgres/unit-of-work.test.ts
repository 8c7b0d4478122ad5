import { sql } from "drizzle-orm"
import { Cause, Effect, Exit, Layer, ManagedRuntime, Schema } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { UnitOfWork } from "../../../core/ports/unit-of-work.ts"
import { openDatabase, type Database } from "../../../adapters/postgres/database.ts"
import { read, SqlDatabase, UnitOfWorkPostgres, write } from "../../../adapters/postgres/unit-of-work.ts"
import { ENGINES, freshPostgresDatabase } from "../../support/databases.ts"

class Refused extends Schema.TaggedError<Refused>()("Refused", {}) {}

describe.each(ENGINES)("UnitOfWork on %s", (engine) => {
  let database: Database
  let drop: (() => Promise<void>) | undefined
  let runtime: ManagedRuntime.ManagedRuntime<UnitOfWork | SqlDatabase, never>

  beforeAll(async () => {
    const pg = engine === "postgres" ? await freshPostgresDatabase() : undefined
    drop = pg?.drop
    database = await openDatabase(pg ? { databaseUrl: pg.url } : { dataDir: "memory" })
    await database.db.execute(sql`create table uow_probe (id text primary key)`)
    const sqlDatabase = Layer.succeed(SqlDatabase, database)
    runtime = ManagedRuntime.make(UnitOfWorkPostgres.pipe(Layer.provideMerge(sqlDatabase)))
  })
  afterAll(async () => {
    await runtime.dispose()
    await database.close()
    await drop?.()
  })

  const insert = (id: string) => write("probe.insert", (tx) => tx.execute(sql`insert into uow_probe values (${id})`))
  const exists = (id: string) =>
    read((q) => q.execute(sql`select 1 from uow_probe where id = ${id}`)).pipe(
      Effect.map((r) => (Array.isArray(r) ? r : (r as { rows: unknown[] }).rows).length > 0),
    )
  const transaction = <A, E, R>(self: Effect.Effect<A, E, R>) => UnitOfWork.use((u) => u.transaction(self))

  it("commits what the unit of work wrote", async () => {
    await runtime.runPromise(transaction(insert("committed")))
    expect(await runtime.runPromise(exists("committed"))).toBe(true)
  })

  it("rolls back on a typed failure and hands the failure on", async () => {
    const exit = await runtime.runPromiseExit(transaction(Effect.andThen(insert("failed"), Effect.fail(new Refused()))))
    expect(Exit.isFailure(exit) && Cause.findErrorOption(exit.cause)).toMatchObject({ _tag: "Some", value: { _tag: "Refused" } })
    expect(await runtime.runPromise(exists("failed"))).toBe(false)
  })

  it("rolls back on a defect", async () => {
    const exit = await runtime.runPromiseExit(transaction(Effect.andThen(insert("died"), Effect.die(new Error("boom")))))
    expect(Exit.isFailure(exit) && Cause.hasDies(exit.cause)).toBe(true)
    expect(await runtime.runPromise(exists("died"))).toBe(false)
  })

  it("a nested unit of work joins the enclosing one (rolled back together)", async () => {
    const exit = await runtime.runPromiseExit(
      transaction(Effect.andThen(transaction(insert("inner")), Effect.fail(new Refused()))),
    )
    expect(Exit.isFailure(exit)).toBe(true)
    expect(await runtime.runPromise(exists("inner"))).toBe(false)
  })

  it("a write that must be atomic dies outside a unit of work", async () => {
    const exit = await runtime.runPromiseExit(insert("outside"))
    expect(Exit.isFailure(exit) && Cause.pretty(exit.cause)).toContain("probe.insert outside a transaction")
    expect(await runtime.runPromise(exists("outside"))).toBe(false)
  })
})
