import { Context } from "effect"
import { makeObjectIdFactory } from "../../core/shared/ids.ts"
import { systemClock } from "../clock/clocks.ts"
import { isSharedManual } from "../clock/clocks.ts"
import { openSharedClock } from "../postgres/shared-clock.ts"
import { parseConfig, type Config } from "../config/config.ts"
import { readWebhookCaFile } from "../webhooks/dispatcher.ts"
import { newOpaqueToken } from "../crypto/secrets.ts"
import { makeApp } from "../http/app.ts"
import { contextualLogger } from "../observability/log-redaction.ts"
import { makeMetrics } from "../observability/metrics.ts"
import { Telemetry } from "../observability/telemetry.ts"
import { tracingConfig, type TracingConfig } from "../observability/tracing.ts"
import { Tenancy } from "../../core/tenancy/tenancy.ts"
import { openDatabase } from "../postgres/database.ts"
import { makeCaches } from "../postgres/cache-epoch.ts"
import { lockDataDir, type DataDirLock } from "./data-dir-lock.ts"
import { ensurePortFree } from "./port-probe.ts"
import { StartupError } from "../config/startup-error.ts"
import { makeDataDir, refuseForeignDataDir } from "./data-dir.ts"
import { makeLogger } from "../observability/logger.ts"
import { makeAppRuntime, type AppRuntime } from "./app-layer.ts"
import type { Caches } from "../postgres/cache-epoch.ts"
import { isConnectionLoss } from "../postgres/connection-loss.ts"
import { isRefusedValue } from "../postgres/sqlstate.ts"
import type { Tracer } from "../observability/tracing.ts"
import type { WorkerDeps } from "./worker-deps.ts"
import { surfaces } from "./surfaces.ts"

/** What boot opened and built, as the worker loops, operator scripts and tests reach it. */
export interface BootedParts extends WorkerDeps {
  readonly caches: Caches
  readonly tracer: Tracer
  readonly adminToken: string
  readonly runtime: AppRuntime
  /** A lost database connection: the edge answers it 503 SV004 (adapters/http/run.ts). */
  readonly transientFault: (e: unknown) => boolean
  /** A value of a request the database refused (SQLSTATE class 22): the edge answers it 400 SV001. */
  readonly refusedValue: (e: unknown) => boolean
}

export interface Booted {
  readonly app: ReturnType<typeof makeApp>
  readonly services: BootedParts
  /** The Effect runtime every handler and worker runs use cases on; disposed by `close`. */
  readonly runtime: AppRuntime
  /** Prints what the operator needs (tokens, demo credentials); call once the server listens on `port`. */
  readonly announce: (port: number) => void
  /**
   * Disposes the Effect runtime: the requests still running are interrupted (answered 503) and
   * the background workers stop. `close` does it too; a stop calls it first, before cutting the
   * connections those answers go out on.
   */
  readonly stopRuntime: () => Promise<void>
  /** Stops background workers, closes the database and frees the data directory (after the HTTP server drained). */
  readonly close: () => Promise<void>
}

/**
 * Builds the whole service from the environment: configuration, clock, database and
 * migrations, demo seed, HTTP app and background workers. Every runtime calls this.
 */
export const boot = async (
  env: Record<string, string | undefined>,
  options: {
    print?: (line: string) => void
    background?: boolean
    probePort?: boolean
    /** Where log lines go (the Node entry batches them: line-buffer.ts); default `console.log` per line. */
    logLine?: (line: string) => void
  } = {},
): Promise<Booted> => {
  const print = options.print ?? ((line: string) => console.log(line))
  let config: Config = parseConfig(env)
  readWebhookCaFile(config.webhookCaFile)
  const tracing = tracingConfig(env)
  // A taken port is found before anything is opened, seeded or printed.
  if (options.probePort) {
    const chosen = await ensurePortFree(config.port)
    // PORT=0: the free port is chosen now, so the public URL (payment pages, the printed
    // commands) names the port the server listens on, not :0.
    if (config.port === 0) config = parseConfig({ ...env, PORT: String(chosen) })
  }
  let lock: DataDirLock | undefined
  if (!config.databaseUrl && config.dataDir !== "memory") {
    makeDataDir(config.dataDir)
    lock = lockDataDir(config.dataDir, config.port || undefined)
  }
  try {
    if (lock !== undefined) refuseForeignDataDir(config.dataDir)
    return await bootLocked(config, tracing, print, options.background !== false, lock, options.logLine)
  } catch (e) {
    lock?.release()
    throw e
  }
}

/** PGlite's file system throws emscripten's ErrnoError (no message, an errno of its own numbering). */
const embeddedFault = (e: unknown): string => {
  if (e instanceof Error && e.message) return e.message
  const errno = (e as { errno?: unknown } | null)?.errno
  if (typeof errno === "number") return `file system error ${errno}: check that the directory is readable and writable by this user`
  return String(e)
}

