import postgres from "postgres"
import { describe, expect, it } from "vitest"
import { SlotTaken } from "../../../core/booking/errors.ts"
import { createBooking } from "../../../core/booking/transitions.ts"
import { makeCreateBatcher } from "../../../adapters/postgres/create-batcher.ts"
import type { Db } from "../../../adapters/postgres/database.ts"
import { success } from "../../core/booking/booking-fixtures.ts"

/**
 * The group commit's own rules, against a client that answers as PostgreSQL would (the SQL
 * itself runs against a real database in test/integration/bookings/concurrency.test.ts).
 */
const START = Date.UTC(2030, 0, 7, 3)
const NOW = START - 3_600_000
let n = 0
const id = () => (++n).toString(16).padStart(24, "0")

const create = (assetId: string) => {
  const bookingId = id()
  const created = success(
    createBooking(
      { id: bookingId, projectId: "p".repeat(24), assetKind: "desk", assetId, title: "t", start: START, end: START + 900_000, organizer: { userId: "u" }, pinCode: "123456", paid: false },
      NOW,
    ),
  )
  const occurrences = [{ seriesMasterId: bookingId, occurrenceEventId: bookingId, index: 0, start: START, end: START + 900_000 }]
  return { bookingId, args: [created, occurrences, { createdByAppId: "a".repeat(24) }, undefined] as const }
}

type Answer = (statement: string, params: ReadonlyArray<unknown>) => unknown
/** The single statement's answer: its booking written, no event queued for the webhook relay. */
const WRITTEN_ALONE = [{ n: 1, wanted: false }]
/** A Drizzle database whose postgres-js client answers with `answer`, recording every statement. */
const fakeDb = (answer: Answer) => {
  const sent: Array<{ batch: boolean; assets: ReadonlyArray<string> }> = []
  const unsafe = async (statement: string, params: ReadonlyArray<unknown>) => {
    const batch = statement.includes("pg_try_advisory_xact_lock")
    sent.push({ batch, assets: batch ? (params[0] as string[]) : [params[0] as string] })
    return answer(statement, params)
  }
  return { db: { $client: { unsafe } } as unknown as Db, sent }
}
/** Every booking of the batch written, every asset locked. */
const allWritten: Answer = (statement, params) => {
  if (!statement.includes("pg_try_advisory_xact_lock")) return WRITTEN_ALONE
  const rows = JSON.parse(params[1] as string) as Array<{ id: string; assetId: string }>
  return [{ written: rows.map((r) => r.id), locked: [...new Set(rows.map((r) => r.assetId))] }]
}

