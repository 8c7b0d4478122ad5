/**
 * Graceful shutdown, one rule for every runtime: on SIGTERM or SIGINT stop accepting, give
 * in-flight requests up to KEYSPACE_SHUTDOWN_GRACE_MS, then cut whatever is still open (a
 * client holding a half-sent request must not keep the process alive), stop background
 * workers, close the database, free the data directory and exit 0. If closing itself hangs,
 * exit 1 after a further 10 s: a supervisor's SIGTERM always ends the process.
 */
export interface ShutdownParts {
  readonly graceMs: number
  /** Stops accepting and resolves when in-flight requests are done. */
  readonly drain: () => Promise<unknown>
  /**
   * When the grace period ran out, before the cut: interrupts the requests still running, whose
   * answers (503 SV004, "the server is stopping") then go out on connections still open.
   */
  readonly interrupt: () => Promise<unknown>
  /** Cuts the connections still open after the grace period. */
  readonly cut: () => unknown
  /** Background workers, database, data directory lock. */
  readonly close: () => Promise<void>
  readonly exit: (code: number) => void
}

/** How long interrupted requests' answers get to go out before the cut. */
const ANSWER_FLUSH_MS = 50

export const onShutdownSignal = (parts: ShutdownParts): ((signal: string) => void) => {
  let stopping = false
  return (signal) => {
    if (stopping) return
    stopping = true
    console.log(`${signal}: shutting down (in-flight requests get up to ${parts.graceMs} ms)`)
    const hard = setTimeout(() => {
      console.error(`shutdown did not finish within ${parts.graceMs + 10_000} ms; exiting`)
      parts.exit(1)
    }, parts.graceMs + 10_000)
    let timer: ReturnType<typeof setTimeout> | undefined
    const graceOver = new Promise<void>((resolve) => (timer = setTimeout(resolve, parts.graceMs)))
    void (async () => {
      try {
        const drained = await Promise.race([
          parts.drain().then(
            () => true,
            () => false,
          ),
          graceOver.then(() => false),
        ])
        clearTimeout(timer)
        if (!drained) {
          await parts.interrupt().catch(() => undefined)
          // The interrupted requests' answers are written on the next turns of the event loop.
          await new Promise((resolve) => setTimeout(resolve, ANSWER_FLUSH_MS))
        }
        await parts.cut()
        await parts.close()
        clearTimeout(hard)
        parts.exit(0)
      } catch (e) {
        console.error("shutdown failed:", e)
        parts.exit(1)
      }
    })()
  }
}

/**
 * SIGINT and SIGTERM from the first line of a runtime's start: a signal that arrives while the
 * server starts (opening and migrating the database takes seconds) is held and acted on as soon
 * as the server can stop gracefully. Its default action killed the start (exit 143) and left the
 * data directory's lock behind. `listen` subscribes to a signal the runtime's way.
 */
export const holdStartSignals = (
  listen: (signal: "SIGINT" | "SIGTERM", handler: () => void) => void,
  exit: (code: number) => void,
) => {
  let held: string | undefined
  let shutdown: ((signal: string) => void) | undefined
  for (const signal of ["SIGINT", "SIGTERM"] as const)
    listen(signal, () => {
      if (shutdown !== undefined) return shutdown(signal)
      // A second signal during a start that does not end (a database that never answers, another
      // process's migrations): the operator insists, so stop now. The lock is found stale later.
      if (held !== undefined) {
        console.error(`${signal} again while starting: exiting now`)
        return exit(1)
      }
      held = signal
    })
  return {
    /** The server can stop gracefully now; true when a held signal has started that already. */
    ready: (stop: (signal: string) => void): boolean => {
      shutdown = stop
      if (held === undefined) return false
      stop(held)
      return true
    },
  }
}