const bootLocked = async (
  config: Config,
  tracing: TracingConfig | undefined,
  print: (line: string) => void,
  background: boolean,
  lock: DataDirLock | undefined,
  logLine: ((line: string) => void) | undefined,
): Promise<Booted> => {
  const database = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir }).catch((e: unknown) => {
    if (config.databaseUrl || config.dataDir === "memory") throw e
    throw new StartupError(`KEYSPACE_DATA_DIR ${config.dataDir}: the embedded database could not be opened (${embeddedFault(e)}).`)
  })
  const objectId = makeObjectIdFactory((bytes) => crypto.getRandomValues(bytes as Uint8Array<ArrayBuffer>))
  const adminToken = config.adminToken ?? newOpaqueToken()
  // Every line carries the request id of the request it was written for, and is redacted.
  const logger = contextualLogger(makeLogger(config.logLevel, {}, logLine))
  if (config.clock.start !== undefined && config.clock.mode !== "manual")
    logger.log("warn", "KEYSPACE_CLOCK_START is ignored: it sets where a manual clock starts, and KEYSPACE_CLOCK is not manual")
  // The manual clock is the deployment's, kept in the database (every process reads one clock).
  const clock =
    config.clock.mode === "manual"
      ? await openSharedClock(database, {
          databaseUrl: config.databaseUrl,
          start: config.clock.start ?? Date.now(),
          logger,
        }).catch(async (e: unknown) => {
          await database.close()
          throw e
        })
      : systemClock()
  const newId = () => objectId(Date.now())
  const caches = makeCaches(database.db)
  // The workers' loops take the legacy metric recorders and the runtime, which need the build: the worker
  // layers start once it is handed over below.
  let handOver: (deps: WorkerDeps) => void = () => {}
  const workerDeps = new Promise<WorkerDeps>((resolve) => (handOver = resolve))
  const runtime = makeAppRuntime({
    config,
    clock,
    newId,
    storage: { profile: "postgres", database, caches },
    tracing,
    background,
    workerDeps,
    logger,
  })
  // Builds every layer now, so a broken graph fails the start, not the first request.
  const context = await runtime.context()
  const telemetry = Context.get(context, Telemetry)
  const services: BootedParts = {
    config,
    clock,
    database,
    caches,
    newId,
    logger,
    // Legacy recorders write into the runtime's metric registry; spans export with the runtime.
    metrics: makeMetrics(context),
    tracer: { enabled: telemetry.tracer !== undefined, flush: () => runtime.runPromise(telemetry.flush) },
    adminToken,
    runtime,
    transientFault: isConnectionLoss,
    refusedValue: isRefusedValue,
  }
  handOver(services)
  const lines: string[] = []
  if (!config.adminToken) lines.push(`Operator token (KEYSPACE_ADMIN_TOKEN was unset): ${adminToken}`)
  if (config.databaseUrl === undefined && config.dataDir === "memory")
    lines.push("In-memory database (KEYSPACE_DATA_DIR=memory): nothing is kept when the server stops.")
  if (config.clock.mode === "manual")
    lines.push(`Manual clock at ${new Date(clock.now()).toISOString()}: it moves only through POST /admin/v1/clock/advance.`)
  const demo = config.seed === "demo" ? await runtime.runPromise(Context.get(context, Tenancy).seedDemo()) : undefined
  if (demo?.seeded) {
    lines.push(`Demo project seeded (projectId ${demo.projectId}).`)
    lines.push(`Demo app: app_id=${demo.appId} app_secret=${demo.appSecret}`)
    lines.push(
      `Try: curl -s -X POST ${config.publicUrl}/auth/accessToken -H 'Content-Type: application/json' ` +
        `-d '{"grant_type":"app_credentials","app_id":"${demo.appId}","app_secret":"${demo.appSecret}"}'`,
    )
  } else if (demo?.projectId !== undefined) {
    // App secrets are stored hashed: the first start's secret cannot be shown again, only replaced.
    // The configured token is not printed: the command reads it from the shell's environment.
    const bearer = config.adminToken ? "$KEYSPACE_ADMIN_TOKEN" : adminToken
    lines.push(`Existing database: demo project ${demo.projectId}; the demo app's secret was printed on its first start only.`)
    lines.push(
      `New secret: curl -s -X POST ${config.publicUrl}/admin/v1/apps/demo-app/secret -H "Authorization: Bearer ${bearer}"` +
        ` (ids: GET /admin/v1/manifest/ids${config.adminToken ? "; export KEYSPACE_ADMIN_TOKEN in that shell first" : ""})`,
    )
  }
  const app = makeApp(services, surfaces(services))
  return {
    app,
    services,
    runtime,
    announce: (port) => {
      lock?.listeningOn(port)
      lines.forEach((line) => print(line))
    },
    // Idempotent (ManagedRuntime's dispose): a stop calls it before close does.
    stopRuntime: () => runtime.dispose(),
    close: async () => {
      try {
        // Stops the workers (webhooks, then the scheduler), then the rest of the graph.
        await runtime.dispose()
        if (isSharedManual(clock)) await clock.close()
        await database.close()
      } finally {
        lock?.release()
      }
    },
  }
}
