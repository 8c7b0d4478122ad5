import { createServer } from "node:net"

/**
 * Fails with EADDRINUSE (or EACCES) when the port cannot be bound, so a start on a taken port
 * stops before it opens the database, seeds or prints credentials. Binds the way the runtimes
 * do by default (all addresses) and lets go at once; node:net works on Node, Bun and Deno.
 */
export const ensurePortFree = async (port: number): Promise<void> => {
  if (port === 0) return
  await new Promise<void>((resolve, reject) => {
    const probe = createServer()
    probe.once("error", reject)
    probe.listen({ port, exclusive: true }, () => probe.close(() => resolve()))
  })
}
