import { serve } from "@hono/node-server"
import { Hono } from "hono"
import { readFileSync } from "node:fs"

/**
 * The limit for the read benchmarks: a bare Hono handler on Node answering every GET with the
 * exact bytes Keyspace answered (BARE_FILE), so the ratio isolates what the service adds
 * (auth, validation, SQL, rendering) over HTTP framing and the runtime.
 */
const bytes = readFileSync(process.env.BARE_FILE!)
const app = new Hono().get("*", (c) => c.body(bytes, 200, { "content-type": "application/json" }))
serve({ fetch: app.fetch, port: Number(process.env.PORT), hostname: "127.0.0.1" }, () => console.log("bare ready"))
