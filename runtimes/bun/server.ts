import { boot } from "../../adapters/runtime/boot.ts"

const booted = await boot(process.env)
// Bun's own body limit closes the connection unanswered (the client's write fails): the app's
// limit answers 413 instead (adapters/http/request-body.ts), so Bun's stays out of its way.
// idleTimeout (seconds) matches the Node server's keep-alive timeout (runtimes/node/http-server.ts).
const server = Bun.serve({
  port: booted.services.config.port,
  fetch: booted.app.fetch,
  maxRequestBodySize: Number.MAX_SAFE_INTEGER,
  idleTimeout: 65,
})
console.log(`Keyspace listening on port ${server.port} (${booted.services.config.publicUrl}) [bun ${Bun.version}]`)

const shutdown = async () => {
  await server.stop()
  await booted.close()
  process.exit(0)
}
process.on("SIGINT", shutdown)
process.on("SIGTERM", shutdown)
