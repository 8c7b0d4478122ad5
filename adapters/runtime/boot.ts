import { mkdirSync } from "node:fs"
import { makeObjectIdFactory } from "../../core/shared/ids.ts"
import { ManualClock, systemClock } from "../clock/clocks.ts"
import { parseConfig, type Config } from "../config/config.ts"
import { newOpaqueToken } from "../auth/secret-hash.ts"
import { makeApp } from "../http/app.ts"
import { contextualLogger } from "../observability/log-redaction.ts"
import { makeMetrics } from "../observability/metrics.ts"
import { makeTracer } from "../observability/tracing.ts"
import { makeCaches } from "../postgres/cache-epoch.ts"
import { openDatabase } from "../postgres/database.ts"
import { seedDemo } from "./demo-seed.ts"
import { makeLogger } from "./logger.ts"
import type { Services } from "./services.ts"
import { startBackground, surfaces } from "./surfaces.ts"

export interface Booted {
  readonly app: ReturnType<typeof makeApp>
  readonly services: Services
  /** Stops background workers and closes the database (after the HTTP server drained). */
  readonly close: () => Promise<void>
}

/**
 * Builds the whole service from the environment: configuration, clock, database and
 * migrations, demo seed, HTTP app and background workers. Every runtime calls this.
 */
export const boot = async (
  env: Record<string, string | undefined>,
  options: { print?: (line: string) => void; background?: boolean } = {},
): Promise<Booted> => {
  const print = options.print ?? ((line: string) => console.log(line))
  const config: Config = parseConfig(env)
  const clock = config.clock.mode === "manual" ? new ManualClock(config.clock.start ?? Date.now()) : systemClock()
  if (!config.databaseUrl && config.dataDir !== "memory") mkdirSync(config.dataDir, { recursive: true })
  const database = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir })
  const objectId = makeObjectIdFactory((bytes) => crypto.getRandomValues(bytes as Uint8Array<ArrayBuffer>))
  const adminToken = config.adminToken ?? newOpaqueToken()
  // Every line carries the request id of the request it was written for, and is redacted.
  const logger = contextualLogger(makeLogger(config.logLevel))
  const services: Services = {
    config,
    clock,
    database,
    caches: makeCaches(database.db),
    newId: () => objectId(Date.now()),
    logger,
    metrics: makeMetrics(),
    tracer: makeTracer(env, logger),
    adminToken,
    onClockAdvanced: [],
    wake: [],
  }
  if (!config.adminToken) print(`Operator token (KEYSPACE_ADMIN_TOKEN was unset): ${adminToken}`)
  if (config.seed === "demo") {
    const demo = await seedDemo(services)
    if (demo) {
      print(`Demo project seeded (projectId ${demo.projectId}).`)
      print(`Demo app: app_id=${demo.appId} app_secret=${demo.appSecret}`)
      print(
        `Try: curl -s -X POST ${config.publicUrl}/auth/accessToken -H 'Content-Type: application/json' ` +
          `-d '{"grant_type":"app_credentials","app_id":"${demo.appId}","app_secret":"${demo.appSecret}"}'`,
      )
    }
  }
  const app = makeApp(services, surfaces(services))
  const stopBackground = options.background === false ? async () => {} : startBackground(services)
  return {
    app,
    services,
    close: async () => {
      await stopBackground()
      await services.tracer.shutdown()
      await database.close()
    },
  }
}
