import type { Server } from "node:http"
import type { AddressInfo } from "node:net"
import { boot } from "../../adapters/wiring/boot.ts"
import { holdStartSignals, onShutdownSignal } from "../../adapters/wiring/shutdown.ts"
import { startOrExit } from "../../adapters/config/startup-error.ts"
import { isConnectionLoss } from "../../adapters/postgres/connection-loss.ts"
import { drain, listen } from "./http-server.ts"
import { stdoutLines } from "./log-output.ts"

/**
 * Starts the server on Node: boots the service from the environment, listens, and shuts down on
 * SIGINT/SIGTERM. Resolves once it listens. Imported by runtimes/node/server.ts (tsx, tsc's output)
 * and run from the built CommonJS bundle by runtimes/node/bundled-server.ts (`npm start`).
 */
export const main = async (): Promise<void> => {
  const env = process.env
  const exit = (code: number): never => process.exit(code)
  const signals = holdStartSignals((signal, handler) => process.on(signal, handler), exit)
  // Log lines leave in one write per event-loop turn, and all of them before the process exits.
  const logs = stdoutLines()
  const booted = await startOrExit(env, () => boot(env, { probePort: true, logLine: logs.line }), exit)
  // postgres-js (3.4) leaves the type fetch of each new connection unhandled: PostgreSQL ending
  // that session during the fetch (a restart, a terminated backend), or its socket reset (a proxy
  // or a network between), would end the process. The pool opens another connection for the
  // next query, so a lost connection is only logged; any other unhandled rejection still ends
  // the process.
  process.on("unhandledRejection", (reason) => {
    if (!isConnectionLoss(reason)) throw reason
    booted.services.logger.log("warn", "a connection was lost outside any request (a rejection nobody handled)", { error: String(reason) })
  })
  const { port, publicUrl, shutdownGraceMs } = booted.services.config
  const server = await startOrExit(
    env,
    () =>
      new Promise<Server>((resolve, reject) => {
        const s = listen(booted, port, () => resolve(s))
        s.once("error", (e) => void booted.close().finally(() => reject(e)))
      }),
    exit,
  )

  const shutdown = onShutdownSignal({
    graceMs: shutdownGraceMs,
    drain: () => drain(server),
    cut: () => server.closeAllConnections(),
    interrupt: booted.stopRuntime,
    close: booted.close,
    exit,
  })
  if (signals.ready(shutdown)) return

  // Last: whoever waits for this line may signal at once (after the start's own lines).
  logs.flush()
  const bound = (server.address() as AddressInfo).port
  console.log(`Keyspace listening on port ${bound} (${publicUrl}) [node ${process.version}]`)
  booted.announce(bound)
}