describe("creates written together (group commit)", () => {
  it("a create with nothing in flight leaves at once; those arriving while it is in flight leave together in one statement", async () => {
    const { db, sent } = fakeDb(allWritten)
    const batcher = makeCreateBatcher(db, id)
    const creates = ["d1", "d2", "d3", "d4", "d5"].map(create)
    const answers = await Promise.all(creates.map((c) => batcher.insert(...c.args)))
    expect(answers.map((a) => a.row.id)).toEqual(creates.map((c) => c.bookingId))
    expect(sent).toEqual([
      { batch: true, assets: ["d1"] },
      { batch: true, assets: ["d2", "d3", "d4", "d5"] },
    ])
  })

  it("a booking the statement did not write on a locked asset is SlotTaken; its neighbours are written", async () => {
    const { db } = fakeDb((statement, params) => {
      const rows = JSON.parse(params[1] as string) as Array<{ id: string; assetId: string }>
      return [{ written: rows.filter((r) => r.assetId !== "taken").map((r) => r.id), locked: rows.map((r) => r.assetId) }]
    })
    const batcher = makeCreateBatcher(db, id)
    const results = await Promise.allSettled(["d1", "taken", "d3"].map(create).map((c) => batcher.insert(...c.args)))
    expect(results.map((r) => r.status)).toEqual(["fulfilled", "rejected", "fulfilled"])
    expect((results[1] as PromiseRejectedResult).reason).toBeInstanceOf(SlotTaken)
  })

  it("a create whose asset another transaction holds is written alone, waiting for the lock, instead of holding up its batch", async () => {
    const { db, sent } = fakeDb((statement, params) => {
      if (!statement.includes("pg_try_advisory_xact_lock")) return WRITTEN_ALONE
      const rows = JSON.parse(params[1] as string) as Array<{ id: string; assetId: string }>
      const free = rows.filter((r) => r.assetId !== "busy")
      return [{ written: free.map((r) => r.id), locked: free.map((r) => r.assetId) }]
    })
    const batcher = makeCreateBatcher(db, id)
    const results = await Promise.allSettled(["busy", "d2"].map(create).map((c) => batcher.insert(...c.args)))
    expect(results.map((r) => r.status)).toEqual(["fulfilled", "fulfilled"])
    expect(sent).toEqual([
      { batch: true, assets: ["busy"] },
      { batch: false, assets: ["busy"] },
      { batch: true, assets: ["d2"] },
    ])
  })

  it("a statement PostgreSQL refused is retried one create per statement, each answered on its own", async () => {
    const refusal = Object.assign(new postgres.PostgresError("poisoned create" as never), { severity: "ERROR", code: "P0001" })
    const { db, sent } = fakeDb((statement, params) => {
      if (statement.includes("pg_try_advisory_xact_lock")) throw refusal
      if (params[0] === "poison") throw refusal
      return WRITTEN_ALONE
    })
    const batcher = makeCreateBatcher(db, id)
    const results = await Promise.allSettled(["d1", "d2", "poison", "d4"].map(create).map((c) => batcher.insert(...c.args)))
    expect(results.map((r) => r.status)).toEqual(["fulfilled", "fulfilled", "rejected", "fulfilled"])
    expect(sent.filter((s) => !s.batch).map((s) => s.assets[0])).toEqual(["d1", "d2", "poison", "d4"])
  })

  it("a batch statement answered with no row fails its creates instead of leaving them waiting", async () => {
    const batcher = makeCreateBatcher(fakeDb((statement) => (statement.includes("pg_try_advisory_xact_lock") ? [] : WRITTEN_ALONE)).db, id)
    const results = await Promise.allSettled(["d1", "d2"].map(create).map((c) => batcher.insert(...c.args)))
    expect(results.map((r) => r.status)).toEqual(["rejected", "rejected"])
  })

  it("a lost connection fails every create of its batch and retries none (the commit's answer may be what was lost)", async () => {
    const lost = Object.assign(new Error("write EPIPE"), { code: "EPIPE" })
    const { db, sent } = fakeDb(() => {
      throw lost
    })
    const batcher = makeCreateBatcher(db, id)
    const results = await Promise.allSettled(["d1", "d2", "d3"].map(create).map((c) => batcher.insert(...c.args)))
    expect(results.map((r) => (r.status === "rejected" ? r.reason : r.status))).toEqual([lost, lost, lost])
    expect(sent.every((s) => s.batch)).toBe(true)
  })

  it("a batch whose session PostgreSQL ended: bookings stored anyway are answered written, the rest are sent again (twice at most, after a pause) and fail if those sessions end too", async () => {
    const ended = Object.assign(new postgres.PostgresError("terminating connection due to administrator command" as never), { severity: "FATAL", code: "57P01" })
    const [filler, ...creates] = ["d0", "d1", "d2", "d3"].map(create)
    const [committed, committedOnResend] = creates.map((c) => c.bookingId)
    // What a new connection finds stored after each ended session: d1 after the first, d2 too after the second, nothing more after the third.
    const stored = [new Set([committed]), new Set([committed, committedOnResend]), new Set([committed, committedOnResend])]
    let checks = 0
    const { db, sent } = fakeDb((statement, params) => {
      if (statement.startsWith("select id from bookings")) {
        const found = stored[checks++]!
        return (params[0] as string[]).filter((i) => found.has(i)).map((i) => ({ id: i }))
      }
      const rows = JSON.parse(params[1] as string) as Array<{ id: string; assetId: string }>
      if (rows[0]!.id === filler!.bookingId) return allWritten(statement, params)
      throw ended
    })
    // One statement at a time: d1-d3 wait together behind d0, and go in one batch.
    const batcher = makeCreateBatcher(db, id, 1)
    const results = await Promise.allSettled([filler!, ...creates].map((c) => batcher.insert(...c.args)))
    expect(results.map((r) => (r.status === "fulfilled" ? r.value.row.id : r.reason))).toEqual([filler!.bookingId, committed, committedOnResend, ended])
    expect(checks).toBe(3)
    expect(sent.filter((s) => s.batch).map((s) => s.assets)).toEqual([["d0"], ["d1", "d2", "d3"], ["d2", "d3"], ["d3"]])
  })

  it("a batch whose session PostgreSQL ended, when what was stored cannot be read: every create gets the session's error", async () => {
    const ended = Object.assign(new postgres.PostgresError("terminating connection due to administrator command" as never), { severity: "FATAL", code: "57P01" })
    const down = Object.assign(new Error("connect ECONNREFUSED"), { code: "ECONNREFUSED" })
    const { db } = fakeDb((statement) => {
      throw statement.startsWith("select id from bookings") ? down : ended
    })
    const batcher = makeCreateBatcher(db, id)
    const results = await Promise.allSettled(["d1", "d2"].map(create).map((c) => batcher.insert(...c.args)))
    expect(results.map((r) => (r.status === "rejected" ? r.reason : r.status))).toEqual([ended, ended])
  })
})
