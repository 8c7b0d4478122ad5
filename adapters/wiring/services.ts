import { Context } from "effect"
import type { ClockShape } from "../../core/ports/clock.ts"
import type { Config } from "../config/config.ts"
import type { Metrics } from "../observability/metrics.ts"
import type { Tracer } from "../observability/tracing.ts"
import type { Caches } from "../postgres/cache-epoch.ts"
import type { Database } from "../postgres/database.ts"
import type { AppRuntime } from "./app-layer.ts"
import type { Logger } from "./logger.ts"

/**
 * Everything a request handler or background worker may touch, built once at start
 * (adapters/wiring/boot.ts) and passed down explicitly.
 */
export interface Services {
  readonly config: Config
  readonly clock: ClockShape
  readonly database: Database
  /** Caches of tokens, apps and assets, current across processes (postgres/cache-epoch.ts). */
  readonly caches: Caches
  readonly newId: () => string
  readonly logger: Logger
  /** Prometheus metrics (GET /metrics); call the named recorders, e.g. bookingStatusChanged. */
  readonly metrics: Metrics
  /** OpenTelemetry tracing; a no-op unless OTEL_EXPORTER_OTLP_ENDPOINT is set. */
  readonly tracer: Tracer
  readonly adminToken: string
  /**
   * The one Effect runtime (use cases, ports, workers), built at boot. Bridge while routes and
   * workers move off this object onto the runtime: new code takes the runtime, not `Services`.
   */
  readonly runtime: AppRuntime
}

/**
 * The legacy Services as a service of the graph, for the worker layers whose loops still take
 * Services (bridge until Phase 3 removes Services). Boot resolves it once the runtime is built.
 */
export class LegacyServices extends Context.Service<LegacyServices, Promise<Services>>()("keyspace/wiring/LegacyServices") {}
