// `npm start`: the built server (dist/), in this process, rebuilt first when a source is newer
// than the build (or the built server is missing). One process: the supervisor's signals reach
// the server, and the check does not cost a second Node start (a `prestart` hook did: ~75 ms of
// every start).
import { spawnSync } from "node:child_process"
import { existsSync } from "node:fs"
import { join } from "node:path"
import { root, upToDate } from "./build-stamp.mjs"

const server = join(root, "dist/runtimes/node/server.js")
const missing = !existsSync(server)
if (missing || !upToDate()) {
  const build = spawnSync(process.execPath, [join(root, "scripts/build.mjs"), ...(missing ? [] : ["--if-stale"])], { stdio: "inherit" })
  if (build.status !== 0) {
    if (build.status === null) console.error(`The build did not finish (${build.error?.message ?? build.signal}).`)
    process.exit(build.status ?? 1)
  }
}
await import("../dist/runtimes/node/server.js")
