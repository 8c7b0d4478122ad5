import { boot } from "../../adapters/wiring/boot.ts"
import { holdStartSignals, onShutdownSignal } from "../../adapters/wiring/shutdown.ts"
import { startOrExit } from "../../adapters/config/startup-error.ts"
import { isConnectionLoss } from "../../adapters/postgres/connection-loss.ts"
import { routedByTarget } from "../../adapters/http/request-target.ts"
import { stoppableFetch } from "../../adapters/wiring/arrivals-quiet.ts"

const env = Deno.env.toObject()
const exit = (code: number): never => Deno.exit(code)
const signals = holdStartSignals((signal, handler) => Deno.addSignalListener(signal, handler), exit)
const booted = await startOrExit(env, () => boot(env, { probePort: true }), exit)
// A lost database connection left unhandled by postgres-js is not fatal (runtimes/node/main.ts).
globalThis.addEventListener("unhandledrejection", (e) => {
  if (!isConnectionLoss(e.reason)) return
  e.preventDefault()
  booted.services.logger.log("warn", "a connection was lost outside any request (a rejection nobody handled)", { error: String(e.reason) })
})
const { port, publicUrl, shutdownGraceMs } = booted.services.config
const app = stoppableFetch(routedByTarget(booted.app.fetch, `localhost:${port}`))
const server = await startOrExit(
  env,
  async () => {
    try {
      return Deno.serve({ port, onListen: () => {} }, app.fetch)
    } catch (e) {
      await booted.close().catch(() => {})
      throw e
    }
  },
  exit,
)

const shutdown = onShutdownSignal({
  graceMs: shutdownGraceMs,
  // Deno's shutdown closes the listener at once: the listen backlog's connections were reset.
  drain: () => app.stopping().then(() => server.shutdown()),
  // Deno has no call that cuts open connections; exiting does, once the database is closed.
  cut: () => {},
  interrupt: booted.stopRuntime,
  close: booted.close,
  exit,
})
// Last: whoever waits for this line may signal at once.
if (!signals.ready(shutdown)) {
  const bound = (server.addr as Deno.NetAddr).port
  console.log(`Keyspace listening on port ${bound} (${publicUrl}) [deno ${Deno.version.deno}]`)
  booted.announce(bound)
}
