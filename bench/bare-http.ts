import { createServer } from "node:http"
import { readFileSync } from "node:fs"

/**
 * The limit for GET /healthz: bare node:http answering every request with the exact bytes
 * Keyspace answered (BARE_FILE) and a request id header of the same length, so the ratio is
 * what Hono, the middleware and the service add over Node's HTTP server itself.
 */
const bytes = readFileSync(process.env.BARE_FILE!)
const requestId = "00000000-0000-4000-8000-000000000000"
createServer((_req, res) => {
  res.writeHead(200, { "content-type": "application/json", "x-request-id": requestId, "content-length": bytes.length })
  res.end(bytes)
}).listen(Number(process.env.PORT), "127.0.0.1", () => console.log("bare ready"))
