import { Cause, Effect, Exit } from "effect"
import { describe, expect, it } from "vitest"
import { IdentityKeyTaken, WriteConflict } from "../../../core/member/errors.ts"
import { memberTransaction } from "../../../core/member/member-transaction.ts"
import { UnitOfWork } from "../../../core/ports/unit-of-work.ts"
import { NotFound } from "../../../core/shared/errors.ts"

/** A unit of work that only counts its transactions. */
const counting = () => {
  let transactions = 0
  const uow = UnitOfWork.of({ transaction: (self) => Effect.suspend(() => (transactions++, self)) })
  return { inTx: memberTransaction(uow), count: () => transactions }
}

/** Fails with the given races in turn, then succeeds. */
const racing = (races: ReadonlyArray<IdentityKeyTaken | WriteConflict | NotFound>) => {
  let attempt = 0
  return Effect.suspend(() => {
    const race = races[attempt++]
    return race === undefined ? Effect.succeed("done") : Effect.fail(race)
  })
}

describe("member transaction: races the locks do not cover are retried, then answered", () => {
  it("a race lost once is retried in a new transaction and succeeds", async () => {
    const { inTx, count } = counting()
    const out = await Effect.runPromise(inTx(racing([new WriteConflict({ kind: "serialization" })])))
    expect(out).toBe("done")
    expect(count()).toBe(2)
  })

  it("an identity key still taken after two retries is IdentityConflict on that key", async () => {
    const { inTx, count } = counting()
    const taken = new IdentityKeyTaken({ conflictKey: "email" })
    const exit = await Effect.runPromiseExit(inTx(racing([taken, taken, taken])))
    expect(count()).toBe(3)
    expect(exit).toMatchObject(Exit.fail({ _tag: "IdentityConflict", conflictKey: "email" }))
  })

  it("another unique index still raced after two retries is StateConflict", async () => {
    const { inTx } = counting()
    const unique = new WriteConflict({ kind: "unique" })
    const exit = await Effect.runPromiseExit(inTx(racing([unique, unique, unique])))
    expect(Exit.isFailure(exit) && Cause.findErrorOption(exit.cause)).toMatchObject({ value: { _tag: "StateConflict" } })
  })

  it("a lasting serialization failure or deadlock is a defect (500), not a typed answer", async () => {
    const { inTx } = counting()
    const deadlock = new WriteConflict({ kind: "serialization" })
    const exit = await Effect.runPromiseExit(inTx(racing([deadlock, deadlock, deadlock])))
    expect(Exit.isFailure(exit) && Cause.hasDies(exit.cause)).toBe(true)
  })

  it("a domain failure is not retried and passes through", async () => {
    const { inTx, count } = counting()
    const exit = await Effect.runPromiseExit(inTx(racing([new NotFound({ entity: "unit", id: "u" })])))
    expect(count()).toBe(1)
    expect(Exit.isFailure(exit) && Cause.findErrorOption(exit.cause)).toMatchObject({ value: { _tag: "NotFound" } })
  })
})
