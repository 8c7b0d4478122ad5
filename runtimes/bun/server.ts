import { boot } from "../../adapters/runtime/boot.ts"

const booted = await boot(process.env)
const server = Bun.serve({ port: booted.services.config.port, fetch: booted.app.fetch, maxRequestBodySize: booted.services.config.maxBodyBytes })
console.log(`Keyspace listening on port ${server.port} (${booted.services.config.publicUrl}) [bun ${Bun.version}]`)

const shutdown = async () => {
  await server.stop()
  await booted.close()
  process.exit(0)
}
process.on("SIGINT", shutdown)
process.on("SIGTERM", shutdown)
