import { boot } from "../../adapters/wiring/boot.ts"
import { holdStartSignals, onShutdownSignal } from "../../adapters/wiring/shutdown.ts"
import { startOrExit } from "../../adapters/config/startup-error.ts"
import { routedByTarget } from "../../adapters/http/request-target.ts"
import { stoppableFetch } from "../../adapters/wiring/arrivals-quiet.ts"

const env = process.env
const exit = (code: number): never => process.exit(code)
const signals = holdStartSignals((signal, handler) => process.on(signal, handler), exit)
const booted = await startOrExit(env, () => boot(env, { probePort: true }), exit)
const { port, publicUrl, shutdownGraceMs } = booted.services.config
const app = stoppableFetch(routedByTarget(booted.app.fetch, `localhost:${port}`))
// Bun's own body limit closes the connection unanswered (the client's write fails): the app's
// limit answers 413 instead (adapters/http/request-body.ts), so Bun's stays out of its way.
// idleTimeout (seconds) matches the Node server's keep-alive timeout (runtimes/node/http-server.ts).
const server = await startOrExit(
  env,
  async () => {
    try {
      return Bun.serve({ port, fetch: app.fetch, maxRequestBodySize: Number.MAX_SAFE_INTEGER, idleTimeout: 65 })
    } catch (e) {
      await booted.close().catch(() => {})
      throw e
    }
  },
  exit,
)

let cutting = false
// Cutting a connection mid-body rejects the handler's body read with an AbortError: expected
// while stopping, not a failure worth a stack trace.
process.on("unhandledRejection", (e) => {
  if (cutting && (e as { name?: string })?.name === "AbortError") return
  console.error(e)
})
const shutdown = onShutdownSignal({
  graceMs: shutdownGraceMs,
  // Bun's stop closes the listener at once: the listen backlog's connections were reset.
  drain: () => app.stopping().then(() => server.stop(false)),
  cut: () => {
    cutting = true
    return server.stop(true)
  },
  interrupt: booted.stopRuntime,
  close: booted.close,
  exit,
})
// Last: whoever waits for this line may signal at once.
if (!signals.ready(shutdown)) {
  console.log(`Keyspace listening on port ${server.port} (${publicUrl}) [bun ${Bun.version}]`)
  booted.announce(server.port!)
}
