import { readFileSync } from "node:fs"
import {
  ATTEMPT_TIMEOUT_MS,
  isSuccessStatus,
} from "../../core/events/delivery-policy.ts"
import { RESERVED_DELIVERY_HEADERS } from "../../core/events/delivery-headers.ts"
import { ConfigError } from "../config/config.ts"
import type { DeliveryAttempt } from "../postgres/tables/webhook-deliveries.ts"
import type { WebhookDeps } from "./webhook-deps.ts"
import {
  claimDue,
  nextDueAt,
  OUTBOX_CHANNEL,
  recordAttempt,
  WEBHOOK_CHANNEL,
  type ClaimedDelivery,
} from "../postgres/deliveries-repo.ts"
import { relayOutbox } from "../postgres/outbox-relay.ts"
import { makeHttpSender, type Sender, type SendResult } from "./http-sender.ts"
import { signReceiverJwt } from "./receiver-jwt.ts"
import { sign } from "./signer.ts"
import { checkTarget, systemResolver, type Resolver } from "./ssrf-guard.ts"

/**
 * The webhook dispatcher: relays booking outbox events into deliveries, then sends what is due.
 * It runs inside every server process; processes share the work through SKIP LOCKED claims
 * and wall-clock leases, so a delivery is in flight in one process at a time and a dead
 * process's deliveries are taken over when its lease lapses. Delivery is at least once.
 */

export interface DispatcherOptions {
  /** Requests in flight per process (default 32). */
  readonly maxInFlight?: number
  /**
   * Requests in flight per registration per process (default 8): a slow receiver (10 s each)
   * holds at most this many slots, the others keep flowing.
   */
  readonly perWebhook?: number
  /** How long a claim is owned: the attempt timeout plus margin for DNS and bookkeeping. */
  readonly leaseMs?: number
  /** Idle re-check for work another process enqueued or a lapsed lease (real time). */
  readonly pollMs?: number
  readonly timeoutMs?: number
  readonly resolver?: Resolver
  readonly sender?: Sender
}

export interface Dispatcher {
  /** Something was committed: relay and send now. */
  readonly kick: () => void
  /**
   * Relays and sends everything due now and waits for those attempts, within `budgetMs`
   * (the manual clock's advance waits on this, bounded by the attempt timeout).
   */
  readonly drainDue: (budgetMs?: number) => Promise<void>
  readonly stop: () => Promise<void>
}

const USER_AGENT = "ServiceWebhooks/1.0"
/** The spec's request headers plus the registration's receiver authentication. */
export const deliveryHeaders = async (
  d: Pick<ClaimedDelivery, "id" | "type" | "projectId" | "body" | "secret" | "auth">,
  nowMs: number,
): Promise<Record<string, string>> => {
  const headers: Record<string, string> = {}
  const auth = d.auth
  if (auth["scheme"] === "custom-header" && Array.isArray(auth["headers"])) {
    for (const h of auth["headers"] as Array<{ name?: unknown; value?: unknown }>) {
      if (typeof h.name !== "string" || typeof h.value !== "string") continue
      if (RESERVED_DELIVERY_HEADERS.has(h.name.toLowerCase())) continue
      headers[h.name] = h.value
    }
  } else if (auth["scheme"] === "bearer" && typeof auth["token"] === "string") {
    headers["Authorization"] = `Bearer ${auth["token"]}`
  } else if (auth["scheme"] === "jwt") {
    // Minted per attempt: it lives about 60 s and a retry may come minutes later.
    const jwt = await signReceiverJwt(d.secret, {
      projectId: d.projectId,
      deliveryId: d.id,
      nowMs,
    })
    headers["Authorization"] = `Bearer ${jwt}`
  }
  const timestamp = String(nowMs)
  return {
    ...headers,
    "Content-Type": "application/json",
    "User-Agent": USER_AGENT,
    "X-Service-Event": d.type,
    "X-Service-Delivery": d.id,
    "X-Service-Timestamp": timestamp,
    "X-Service-Signature": await sign(d.secret, timestamp, d.body),
  }
}

const settled = async (ps: ReadonlyArray<Promise<unknown>>): Promise<undefined> => {
  await Promise.allSettled(ps)
  return undefined
}

const withTimeout = <T>(p: Promise<T>, ms: number, onTimeout: () => T): Promise<T> => {
  let timer: ReturnType<typeof setTimeout> | undefined
  return Promise.race([
    p,
    new Promise<T>((resolve) => {
      timer = setTimeout(() => resolve(onTimeout()), Math.max(0, ms))
    }),
  ]).finally(() => clearTimeout(timer))
}

