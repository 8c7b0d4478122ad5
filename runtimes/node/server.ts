import { boot } from "../../adapters/runtime/boot.ts"
import { ConfigError } from "../../adapters/config/config.ts"
import { listen } from "./http-server.ts"

const booted = await boot(process.env).catch((e: unknown) => {
  if (e instanceof ConfigError) {
    console.error(e.message)
    process.exit(2)
  }
  throw e
})
const { port, publicUrl } = booted.services.config
const server = listen(booted, port, (bound) =>
  console.log(`Keyspace listening on port ${bound} (${publicUrl}) [node ${process.version}]`),
)

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
