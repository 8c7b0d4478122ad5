/** The logger moved to adapters/observability/logger.ts; legacy imports keep working here. */
export { makeLogger, type Level, type Logger } from "../observability/logger.ts"
