/**
 * A stopping server keeps its listener open until no connection or request has arrived for
 * QUIET_MS, and for MAX_MS at most (a balancer still sending must not hold the stop): the
 * connections the kernel had already accepted (the listen backlog) are then taken and answered
 * instead of reset when the listener closes. One rule for Node, Bun and Deno.
 */
const QUIET_MS = 25
const MAX_MS = 1_000
const CHECK_MS = 5

/**
 * Resolves once arrivals have been quiet for QUIET_MS through two polls of the event loop (a
 * busy loop's timer must not end the wait before a poll has taken the backlog), or MAX_MS after
 * the call. `watch` subscribes to arrivals and returns its unsubscribe.
 */
export const whenArrivalsQuiet = (watch: (arrived: () => void) => () => void): Promise<void> =>
  new Promise((resolve) => {
    const signalled = Date.now()
    let last = signalled
    let quietChecks = 0
    const unwatch = watch(() => {
      last = Date.now()
      quietChecks = 0
    })
    // Timer callbacks of two event-loop iterations have a poll between them.
    const check = () => {
      const now = Date.now()
      if ((++quietChecks >= 2 && now - last >= QUIET_MS) || now - signalled >= MAX_MS) {
        unwatch()
        resolve()
      } else setTimeout(check, CHECK_MS)
    }
    setTimeout(check, CHECK_MS)
  })

/**
 * For servers that tell of requests, not connections (Bun, Deno): wraps the fetch handler so
 * that, once `stopping()` is called, every request counts as an arrival and its answer carries
 * `Connection: close` (the client does not reuse the connection). Nothing is added to a request
 * before the stop but one flag check.
 */
export const stoppableFetch = <A extends unknown[]>(fetch: (request: Request, ...rest: A) => Response | Promise<Response>) => {
  let stopping = false
  const listeners = new Set<() => void>()
  const lastAnswer = (response: Response): Response => {
    // An upgrade or a network error (status 101, 0) is left as it is: no copy can carry them.
    if (response.status < 200) return response
    try {
      response.headers.set("connection", "close")
      return response
    } catch {
      // Immutable headers (a Response the handler did not build): a copy carries the header.
      const copy = new Response(response.body, response)
      copy.headers.set("connection", "close")
      return copy
    }
  }
  return {
    fetch: (request: Request, ...rest: A): Response | Promise<Response> => {
      if (!stopping) return fetch(request, ...rest)
      for (const arrived of listeners) arrived()
      return Promise.resolve(fetch(request, ...rest)).then(lastAnswer)
    },
    /** Marks the server stopping; resolves when arrivals have been quiet (whenArrivalsQuiet). */
    stopping: (): Promise<void> => {
      stopping = true
      return whenArrivalsQuiet((arrived) => {
        listeners.add(arrived)
        return () => listeners.delete(arrived)
      })
    },
  }
}
