import { serve } from "@hono/node-server"
import { boot } from "../../adapters/runtime/boot.ts"
import { ConfigError } from "../../adapters/config/config.ts"

const booted = await boot(process.env).catch((e: unknown) => {
  if (e instanceof ConfigError) {
    console.error(e.message)
    process.exit(2)
  }
  throw e
})
const { port, publicUrl, requestTimeoutMs, maxConnections } = booted.services.config
const server = serve({ fetch: booted.app.fetch, port }, (info) =>
  console.log(`Keyspace listening on port ${info.port} (${publicUrl}) [node ${process.version}]`),
) as import("node:http").Server

// Deliberate limits: slow clients cannot hold sockets or half-sent requests forever.
server.headersTimeout = 15_000
server.requestTimeout = requestTimeoutMs
server.keepAliveTimeout = 5_000
server.maxConnections = maxConnections

// Graceful shutdown: stop accepting, let in-flight requests finish, then close the database.
let stopping = false
const shutdown = (signal: string) => {
  if (stopping) return
  stopping = true
  console.log(`${signal}: shutting down`)
  const force = setTimeout(() => process.exit(1), 10_000)
  force.unref()
  server.close(async () => {
    await booted.close()
    process.exit(0)
  })
}
process.on("SIGINT", () => shutdown("SIGINT"))
process.on("SIGTERM", () => shutdown("SIGTERM"))
