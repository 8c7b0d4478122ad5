import { historyFromJSON } from "@temporalio/common/lib/proto-utils"
import { bundleWorkflowCode, DefaultLogger, Runtime, Worker } from "@temporalio/worker"
import { beforeAll, describe, expect, it } from "vitest"
import { defaultMeetingConfig } from "../../core/booking/timeline.ts"
import type { LifecycleSnapshot } from "../../core/ports/lifecycle-scheduler.ts"
import { plan } from "../../workflows/booking-lifecycle.ts"
import { BOOKING_LIFECYCLE_WORKFLOW, DEFAULT_TASK_QUEUE } from "../../workflows/definitions.ts"
import { buildHistory } from "./history-builder.ts"

const workflowsPath = new URL("../../workflows/booking-lifecycle.ts", import.meta.url).pathname
const changedPath = new URL("./fixtures/changed-lifecycle.ts", import.meta.url).pathname

const T0 = Date.parse("2030-01-07T02:00:00Z")
const MIN = 60_000
const disabled = { preStartMinutes: -1, postStartWarnMinutes: -1, postStartExpireMinutes: -1, preEndMinutes: -1 }

const snapshot = (status: "active" | "done", config = disabled): LifecycleSnapshot => ({
  booking: { id: "b1", status, start: T0 + 60 * MIN, end: T0 + 120 * MIN, createdAt: T0, checkedIn: false },
  config,
  occurrenceIndex: 0,
})

/** The run of an active booking with every reminder disabled: load, sleep to the end, end it. */
const endOnlyHistory = () =>
  historyFromJSON(
    buildHistory({
      workflowType: BOOKING_LIFECYCLE_WORKFLOW,
      taskQueue: DEFAULT_TASK_QUEUE,
      input: [{ bookingId: "b1" }],
      start: T0,
      steps: [
        { kind: "activity", activity: "loadLifecycle", input: ["b1"], result: [snapshot("active")] },
        { kind: "timer", timerMs: 120 * MIN },
        {
          kind: "activity",
          activity: "applyLifecycleTick",
          input: [{ kind: "end", dueAt: T0 + 120 * MIN, bookingId: "b1", occurrenceIndex: 0 }],
          result: { _tag: "Transitioned", to: "done" },
        },
        { kind: "activity", activity: "loadLifecycle", input: ["b1"], result: [] },
      ],
    }),
  )

/**
 * An update signal half an hour into the sleep: the timer is cancelled, the booking reloaded
 * (its end moved an hour later), and the workflow sleeps until the new end.
 */
const rescheduledHistory = () => {
  const moved = snapshot("active")
  const later = { ...moved, booking: { ...moved.booking, end: T0 + 180 * MIN } }
  return historyFromJSON(
    buildHistory({
      workflowType: BOOKING_LIFECYCLE_WORKFLOW,
      taskQueue: DEFAULT_TASK_QUEUE,
      input: [{ bookingId: "b1" }],
      start: T0,
      steps: [
        { kind: "activity", activity: "loadLifecycle", input: ["b1"], result: [snapshot("active")] },
        { kind: "signal", signalName: "update", timerMs: 120 * MIN, signalAfterMs: 30 * MIN },
        { kind: "activity", activity: "loadLifecycle", input: ["b1"], result: [later] },
        { kind: "timer", timerMs: 150 * MIN },
        {
          kind: "activity",
          activity: "applyLifecycleTick",
          input: [{ kind: "end", dueAt: T0 + 180 * MIN, bookingId: "b1", occurrenceIndex: 0 }],
          result: { _tag: "Transitioned", to: "done" },
        },
        { kind: "activity", activity: "loadLifecycle", input: ["b1"], result: [] },
      ],
    }),
  )
}

describe("booking lifecycle workflow (no Temporal server)", () => {
  let bundle: Awaited<ReturnType<typeof bundleWorkflowCode>>
  beforeAll(async () => {
    // The expected determinism failure is logged by the SDK core as a warning: keep it quiet.
    Runtime.install({ logger: new DefaultLogger("ERROR"), telemetryOptions: { logging: { forward: {}, filter: { core: "ERROR", other: "ERROR" } } } })
    bundle = await bundleWorkflowCode({ workflowsPath, logger: quietLogger })
  }, 120_000)

  it("the workflow bundle builds without Node builtins or the Effect runtime", () => {
    expect(bundle.code.length).toBeGreaterThan(0)
    expect(bundle.code).toContain(BOOKING_LIFECYCLE_WORKFLOW)
    expect(bundle.code).not.toMatch(/node_modules\/effect\//)
    expect(bundle.code).not.toMatch(/require\(["']node:/)
  })

  it("a recorded run (load, sleep until the end tick, apply, reload) replays deterministically", async () => {
    await Worker.runReplayHistory({ workflowBundle: bundle, replayName: "end-only" }, endOnlyHistory(), "booking-b1")
  })

  it("an update signal during the sleep re-plans: the timer is cancelled and the new end awaited", async () => {
    await Worker.runReplayHistory({ workflowBundle: bundle, replayName: "rescheduled" }, rescheduledHistory(), "booking-b1")
  })

  it("a workflow changed incompatibly fails replay with a determinism error", async () => {
    const changed = await bundleWorkflowCode({ workflowsPath: changedPath, logger: quietLogger })
    await expect(
      Worker.runReplayHistory({ workflowBundle: changed, replayName: "changed" }, endOnlyHistory(), "booking-b1"),
    ).rejects.toThrow(/[Dd]eterminism|Nondeterminism/)
  }, 120_000)

  it("the plan is the core timeline of every live occurrence minus handled ticks, in due order", () => {
    const snap = snapshot("active", defaultMeetingConfig)
    const all = plan([snap], new Set())
    expect(all.map((t) => t.kind)).toEqual(["pre-start", "post-start-warn", "post-start-expire", "pre-end", "end"])
    const rest = plan([snap], new Set([`0:pre-start@${T0 + 45 * MIN}`]))
    expect(rest[0]!.kind).toBe("post-start-warn")
    expect(plan([snapshot("done")], new Set())).toEqual([])
  })
})

const quietLogger = {
  log: () => {},
  trace: () => {},
  debug: () => {},
  info: () => {},
  warn: () => {},
  error: () => {},
}
