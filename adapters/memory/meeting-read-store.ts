import { Effect, Layer, Option } from "effect"
import { MeetingReadStore, type MeetingListRow, type MeetingWithRecords } from "../../core/ports/meeting-read-store.ts"
import { MemoryDb } from "./memory-db.ts"

/**
 * What the memory booking store keeps per booking for the read side: the booking with its
 * slots, histories and payments (an immutable value replaced on every write).
 */
export const MEETINGS_TABLE = "meetings"
export type MeetingsTable = ReadonlyMap<string, MeetingWithRecords>

/** The memory profile's meeting reads: linear scans (model tests hold a handful of bookings). */
export const MeetingReadStoreMemory = Layer.effect(
  MeetingReadStore,
  Effect.gen(function* () {
    const db = yield* MemoryDb
    const meetings = db.table<MeetingsTable>(MEETINGS_TABLE, () => new Map())
    return MeetingReadStore.of({
      get: (id) => Effect.sync(() => Option.fromNullishOr(meetings.get().get(id))),
      list: (f) =>
        Effect.sync(() => {
          const lower = (xs: ReadonlyArray<string> | undefined) => xs?.map((x) => x.toLowerCase())
          const organizerEmails = lower(f.organizerEmails)
          const attendeeEmails = lower(f.attendeeEmails)
          const rows: MeetingListRow[] = []
          for (const m of meetings.get().values()) {
            const b = m.stored.row
            if (!f.projectIds.includes(b.projectId)) continue
            if (f.roomIds !== undefined || f.deskIds !== undefined) {
              const ids = b.assetKind === "room" ? f.roomIds : f.deskIds
              if (!(ids ?? []).includes(b.assetId)) continue
            }
            if (f.organizerId !== undefined && b.organizerUserId !== f.organizerId) continue
            if (organizerEmails?.length && !organizerEmails.includes((b.organizer.email ?? "").toLowerCase())) continue
            if (attendeeEmails?.length && !b.attendees.some((a) => attendeeEmails.includes(a.email.toLowerCase()))) continue
            if (f.assetType !== undefined && b.assetKind !== f.assetType) continue
            for (const slot of m.stored.slots) {
              if (!(slot.startAt.getTime() < f.to && slot.endAt.getTime() > f.from)) continue
              if (f.statuses?.length && !f.statuses.includes(slot.status)) continue
              rows.push({ booking: b, slot, histories: m.histories, payments: m.payments })
            }
          }
          rows.sort(
            (x, y) =>
              x.slot.startAt.getTime() - y.slot.startAt.getTime() ||
              (x.booking.id < y.booking.id ? -1 : x.booking.id > y.booking.id ? 1 : 0),
          )
          return { rows: rows.slice(f.offset, f.offset + f.limit), total: rows.length }
        }),
    })
  }),
)
