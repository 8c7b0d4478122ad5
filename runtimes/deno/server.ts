import { boot } from "../../adapters/runtime/boot.ts"

const booted = await boot(Deno.env.toObject())
const server = Deno.serve({ port: booted.services.config.port, onListen: ({ port }) =>
  console.log(`Keyspace listening on port ${port} (${booted.services.config.publicUrl}) [deno ${Deno.version.deno}]`) },
  booted.app.fetch)

const shutdown = async () => {
  await server.shutdown()
  await booted.close()
  Deno.exit(0)
}
Deno.addSignalListener("SIGINT", shutdown)
Deno.addSignalListener("SIGTERM", shutdown)
