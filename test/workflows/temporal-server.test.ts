import { Client, Connection } from "@temporalio/client"
import { NativeConnection, Worker } from "@temporalio/worker"
import { fileURLToPath } from "node:url"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { applyTickFor } from "../../adapters/wiring/layers/lifecycle.ts"
import { lifecyclePorts } from "../../adapters/scheduler/temporal.ts"
import { createActivities } from "../../workflows/activities.ts"
import { lifecycleWorkflowId } from "../../workflows/definitions.ts"
import { startHarness, type Harness } from "../support/harness.ts"
import { setUpSchedulerWorld, statusOf, type SchedulerWorld } from "../integration/scheduler/scheduler-fixtures.ts"

/**
 * Against a real Temporal server: runs only when TEMPORAL_ADDRESS is set (no server exists on
 * our machines; see README "Running the lifecycle on Temporal"), e.g.
 *   temporal server start-dev &  TEMPORAL_ADDRESS=localhost:7233 npx vitest run test/workflows
 * The service runs with KEYSPACE_SCHEDULER=temporal on the system clock, the worker in this
 * process on a task queue of its own; a paid booking's one-minute payment window lapses.
 */
const address = process.env.TEMPORAL_ADDRESS
const namespace = process.env.TEMPORAL_NAMESPACE ?? "default"

describe.skipIf(!address)("booking lifecycle on a Temporal server", () => {
  const taskQueue = `keyspace-test-${Date.now().toString(36)}`
  let h: Harness
  let w: SchedulerWorld
  let worker: Worker
  let running: Promise<void>
  let connection: NativeConnection
  beforeAll(async () => {
    h = await startHarness("postgres", {
      KEYSPACE_CLOCK: "system",
      KEYSPACE_SCHEDULER: "temporal",
      TEMPORAL_ADDRESS: address!,
      TEMPORAL_NAMESPACE: namespace,
      TEMPORAL_TASK_QUEUE: taskQueue,
      KEYSPACE_PAYMENT_WINDOW: "60",
    })
    w = await setUpSchedulerWorld(h)
    const s = h.booted.services
    connection = await NativeConnection.connect({ address: address! })
    worker = await Worker.create({
      connection,
      namespace,
      taskQueue,
      workflowsPath: fileURLToPath(new URL("../../workflows/booking-lifecycle.ts", import.meta.url)),
      activities: createActivities(lifecyclePorts(s, applyTickFor(s))),
    })
    running = worker.run()
  }, 120_000)
  afterAll(async () => {
    worker?.shutdown()
    await running
    await connection?.close()
    await h?.close()
  })

  it("an unpaid booking is cancelled by its workflow when the payment window lapses", async () => {
    const start = new Date(Math.ceil((Date.now() + 2 * 3600_000) / 60_000) * 60_000)
    const res = await h.request("POST", "/meetings", {
      token: await w.token(),
      body: {
        meetingRoomId: w.ids.rooms.paid,
        title: "Temporal",
        startDateTime: start.toISOString(),
        endDateTime: new Date(start.getTime() + 3600_000).toISOString(),
      },
    })
    expect(res.status).toBe(201)
    const id = res.body.data._id as string
    expect(res.body.data.status).toBe("unpaid")

    const client = new Client({ connection: await Connection.connect({ address: address! }), namespace })
    const described = await client.workflow.getHandle(lifecycleWorkflowId(id)).describe()
    expect(described.taskQueue).toBe(taskQueue)

    let status = "unpaid"
    for (let i = 0; i < 120 && status === "unpaid"; i++) {
      await new Promise((r) => setTimeout(r, 1000))
      status = await statusOf(h, w, id)
    }
    expect(status).toBe("cancelled")
    await client.connection.close()
  }, 180_000)
})
