import { Context, type Effect } from "effect"
import type { DeviceCommand } from "../member/device-access.ts"

/**
 * Device enrollment. Every grant or revocation is recorded inside the transaction that
 * changed the member, so a crash can never leave a revoked card open on a door. A real
 * access-control controller plugs in as another implementation (or as a worker draining the
 * outbox the default adapter writes).
 */
export class DeviceEnrollment extends Context.Service<
  DeviceEnrollment,
  {
    /** In tx. */
    readonly record: (commands: ReadonlyArray<DeviceCommand>) => Effect.Effect<void>
  }
>()("keyspace/ports/DeviceEnrollment") {}
