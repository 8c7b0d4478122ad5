#!/usr/bin/env node
/**
 * Guards in installed dependencies that their maintainers have accepted upstream but not yet
 * released, applied after `npm install` / `npm ci` (postinstall) so the sources tsx, Bun and the
 * dist/ bundle load all carry them. Each guard is idempotent and checked: when a dependency's
 * code no longer looks as expected (an upgrade), the install fails and the guard must be looked
 * at again (dropped when the release carries the fix).
 *
 * - postgres (3.4.9) `nextWrite`: a write queued with setImmediate can run after the connection
 *   closed and `socket` was set to null; the TypeError is thrown from the timer, past every
 *   caller, and ends the process. PostgreSQL ending a session under load (a restart, a failover,
 *   pg_terminate_backend) triggers it: test/crash/terminated-sessions.test.ts. The query that
 *   wrote it was already rejected (CONNECTION_CLOSED) when the connection closed, so the guard
 *   drops the write. Upstream: porsager/postgres#1154, #1208; fix in PR #1168 / #1176.
 */
import { readFileSync, writeFileSync, existsSync } from "node:fs"

const root = new URL("..", import.meta.url).pathname

const nextWriteGuard = {
  before: "  function nextWrite(fn) {\n    const x = socket.write(chunk, fn)\n",
  after:
    "  function nextWrite(fn) {\n" +
    "    if (socket === null) return (chunk = nextWriteTimer = null, false) // keyspace: porsager/postgres#1154\n" +
    "    const x = socket.write(chunk, fn)\n",
}
// The ES module build (Node, Bun, the bundle) and the CommonJS one.
const guards = ["node_modules/postgres/src/connection.js", "node_modules/postgres/cjs/src/connection.js"].map((file) => ({ file, ...nextWriteGuard }))

for (const { file, before, after } of guards) {
  const path = root + file
  if (!existsSync(path)) continue // not installed (a production install without it, say)
  const text = readFileSync(path, "utf8")
  if (text.includes(after)) continue
  if (!text.includes(before)) {
    console.error(`patch-dependencies: ${file} changed; check the guard in scripts/patch-dependencies.mjs`)
    process.exit(1)
  }
  writeFileSync(path, text.replace(before, after))
  console.log(`patch-dependencies: guarded ${file}`)
}
