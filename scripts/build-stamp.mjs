// Whether dist/ is newer than every source it is built from: `npm start` (scripts/start.mjs)
// and the build's `--if-stale` (scripts/build.mjs) ask the same question.
import { existsSync, readdirSync, statSync } from "node:fs"
import { join } from "node:path"
import { fileURLToPath } from "node:url"

export const root = fileURLToPath(new URL("..", import.meta.url))
export const stamp = join(root, "dist", ".build-stamp")
const sources = ["core", "adapters", "workflows", "runtimes/node", "drizzle", "tsconfig.json", "tsconfig.build.json", "package.json"]

const newest = (path) => {
  if (!existsSync(path)) return 0
  const st = statSync(path)
  if (!st.isDirectory()) return st.mtimeMs
  return readdirSync(path).reduce((m, name) => Math.max(m, newest(join(path, name))), st.mtimeMs)
}

export const upToDate = () => existsSync(stamp) && sources.every((s) => newest(join(root, s)) <= statSync(stamp).mtimeMs)
