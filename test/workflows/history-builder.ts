/**
 * Builds a Temporal history (the JSON shape `tctl`/the UI export) by hand, so the workflow can
 * be replayed with Worker.runReplayHistory without a Temporal server.
 */

const b64 = (text: string): string => Buffer.from(text, "utf8").toString("base64")

export const jsonPayload = (value: unknown) => ({
  metadata: { encoding: b64("json/plain") },
  data: b64(JSON.stringify(value)),
})
const nullPayload = () => ({ metadata: { encoding: b64("binary/null") } })

export interface HistoryStep {
  /** "signal": a timer is started, then a signal arrives before it fires and cancels it. */
  readonly kind: "activity" | "timer" | "signal"
  readonly signalName?: string
  readonly signalAfterMs?: number
  /** Activity type name, or the timer's duration in ms. */
  readonly activity?: string
  readonly input?: ReadonlyArray<unknown>
  readonly result?: unknown
  readonly timerMs?: number
}

/**
 * A workflow run that executes `steps` in order, one workflow task between each, and completes.
 * Every event happens at `start + elapsed`, where timers advance elapsed.
 */
export const buildHistory = (options: {
  readonly workflowType: string
  readonly taskQueue: string
  readonly input: ReadonlyArray<unknown>
  readonly start: number
  readonly steps: ReadonlyArray<HistoryStep>
}) => {
  const events: Array<Record<string, unknown>> = []
  let now = options.start
  const at = () => new Date(now).toISOString()
  const taskQueue = { name: options.taskQueue, kind: "TASK_QUEUE_KIND_NORMAL" }
  const push = (eventType: string, attrsKey: string, attrs: Record<string, unknown>): string => {
    const eventId = String(events.length + 1)
    events.push({ eventId, eventTime: at(), eventType, taskId: eventId, [attrsKey]: attrs })
    return eventId
  }
  const workflowTask = (): string => {
    const scheduled = push("EVENT_TYPE_WORKFLOW_TASK_SCHEDULED", "workflowTaskScheduledEventAttributes", {
      taskQueue,
      startToCloseTimeout: "10s",
      attempt: 1,
    })
    const started = push("EVENT_TYPE_WORKFLOW_TASK_STARTED", "workflowTaskStartedEventAttributes", {
      scheduledEventId: scheduled,
      identity: "replay-test",
      requestId: `req-${scheduled}`,
    })
    return push("EVENT_TYPE_WORKFLOW_TASK_COMPLETED", "workflowTaskCompletedEventAttributes", {
      scheduledEventId: scheduled,
      startedEventId: started,
      identity: "replay-test",
    })
  }

  push("EVENT_TYPE_WORKFLOW_EXECUTION_STARTED", "workflowExecutionStartedEventAttributes", {
    workflowType: { name: options.workflowType },
    taskQueue,
    input: { payloads: options.input.map(jsonPayload) },
    workflowExecutionTimeout: "0s",
    workflowRunTimeout: "0s",
    workflowTaskTimeout: "10s",
    originalExecutionRunId: "00000000-0000-4000-8000-000000000001",
    firstExecutionRunId: "00000000-0000-4000-8000-000000000001",
    identity: "replay-test",
    attempt: 1,
    firstWorkflowTaskBackoff: "0s",
    header: {},
  })
  let completed = workflowTask()
  let activitySeq = 0
  let timerSeq = 0
  for (const step of options.steps) {
    if (step.kind === "activity") {
      activitySeq++
      const scheduled = push("EVENT_TYPE_ACTIVITY_TASK_SCHEDULED", "activityTaskScheduledEventAttributes", {
        activityId: String(activitySeq),
        activityType: { name: step.activity },
        taskQueue,
        header: {},
        input: { payloads: (step.input ?? []).map(jsonPayload) },
        scheduleToCloseTimeout: "0s",
        scheduleToStartTimeout: "0s",
        startToCloseTimeout: "60s",
        heartbeatTimeout: "0s",
        workflowTaskCompletedEventId: completed,
        retryPolicy: { initialInterval: "1s", backoffCoefficient: 2, maximumInterval: "300s", maximumAttempts: 0 },
      })
      const started = push("EVENT_TYPE_ACTIVITY_TASK_STARTED", "activityTaskStartedEventAttributes", {
        scheduledEventId: scheduled,
        identity: "replay-test",
        requestId: `act-${scheduled}`,
        attempt: 1,
      })
      push("EVENT_TYPE_ACTIVITY_TASK_COMPLETED", "activityTaskCompletedEventAttributes", {
        result: { payloads: [step.result === undefined ? nullPayload() : jsonPayload(step.result)] },
        scheduledEventId: scheduled,
        startedEventId: started,
        identity: "replay-test",
      })
    } else if (step.kind === "signal") {
      timerSeq++
      const started = push("EVENT_TYPE_TIMER_STARTED", "timerStartedEventAttributes", {
        timerId: String(timerSeq),
        startToFireTimeout: `${(step.timerMs ?? 0) / 1000}s`,
        workflowTaskCompletedEventId: completed,
      })
      now += step.signalAfterMs ?? 0
      push("EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED", "workflowExecutionSignaledEventAttributes", {
        signalName: step.signalName,
        input: { payloads: [] },
        identity: "replay-test",
        header: {},
      })
      completed = workflowTask()
      push("EVENT_TYPE_TIMER_CANCELED", "timerCanceledEventAttributes", {
        timerId: String(timerSeq),
        startedEventId: started,
        workflowTaskCompletedEventId: completed,
        identity: "replay-test",
      })
      // The commands that follow (e.g. the reload) belong to the same workflow task.
      continue
    } else {
      timerSeq++
      const ms = step.timerMs ?? 0
      const started = push("EVENT_TYPE_TIMER_STARTED", "timerStartedEventAttributes", {
        timerId: String(timerSeq),
        startToFireTimeout: `${ms / 1000}s`,
        workflowTaskCompletedEventId: completed,
      })
      now += ms
      push("EVENT_TYPE_TIMER_FIRED", "timerFiredEventAttributes", {
        timerId: String(timerSeq),
        startedEventId: started,
      })
    }
    completed = workflowTask()
  }
  push("EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED", "workflowExecutionCompletedEventAttributes", {
    result: { payloads: [nullPayload()] },
    workflowTaskCompletedEventId: completed,
  })
  return { events }
}
