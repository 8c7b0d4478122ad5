import { createServer } from "node:net"

/**
 * Fails with EADDRINUSE (or EACCES) when the port cannot be bound, so a start on a taken port
 * stops before it opens the database, seeds or prints credentials. Binds the way the runtimes
 * do by default (all addresses) and lets go at once; node:net works on Node, Bun and Deno.
 * Resolves the port bound: for port 0, the free port the system picked.
 */
export const ensurePortFree = (port: number): Promise<number> =>
  new Promise<number>((resolve, reject) => {
    const probe = createServer()
    probe.once("error", reject)
    probe.listen({ port, exclusive: true }, () => {
      const address = probe.address()
      const bound = typeof address === "object" && address !== null ? address.port : port
      probe.close(() => resolve(bound))
    })
  })