/**
 * KEYSPACE_WEBHOOK_CA_FILE: extra CA the sender trusts (a private or test receiver CA). Boot
 * reads it first (`readWebhookCaFile`), so an unreadable file stops the start with one line
 * instead of failing the background dispatcher, which left webhooks silently unsent.
 */
export const readWebhookCaFile = (file: string | undefined): string | undefined => {
  if (!file) return undefined
  try {
    return readFileSync(file, "utf8")
  } catch (e) {
    throw new ConfigError("KEYSPACE_WEBHOOK_CA_FILE", `cannot be read: ${(e as Error).message}`)
  }
}
const readExtraCa = (s: WebhookDeps): string | undefined => readWebhookCaFile(s.config.webhookCaFile)

export const startDispatcher = (s: WebhookDeps, options: DispatcherOptions = {}): Dispatcher => {
  const maxInFlight = options.maxInFlight ?? 32
  const perWebhook = options.perWebhook ?? 8
  const timeoutMs = options.timeoutMs ?? ATTEMPT_TIMEOUT_MS
  const leaseMs = options.leaseMs ?? timeoutMs + 5_000
  const pollMs = options.pollMs ?? 1_000
  const resolver = options.resolver ?? systemResolver()
  const sender =
    options.sender ?? makeHttpSender({ extraCa: readExtraCa(s), maxSockets: perWebhook })
  const policy = { allowInsecure: s.config.allowInsecureWebhooks }
  const log = s.logger.child({ component: "webhooks" })

  const inFlight = new Map<string, Promise<void>>()
  const perWebhookCount = new Map<string, number>()
  let stopped = false
  let timer: ReturnType<typeof setTimeout> | undefined
  let unlisten: (() => Promise<void>) | undefined

  const attempt = async (d: ClaimedDelivery): Promise<void> => {
    // On the manual clock an attempt the clock jumped past (an advance) is logged at its due
    // time, and its backoff counts from there: one advance past the whole backoff replays every
    // retry, as it replays the ticks. It is signed with the clock's now (a receiver checks that
    // against the clock). On the system clock it is made now, so retries after a downtime stay
    // spaced out.
    const now = s.clock.now()
    const startedAt = s.clock.mode === "manual" ? Math.min(now, d.dueAt) : now
    const target = await withTimeout(checkTarget(d.url, policy, resolver), timeoutMs, () => ({
      ok: false as const,
      reason: `timeout resolving host after ${timeoutMs} ms`,
    }))
    let result: SendResult
    if (!target.ok) {
      result = { error: target.reason, durationMs: 0 }
    } else {
      const headers = await deliveryHeaders(d, now)
      result = await sender({
        url: target.url,
        address: target.address,
        headers,
        body: d.body,
        timeoutMs,
      })
    }
    const success = "statusCode" in result && isSuccessStatus(result.statusCode)
    const entry: DeliveryAttempt = {
      time: new Date(startedAt).toISOString(),
      ...("statusCode" in result ? { statusCode: result.statusCode } : {}),
      ...("error" in result
        ? { error: result.error }
        : result.statusCode >= 300 && result.statusCode < 400
          ? { error: "redirect not followed" }
          : {}),
      durationMs: result.durationMs,
    }
    const recorded = await recordAttempt(s.database.db, {
      id: d.id,
      attempt: entry,
      success,
      // Backoff counts from the attempt's start, whatever the clock did while it was in flight.
      now: startedAt,
    })
    // Never the URL's path or query (they may hold tokens), never the body or secret.
    log.log(success ? "debug" : "info", "webhook attempt", {
      deliveryId: d.id,
      webhookId: d.webhookId,
      type: d.type,
      attempt: d.roundAttempts + 1,
      ...("statusCode" in result ? { statusCode: result.statusCode } : { error: result.error }),
      state: recorded?.state,
    })
    if (recorded)
      s.metrics.webhookDelivery(
        recorded.disabled ? "disabled" : recorded.state === "pending" ? "retry" : recorded.state,
      )
    if (recorded?.disabled)
      log.log("warn", "webhook disabled after consecutive exhausted deliveries", {
        webhookId: d.webhookId,
      })
  }

  const start = (d: ClaimedDelivery) => {
    perWebhookCount.set(d.webhookId, (perWebhookCount.get(d.webhookId) ?? 0) + 1)
    const p = attempt(d)
      .catch((e: unknown) => {
        // The attempt could not be recorded (database gone?): the lease lapses and the
        // delivery is tried again, by this process or another.
        log.log("error", "webhook attempt failed to record", {
          deliveryId: d.id,
          error: e instanceof Error ? e.message : String(e),
        })
      })
      .finally(() => {
        inFlight.delete(d.id)
        const n = (perWebhookCount.get(d.webhookId) ?? 1) - 1
        if (n <= 0) perWebhookCount.delete(d.webhookId)
        else perWebhookCount.set(d.webhookId, n)
        // A slot is free: a due delivery that found none may be waiting for it.
        claimNeeded = true
        if (!stopped) void pump()
      })
    inFlight.set(d.id, p)
  }

  // The outbox queue is read only when something may have been committed (a wake, a notify,
  // a clock move, the poll), not each time a send finishes and frees a slot.
  let relayNeeded = true
  // Deliveries are claimed only when some may be due: not after a wake that only queued booking
  // events (OUTBOX_CHANNEL) that the relay then found no subscriber for, the common create.
  let claimNeeded = true
  const pumpOnce = async (): Promise<void> => {
    if (stopped) return
    if (relayNeeded) {
      relayNeeded = false
      // In batches until the queue is empty (or held by other processes).
      for (let i = 0; i < 1000; i++) {
        const relayed = await relayOutbox(s)
        if (relayed.subscribed) claimNeeded = true
        if (relayed.taken < 100) break
      }
    }
    // A stop that came during the relay claims nothing more: what is queued waits for a worker.
    const free = maxInFlight - inFlight.size
    if (stopped || !claimNeeded || free <= 0) return
    claimNeeded = false
    const claimed = await claimDue(s.database.db, {
      now: s.clock.now(),
      wallNow: Date.now(),
      leaseMs,
      limit: free,
      room: (webhookId) => perWebhook - (perWebhookCount.get(webhookId) ?? 0),
    }).catch((e: unknown) => {
      claimNeeded = true
      throw e
    })
    for (const d of claimed) if (!inFlight.has(d.id)) start(d)
  }

  // One pump at a time; calls while one waits to start share it.
  let chain: Promise<void> = Promise.resolve()
  let queued: Promise<void> | undefined
  const pump = (): Promise<void> => {
    if (queued) return queued
    const run = chain.then(async () => {
      queued = undefined
      try {
        await pumpOnce()
      } catch (e) {
        if (!stopped)
          log.log("error", "webhook dispatch round failed", {
            error: e instanceof Error ? e.message : String(e),
          })
      }
    })
    queued = run
    chain = run
    return run
  }

  /** Sleeps until the earliest due retry (system clock) or the poll interval, whichever first. */
  const schedule = async () => {
    if (stopped) return
    let delay = pollMs
    if (s.clock.mode === "system") {
      try {
        const due = await nextDueAt(s.database.db)
        if (due !== undefined) delay = Math.min(pollMs, Math.max(0, due - s.clock.now()))
      } catch {
        // The next round retries; the poll interval bounds the delay.
      }
    }
    clearTimeout(timer)
    if (stopped) return
    timer = setTimeout(() => void tick(), delay)
  }

  /** Something may have been committed: relay the queue, and claim deliveries unless `relayOnly`. */
  const needWork = (relayOnly = false) => {
    relayNeeded = true
    if (!relayOnly) claimNeeded = true
  }

  const tick = async () => {
    needWork()
    await pump()
    await schedule()
  }

  const kick = () => {
    needWork()
    if (!stopped) void pump()
  }

  /** Booking events were queued: relay them (and claim only what the relay made due). */
  const relayKick = () => {
    needWork(true)
    if (!stopped) void pump()
  }

  const drainDue = async (budgetMs = timeoutMs + 2_000): Promise<void> => {
    const deadline = Date.now() + budgetMs
    needWork()
    while (!stopped && Date.now() < deadline) {
      await pump()
      if (inFlight.size === 0) return
      await withTimeout(settled([...inFlight.values()]), deadline - Date.now(), () => undefined)
    }
  }

  // A channel whose LISTEN failed is served by the poll; the other's listener is still removed
  // on stop.
  void Promise.allSettled([s.database.listen(WEBHOOK_CHANNEL, kick), s.database.listen(OUTBOX_CHANNEL, relayKick)]).then((listens) => {
    const stops = listens.flatMap((l) => (l.status === "fulfilled" ? [l.value] : []))
    const stopAll = async () => void (await Promise.allSettled(stops.map((stop) => stop())))
    if (stopped) void stopAll()
    else unlisten = stopAll
  })
  void tick()

  return {
    kick,
    drainDue,
    stop: async () => {
      stopped = true
      clearTimeout(timer)
      await unlisten?.().catch(() => {})
      // A round under way may still claim and start attempts: it ends first. Then every attempt
      // in flight is let finish and recorded (each ends within the timeout), so a graceful stop
      // never sends one that another process sends again when its lease lapses; the leases
      // cover a hard stop.
      await chain.catch(() => {})
      const deadline = Date.now() + timeoutMs
      while (inFlight.size > 0 && Date.now() < deadline)
        await withTimeout(settled([...inFlight.values()]), Math.max(0, deadline - Date.now()), () => undefined)
    },
  }
}
