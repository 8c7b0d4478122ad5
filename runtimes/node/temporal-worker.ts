import { NativeConnection, Worker } from "@temporalio/worker"
import { fileURLToPath } from "node:url"
import { applyTickFor } from "../../adapters/wiring/layers/lifecycle.ts"
import { lifecyclePorts } from "../../adapters/scheduler/temporal.ts"
import { boot } from "../../adapters/wiring/boot.ts"
import { createActivities } from "../../workflows/activities.ts"

/**
 * Temporal worker for the booking lifecycle (Node only): runs the workflow code from
 * workflows/booking-lifecycle.ts and the activities over the same database as the server.
 * Start it next to a server started with KEYSPACE_SCHEDULER=temporal, with the same
 * DATABASE_URL and TEMPORAL_ADDRESS / TEMPORAL_NAMESPACE / TEMPORAL_TASK_QUEUE.
 */
const booted = await boot({ ...process.env, KEYSPACE_SEED: "none" }, { background: false })
const s = booted.services
const { address, namespace, taskQueue } = s.config.temporal
const connection = await NativeConnection.connect({ address })
const worker = await Worker.create({
  connection,
  namespace,
  taskQueue,
  // Beside this file: the .ts source under tsx, the compiled .js under dist/.
  workflowsPath: fileURLToPath(new URL(`../../workflows/booking-lifecycle.${import.meta.url.endsWith(".js") ? "js" : "ts"}`, import.meta.url)),
  activities: createActivities(lifecyclePorts(s, applyTickFor(s))),
})
s.logger.log("info", "Temporal worker started", { address, namespace, taskQueue })
for (const signal of ["SIGINT", "SIGTERM"] as const) process.once(signal, () => worker.shutdown())
await worker.run()
await connection.close()
await booted.close()
