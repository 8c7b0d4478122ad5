import type { AddressInfo } from "node:net"
import { parseConfig } from "../../adapters/config/config.ts"
import { listen } from "../../runtimes/node/http-server.ts"
import { ADMIN_TOKEN, startHarness } from "./harness.ts"

/**
 * The service behind a real socket, for tests about connections rather than answers. With
 * KEYSPACE_E2E_URL set (.ci/runtime-smoke) it is that server, on Node, Bun or Deno; otherwise
 * the service booted in-process (PGlite, manual clock) behind the Node runtime's own HTTP
 * server (runtimes/node/http-server.ts: its timeouts and keep-alive) on a free port.
 */
export interface SocketServer {
  readonly url: string
  readonly adminToken: string
  /** The server's request body limit (KEYSPACE_MAX_BODY_BYTES). */
  readonly maxBodyBytes: number
  readonly close: () => Promise<void>
}

export const socketServer = async (env: Record<string, string> = {}): Promise<SocketServer> => {
  const external = process.env.KEYSPACE_E2E_URL
  if (external) {
    return {
      url: external,
      adminToken: process.env.KEYSPACE_E2E_ADMIN_TOKEN ?? ADMIN_TOKEN,
      maxBodyBytes: parseConfig({ KEYSPACE_MAX_BODY_BYTES: process.env.KEYSPACE_E2E_MAX_BODY_BYTES }).maxBodyBytes,
      close: async () => {},
    }
  }
  const h = await startHarness("pglite", env)
  const server = listen(h.booted, 0)
  if (!server.listening) await new Promise((resolve) => server.once("listening", resolve))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    adminToken: ADMIN_TOKEN,
    maxBodyBytes: h.booted.services.config.maxBodyBytes,
    close: async () => {
      server.closeAllConnections()
      await new Promise((resolve) => server.close(resolve))
      await h.close()
    },
  }
}
