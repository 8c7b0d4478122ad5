import { Context, Effect, Exit, Layer, Semaphore } from "effect"
import { UnitOfWork } from "../../core/ports/unit-of-work.ts"

/**
 * The memory profile's storage: named tables, each one immutable value replaced on write
 * (never mutated in place), so a unit of work is a snapshot of the table map restored on any
 * failure. Good for the model-based tests of the use cases and for trying the core without a
 * database; not for several processes.
 */
export interface MemoryTable<T> {
  readonly get: () => T
  readonly set: (next: T) => void
  readonly update: (f: (current: T) => T) => void
}

export interface MemoryDbShape {
  /** The table called `name`, created with `init()` on first use. */
  readonly table: <T>(name: string, init: () => T) => MemoryTable<T>
  readonly snapshot: () => ReadonlyMap<string, unknown>
  readonly restore: (snapshot: ReadonlyMap<string, unknown>) => void
}

export class MemoryDb extends Context.Service<MemoryDb, MemoryDbShape>()("keyspace/memory/MemoryDb") {
  static readonly layer = Layer.sync(MemoryDb, () => {
    let tables = new Map<string, unknown>()
    return MemoryDb.of({
      table: <T>(name: string, init: () => T): MemoryTable<T> => {
        if (!tables.has(name)) tables.set(name, init())
        return {
          get: () => tables.get(name) as T,
          set: (next) => void tables.set(name, next),
          update: (f) => void tables.set(name, f(tables.get(name) as T)),
        }
      },
      snapshot: () => new Map(tables),
      restore: (snapshot) => {
        tables = new Map(snapshot)
      },
    })
  })
}

/** Whether the current fiber is inside a memory unit of work (nested calls join it). */
export const InMemoryTx = Context.Reference<boolean>("keyspace/memory/InMemoryTx", { defaultValue: () => false })

/** Dies when called outside a unit of work, as the PostgreSQL stores do. */
export const requireTx = (name: string): Effect.Effect<void> =>
  Effect.gen(function* () {
    if (!(yield* InMemoryTx)) return yield* Effect.die(new Error(`${name} outside a transaction`))
  })

const locks = new WeakMap<MemoryDbShape, Semaphore.Semaphore>()

/**
 * Runs `self` as one unit of work of `db` (joins an enclosing one): units of work of one
 * database run one at a time (one lock per database, shared by UnitOfWorkMemory and stores
 * whose writes are atomic on their own); a failure or defect restores the tables as they were.
 */
export const memoryTransaction = <A, E, R>(db: MemoryDbShape, self: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  Effect.gen(function* () {
    if (yield* InMemoryTx) return yield* self
    let lock = locks.get(db)
    if (lock === undefined) {
      lock = Semaphore.makeUnsafe(1)
      locks.set(db, lock)
    }
    return yield* lock.withPermits(1)(
      Effect.gen(function* () {
        const before = db.snapshot()
        const exit = yield* Effect.exit(Effect.provideService(self, InMemoryTx, true))
        if (Exit.isFailure(exit)) db.restore(before)
        return yield* exit
      }),
    )
  })

/** Units of work run one at a time; a failure or defect restores the tables as they were. */
export const UnitOfWorkMemory = Layer.effect(
  UnitOfWork,
  Effect.gen(function* () {
    const db = yield* MemoryDb
    return UnitOfWork.of({
      transaction: <A, E, R>(self: Effect.Effect<A, E, R>) => memoryTransaction(db, self),
    })
  }),
)
