import { Context, type Effect } from "effect"

/**
 * Applies every booking tick due up to `now`, in due order, before it returns (the manual
 * clock's advance). Provided by the scheduler worker; a no-op when no worker runs here.
 */
export class SchedulerDrain extends Context.Service<
  SchedulerDrain,
  { readonly drainUntil: (now: number) => Effect.Effect<void> }
>()("keyspace/ports/SchedulerDrain") {}
