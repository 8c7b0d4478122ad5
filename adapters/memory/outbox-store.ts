import { Effect, Layer } from "effect"
import type { BookingDomainEvent } from "../../core/events/domain-events.ts"
import { Ids } from "../../core/ports/ids.ts"
import { Outbox, type BookingEventSource, type VisitorEventToPublish } from "../../core/ports/outbox.ts"
import { MemoryDb, requireTx } from "./memory-db.ts"

/** One recorded event of the memory profile (nothing relays it: no webhooks in memory). */
export type MemoryOutboxEntry =
  | { readonly _tag: "Booking"; readonly id: string; readonly source: BookingEventSource; readonly event: BookingDomainEvent }
  | { readonly _tag: "Visitor"; readonly id: string; readonly projectId: string; readonly event: VisitorEventToPublish }

/**
 * Outbox on the memory tables. The memory profile has no tenancy tables of its own to check a
 * project against and no webhook registrations, so a visitor event is only recorded.
 */
export const OutboxMemory = Layer.effect(
  Outbox,
  Effect.gen(function* () {
    const db = yield* MemoryDb
    const ids = yield* Ids
    const outbox = db.table<ReadonlyArray<MemoryOutboxEntry>>("outbox_events", () => [])
    return Outbox.of({
      record: (source, events) =>
        requireTx("Outbox.record").pipe(
          Effect.map(() =>
            outbox.update((all) => [
              ...all,
              ...events.map((event): MemoryOutboxEntry => ({ _tag: "Booking", id: ids.newId(), source, event })),
            ]),
          ),
        ),
      publishVisitor: (projectId, event) =>
        requireTx("Outbox.publishVisitor").pipe(
          Effect.map(() => {
            const id = ids.newId()
            outbox.update((all) => [...all, { _tag: "Visitor", id, projectId, event }])
            return id
          }),
        ),
    })
  }),
)
