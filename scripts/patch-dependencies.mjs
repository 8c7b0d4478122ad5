#!/usr/bin/env node
/**
 * Guards in installed dependencies for bugs reported upstream and not yet fixed in a release,
 * applied after `npm install` / `npm ci` (postinstall, before `prepare` builds dist/) so the
 * sources tsx, Bun and Deno load and the bundle all carry them. Each guard is idempotent and
 * checked: when a dependency's code no longer looks as expected (an upgrade), the install fails
 * and the guard must be looked at again (dropped once a release carries the fix).
 *
 * postgres (3.4.9), both found by test/crash/terminated-sessions.test.ts (PostgreSQL ending the
 * server's sessions under load, as a restart or a failover does):
 * - `closed()` and `terminate()` cancel the pending write timer but leave `nextWriteTimer` set
 *   and the unsent `chunk` in place, so on the reopened connection no small write is flushed
 *   again (its start-up message waits for CONNECT_TIMEOUT, 30 s, each time). Both are reset.
 * - `nextWrite` can then run with `socket` null (a write queued with setImmediate after the
 *   connection closed) and throws from the timer, past every caller: the process ends. The
 *   query that wrote it was already rejected when the connection closed, so the write is
 *   dropped. Upstream: porsager/postgres#1154, #1208, PRs #1168 / #1176.
 *
 * postgres (3.4.9), found by profiling the read paths (bench/README.md, issue 13, session 19):
 * - `Queue.shift()` leaves a hole and only empties its array when the queue drains, and
 *   `remove()` scans the array from its start. The pool's idle-connection queue drains only when
 *   every connection is busy at once, so once a burst has opened them all and the load falls
 *   below the pool's size, every query adds a hole that every later query scans: memory and
 *   CPU per query grow without bound (+10 us per query per 50,000 queries measured). `remove()`
 *   scans only the queued part, and `shift()` drops the holes once they are the larger half.
 *   Upstream: porsager/postgres#747 (the pool's speed drops, then recovers).
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs"
import { fileURLToPath } from "node:url"

const root = fileURLToPath(new URL("..", import.meta.url))

const MARK = "// keyspace: porsager/postgres#1154"
const postgresGuards = [
  {
    before: "  function nextWrite(fn) {\n    const x = socket.write(chunk, fn)\n",
    after: `  function nextWrite(fn) {\n    if (socket === null) return (chunk = nextWriteTimer = null, false) ${MARK}\n    const x = socket.write(chunk, fn)\n`,
  },
  {
    before: "    clearImmediate(nextWriteTimer)\n    if (socket) {\n",
    after: `    clearImmediate(nextWriteTimer)\n    nextWriteTimer = chunk = null ${MARK}\n    if (socket) {\n`,
  },
  {
    before: "    incomings = null\n    clearImmediate(nextWriteTimer)\n",
    after: `    incomings = null\n    clearImmediate(nextWriteTimer)\n    nextWriteTimer = chunk = null ${MARK}\n`,
  },
]
const QUEUE_MARK = "// keyspace: postgres Queue holes"
const queueGuards = [
  {
    before: "    remove: (x) => {\n      const index = xs.indexOf(x)\n      return index === -1\n        ? null\n        : (xs.splice(index, 1), x)\n",
    after: `    remove: (x) => { ${QUEUE_MARK}\n      const at = xs.indexOf(x, index)\n      return at === -1\n        ? null\n        : (xs.splice(at, 1), x)\n`,
  },
  {
    before: "      } else {\n        xs[index - 1] = undefined\n      }\n",
    after: `      } else if (index >= 64 && index * 2 >= xs.length) { ${QUEUE_MARK}\n        xs = xs.slice(index)\n        index = 0\n      } else {\n        xs[index - 1] = undefined\n      }\n`,
  },
]

// The ES module build (Node, Bun, Deno, the bundle) and the CommonJS one.
const guarded = [
  { guards: postgresGuards, files: ["node_modules/postgres/src/connection.js", "node_modules/postgres/cjs/src/connection.js"] },
  { guards: queueGuards, files: ["node_modules/postgres/src/queue.js", "node_modules/postgres/cjs/src/queue.js"] },
]

for (const { guards, files } of guarded)
  for (const file of files) {
    const path = root + file
    if (!existsSync(path)) continue // not installed
    let text = readFileSync(path, "utf8")
    let changed = false
    for (const { before, after } of guards) {
      if (text.includes(after)) continue
      if (!text.includes(before)) {
        console.error(`patch-dependencies: ${file} changed; check the guards in scripts/patch-dependencies.mjs`)
        process.exit(1)
      }
      text = text.replace(before, after)
      changed = true
    }
    if (changed) {
      writeFileSync(path, text)
      console.log(`patch-dependencies: guarded ${file}`)
    }
  }
