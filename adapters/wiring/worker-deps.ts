import { Context } from "effect"
import type { SchedulerDeps } from "../scheduler/scheduler-deps.ts"
import type { WebhookDeps } from "../webhooks/webhook-deps.ts"

/** What the worker loops (scheduler, webhook relay and dispatcher, retention) are given. */
export type WorkerDeps = SchedulerDeps & WebhookDeps

/**
 * The worker loops' dependencies as a service of the graph. They include the legacy metric
 * recorders and the runtime itself, which exist only once the runtime is built, so boot hands
 * them over right after the build (the worker layers wait for it).
 */
export class WorkerDepsService extends Context.Service<WorkerDepsService, Promise<WorkerDeps>>()(
  "keyspace/wiring/WorkerDeps",
) {}
