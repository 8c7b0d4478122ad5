import { Effect, Layer } from "effect"
import { Ids } from "../../core/ports/ids.ts"
import { Outbox } from "../../core/ports/outbox.ts"
import { Clock } from "../../core/ports/clock.ts"
import { NotFound } from "../../core/shared/errors.ts"
import { recordBookingEvents } from "./outbox.ts"
import { write } from "./unit-of-work.ts"
import { deliveriesFor, insertDeliveries, projectExists } from "./webhook-store.ts"

/** The Outbox port over outbox_events (booking events) and webhook_deliveries (visitor events). */
export const OutboxPostgres = Layer.effect(
  Outbox,
  Effect.gen(function* () {
    const ids = yield* Ids
    const clock = yield* Clock
    return Outbox.of({
      record: (source, events) =>
        events.length === 0
          ? Effect.void
          : write("Outbox.record", (tx) => recordBookingEvents(tx, ids.newId, source, events)),
      publishVisitor: (projectId, event) =>
        Effect.gen(function* () {
          const eventId = ids.newId()
          const published = yield* write("Outbox.publishVisitor", async (tx) => {
            if (!(await projectExists(tx, projectId))) return false
            const rows = await deliveriesFor(tx, { now: clock.now(), newId: ids.newId }, { eventId, projectId, ...event })
            await insertDeliveries(tx, rows)
            return true
          })
          if (!published) return yield* new NotFound({ entity: "project", id: projectId })
          return eventId
        }),
    })
  }),
)
