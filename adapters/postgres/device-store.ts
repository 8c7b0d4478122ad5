import { asc, eq } from "drizzle-orm"
import { Effect, Layer } from "effect"
import { Clock } from "../../core/ports/clock.ts"
import { DeviceEnrollment } from "../../core/ports/device-enrollment.ts"
import { Ids } from "../../core/ports/ids.ts"
import type { Queryable } from "./database.ts"
import { deviceCommandsTable } from "./schema.ts"
import { write } from "./unit-of-work.ts"

/** Default device enrollment: the device_commands outbox, in `seq` order. */
export const DeviceEnrollmentPostgres = Layer.effect(
  DeviceEnrollment,
  Effect.gen(function* () {
    const clock = yield* Clock
    const ids = yield* Ids
    return DeviceEnrollment.of({
      record: (commands) =>
        commands.length === 0
          ? Effect.void
          : write("DeviceEnrollment.record", async (tx) => {
              const now = new Date(clock.now())
              await tx.insert(deviceCommandsTable).values(
                commands.map((c) => ({
                  id: ids.newId(),
                  projectId: c.projectId,
                  userId: c.userId,
                  accessGroupId: c.accessGroupId,
                  action: c.action,
                  credentialKind: c.credential.kind,
                  credentialId: c.credential.id,
                  cardUid: c.credential.kind === "card" ? c.credential.uid : null,
                  createdAt: now,
                })),
              )
            }),
    })
  }),
)

/** The recorded commands of one member, oldest first (operators and tests read the outbox). */
export const deviceCommandsOf = (q: Queryable, userId: string) =>
  q.select().from(deviceCommandsTable).where(eq(deviceCommandsTable.userId, userId)).orderBy(asc(deviceCommandsTable.seq))
